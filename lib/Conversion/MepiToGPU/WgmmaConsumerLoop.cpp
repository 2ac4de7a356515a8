// The wgmma consumer's main loop over one work unit: the k-steps (each a stage's wgmmas, one
// group kept in flight), the promoted accumulator policy, and the register fences around them.
#include "WgmmaKernelGenerator.h"
#include "WgmmaFragment.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {

/// Makes the accumulator registers wait for the wgmmas that write them: an empty asm that
/// reads and rewrites every register, so no use of them moves above `wgmma.wait_group`.
Value emitAccumulatorFence(Emitter &e, Value acc, int64_t count) {
  SmallVector<Value> values;
  std::string constraints;
  for (int64_t i = 0; i < count; ++i) {
    values.push_back(LLVM::ExtractValueOp::create(e.b, e.loc, acc, i));
    constraints += "=f,";
  }
  for (int64_t i = 0; i < count; ++i)
    constraints += std::to_string(i) + (i + 1 < count ? "," : "");
  return LLVM::InlineAsmOp::create(e.b, e.loc, acc.getType(), values, "", constraints,
                                   /*has_side_effects=*/true, /*is_align_stack=*/false,
                                   LLVM::tailcallkind::TailCallKind::None,
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

/// emitAccumulatorFence for f32 values (the operand sums' fragments).
SmallVector<Value> emitValueFence(Emitter &e, ArrayRef<Value> values) {
  if (values.empty())
    return {};
  auto type = LLVM::LLVMStructType::getLiteral(e.b.getContext(),
                                               SmallVector<Type>(values.size(), e.b.getF32Type()));
  Value packed = LLVM::UndefOp::create(e.b, e.loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    packed = LLVM::InsertValueOp::create(e.b, e.loc, packed, v, i);
  Value fenced = emitAccumulatorFence(e, packed, values.size());
  SmallVector<Value> result;
  for (size_t i = 0; i < values.size(); ++i)
    result.push_back(LLVM::ExtractValueOp::create(e.b, e.loc, fenced, i));
  return result;
}

/// Where each summing plan's fragments start among the loop-carried sums, and how many there
/// are in all.
std::pair<SmallVector<size_t>, size_t>
WgmmaKernelGenerator::sumsLayout(ArrayRef<SumsPlan> plans, ArrayRef<bool> summing) {
  SmallVector<size_t> at(plans.size(), 0);
  size_t carried = 0;
  for (auto [i, p] : llvm::enumerate(plans))
    if (summing[i]) {
      at[i] = carried;
      carried += p.tile.carried();
    }
  return {at, carried};
}

/// The wgmma descriptors of this consumer's tiles in the stage at `stageAddress` (shared i32),
/// A's from its slice `slice` on (promoted by slice: the later slices of the same stage).
WgmmaMainloop::StageTiles WgmmaKernelGenerator::emitStageDescriptors(Emitter &e,
                                                                     const UnitLoop &u,
                                                                     Value stageAddress,
                                                                     int64_t slice) const {
  const WgmmaMainloop &mainloop = u.mainloop;
  WgmmaMainloop::StageTiles tiles = mainloop.emitStageTiles(e, stageAddress, u.consumer);
  WgmmaMainloop::StageTiles descriptors =
      mainloop.emitDescriptors(e, stageAddress, tiles, u.consumer);
  // A descriptor counts 16-byte units; a slice's 64 rows of A are one 8-KiB block.
  if (slice > 0)
    descriptors.a = e.add(descriptors.a, e.i64(slice * sm90::kBlockBytes / 16));
  return descriptors;
}

/// One k-step `k` of `u.unit` (stage counter `it`; `carried`: the accumulators, then the
/// summing plans' fragments): waits for its stage, issues its wgmmas (and the sums' wgmmas or
/// thread additions), keeps one group in flight and releases the previous step's stage.
/// `fresh`: the step starts from zero accumulators (its first wgmma of each slice ignores
/// them, scale-d = 0: no instructions to clear them). Returns the next stage counter, the
/// accumulators and the fragments.
SmallVector<Value> WgmmaKernelGenerator::emitKStep(Emitter &e, const Context &c,
                                                   const UnitLoop &u, ArrayRef<bool> summing,
                                                   Value it, Value k, ValueRange carried,
                                                   bool fresh) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  ArrayRef<SumsPlan> sumsPlans = u.sumsPlans;
  const WgmmaMainloop &mainloop = u.mainloop;
  auto [sumsAt, carriedSums] = sumsLayout(sumsPlans, summing);
  auto fragmentsOf = [&, &sumsAt = sumsAt](MutableArrayRef<Value> sums, size_t i) {
    return sums.slice(sumsAt[i], sumsPlans[i].tile.carried());
  };
  // The accumulators it issues into: every slice's, or one slice's (promoted by slice).
  SmallVector<Value> accs(carried.drop_back(carriedSums));
  SmallVector<Value> partials(carried.take_back(carriedSums));
  StagePipeline::Slot slot = c.pipeline->emitSlot(e, it);
  c.pipeline->emitWait(e, slot);
  // Grouped along K: a ping-pong consumer masks its stage alone (meeting at its own barrier),
  // cooperative ones together.
  if (c.kGroupMask) {
    bool alone = config.getMainloop().getPingpong();
    Value thread = alone ? u.localThread : e.add(e.mul(u.consumer, e.i32(kWarpgroup)), u.localThread);
    Value barrier = alone ? e.add(u.consumer, e.i32(1)) : e.i32(kKGroupMaskBarrier);
    c.kGroupMask->emit(e, e.offset(c.base, e.mul(slot.stage, e.i32(c.layout.stageBytes))), k,
                       u.unit.kStart, u.unit.kStop, thread, barrier);
  }
  Value stageAddress = e.add(c.baseAddress, e.mul(slot.stage, e.i32(c.layout.stageBytes)));
  // The stage tiles the operand sums read: the first of this consumer's groups.
  SmallVector<Value> sumTiles;
  for (const SumsPlan &p : sumsPlans)
    sumTiles.push_back(e.add(stageAddress, e.add(e.i32(p.stageOffset), p.consumerOffset)));
  WgmmaMainloop::StageTiles descriptors = emitStageDescriptors(e, u, stageAddress, 0);
  // Strict f32: the stage split into TF32 parts, the low parts in a buffer of its layout.
  std::optional<WgmmaMainloop::StageTiles> low;
  if (c.tf32Split) {
    Value lowAddress = e.add(c.baseAddress, c.tf32Split->emitLowOffset(e, slot.stage));
    low = mainloop.emitDescriptors(
        e, lowAddress, mainloop.emitStageTiles(e, lowAddress, u.consumer), u.consumer);
  }
  mainloop.emitWgmmas(e, descriptors, low ? &*low : nullptr, accs, fresh, [&](int64_t kk) {
    // Operand sums: the tensor cores add up this k16 step of the rows this consumer sums in
    // this unit, between the main wgmmas.
    for (auto [i, p] : llvm::enumerate(sumsPlans)) {
      if (!summing[i] || !p.tile.onTensorCores)
        continue;
      auto descriptor = [&](int64_t group) {
        int64_t bytes = group * kBlockBytes + kk * mainloop.kStep(p.tile.mnMajor);
        return emitMatrixDescriptor(e, e.add(sumTiles[i], e.i32(bytes)), p.tile.mnMajor);
      };
      p.tile.emitK16(e, kk, descriptor, u.onesDescriptor, c.elementType,
                     fragmentsOf(partials, i));
    }
  });
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // Operand sums by the threads: from the stage the wgmmas read, before it is released.
  for (auto [i, p] : llvm::enumerate(sumsPlans))
    if (summing[i] && !p.tile.onTensorCores)
      p.tile.emitThreadAccumulate(e, e.offset(c.base, e.sub(sumTiles[i], c.baseAddress)),
                                  u.localThread, c.elementType, fragmentsOf(partials, i));
  // Keep one group in flight: the previous step's wgmmas are done, so free their stage.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
  auto notFirst = scf::IfOp::create(b, loc, e.ult(u.unit.kBegin, k), /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(notFirst.thenBlock());
    c.pipeline->emitRelease(e, e.sub(it, e.i32(1)), u.localThread, u.isLeader);
  }
  SmallVector<Value> results = {e.add(it, e.i32(1))};
  llvm::append_range(results, accs);
  llvm::append_range(results, partials);
  return results;
}

/// The loop over k-steps [begin, end) of `u.unit` from `init` (the stage counter, the
/// accumulators, then the summing plans' fragments), one emitKStep each.
scf::ForOp WgmmaKernelGenerator::emitKSteps(Emitter &e, const Context &c, const UnitLoop &u,
                                            ArrayRef<bool> summing, Value begin, Value end,
                                            ValueRange init) const {
  OpBuilder &b = e.b;
  auto kLoop = scf::ForOp::create(b, e.loc, begin, end, e.i32(1), init);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(kLoop.getBody());
  SmallVector<Value> yielded =
      emitKStep(e, c, u, summing, kLoop.getRegionIterArg(0), kLoop.getInductionVar(),
                kLoop.getRegionIterArgs().drop_front(1), /*fresh=*/false);
  scf::YieldOp::create(b, e.loc, yielded);
  return kLoop;
}

/// Adds a block's tensor-core sums `fresh` of slice `s` (waited for and fenced) into its
/// promoted sums with rounded f32 additions, or fmas by the block's scale factors.
Value WgmmaKernelGenerator::emitPromotion(Emitter &e, Value sums, Value fresh,
                                          BlockScaleFactors::Factors *factors, int64_t s) const {
  int64_t count = registers();
  for (int64_t i = 0; i < count; ++i) {
    Value total = LLVM::ExtractValueOp::create(e.b, e.loc, sums, i);
    Value value = LLVM::ExtractValueOp::create(e.b, e.loc, fresh, i);
    Value sum = !factors ? LLVM::FAddOp::create(e.b, e.loc, total, value).getResult()
                         : LLVM::FMAOp::create(e.b, e.loc, value, factors->of(e, s, i), total)
                               .getResult();
    sums = LLVM::InsertValueOp::create(e.b, e.loc, sums, sum, i);
  }
  return sums;
}

/// Promoted by slice (Sm90Spec::promotesBySlice): slices 1.. of the k-step at stage counter
/// `it`, whose slice 0's tensor-core sums `part` are added, each issued from zero into the
/// registers of the slice before (its wgmmas ignore their values: with fresh undefined ones
/// ptxas would keep a set per slice live through the loop, and spill), waited for and added
/// into `sums[s]` before the next is issued.
void WgmmaKernelGenerator::emitLaterSlices(Emitter &e, const Context &c, const UnitLoop &u,
                                           Value it, Value part, MutableArrayRef<Value> sums,
                                           BlockScaleFactors::Factors *factors) const {
  Value stage = c.pipeline->emitSlot(e, it).stage;
  Value stageAddress = e.add(c.baseAddress, e.mul(stage, e.i32(c.layout.stageBytes)));
  for (int64_t s = 1; s < static_cast<int64_t>(sums.size()); ++s) {
    SmallVector<Value> acc = {part};
    u.mainloop.emitWgmmas(e, emitStageDescriptors(e, u, stageAddress, s), nullptr, acc,
                          /*fresh=*/true, [](int64_t) {});
    NVVM::WgmmaGroupSyncAlignedOp::create(e.b, e.loc);
    NVVM::WgmmaWaitGroupSyncOp::create(e.b, e.loc, 0);
    part = emitAccumulatorFence(e, acc.front(), registers());
    sums[s] = emitPromotion(e, sums[s], part, factors, s);
  }
}

/// The promoted accumulator policy (`promote` = P): blocks of P k-steps, the first of each
/// from zero (scale-d = 0), each block's sums waited for and added into a second set with
/// rounded f32 additions (by slice where the second set holds one slice). Returns the stage
/// counter and the promoted sums (no wgmma in flight).
SmallVector<Value> WgmmaKernelGenerator::emitPromotedKSteps(Emitter &e, const Context &c,
                                                            const UnitLoop &u) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t slices = slicesPerConsumer();
  bool bySlice = Sm90Spec::promotesBySlice(config);
  Type accType = u.loopInit[1].getType();
  SmallVector<Value> init(u.loopInit); // the stage counter, zero sums
  Value lastStep = e.sub(u.unit.kEnd, e.i32(1));
  if (u.blockScales)
    llvm::append_range(init, u.blockScales->emitCarriedInit(e, e.min(u.unit.kBegin, lastStep)));
  Value step = e.i32(config.getMainloop().getPromote());
  auto blocks = scf::ForOp::create(b, loc, u.unit.kBegin, u.unit.kEnd, step, init);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(blocks.getBody());
  Value it = blocks.getRegionIterArg(0), blockBegin = blocks.getInductionVar();
  Value blockEnd = arith::MinUIOp::create(b, loc, e.add(blockBegin, step), u.unit.kEnd);
  // Block scales (a block is one k-step): loaded a block ahead, or read from the full stage
  // while its wgmmas run.
  BlockScaleFactors::Block scales;
  if (u.blockScales)
    scales = u.blockScales->emitBlockTop(e, blocks.getRegionIterArgs().drop_front(1 + slices),
                                         e.min(blockEnd, lastStep));
  // The block's first k-step writes its accumulators without reading them.
  SmallVector<Value> unread(bySlice ? 1 : slices, LLVM::UndefOp::create(b, loc, accType));
  SmallVector<Value> first = emitKStep(e, c, u, {}, it, blockBegin, unread, /*fresh=*/true);
  if (u.blockScales)
    u.blockScales->emitAfterIssue(e, scales, c.pipeline->emitSlot(e, it).stage);
  BlockScaleFactors::Factors *factors = scales.factors ? &*scales.factors : nullptr;
  SmallVector<Value> block = first;
  if (config.getMainloop().getPromote() > 1)
    block = SmallVector<Value>(
        emitKSteps(e, c, u, {}, e.add(blockBegin, e.i32(1)), blockEnd, first).getResults());
  // The block's sums are waited for before they are read: an addition reading accumulators
  // while any wgmma runs makes ptxas serialize every wgmma (C7514), so the additions cannot
  // overlap the next block's wgmmas (tried: three sets of accumulators, bench/NOTES.md).
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> sums(blocks.getRegionIterArgs().slice(1, slices));
  Value part;
  for (size_t s = 0; s + 1 < block.size(); ++s) {
    part = emitAccumulatorFence(e, block[1 + s], registers());
    sums[s] = emitPromotion(e, sums[s], part, factors, s);
  }
  if (bySlice)
    emitLaterSlices(e, c, u, it, part, sums, factors);
  SmallVector<Value> yielded = {block[0]};
  llvm::append_range(yielded, sums);
  if (u.blockScales)
    llvm::append_range(yielded, u.blockScales->emitCarriedNext(e, scales));
  scf::YieldOp::create(b, loc, yielded);
  return SmallVector<Value>(blocks.getResults().take_front(1 + slices));
}

/// The main loop over `u.unit`'s k-steps; `summing[i]`: it issues sums plan i's wgmmas.
/// A plan's fragments are loop-carried (from zeros) only where it sums; elsewhere they are
/// undefined, unread (its stores and split-K partials are the active tiles' only), and cost no
/// register moves where the variants join. Returns the stage counter, the accumulators, then
/// every sums plan's fragments.
SmallVector<Value> WgmmaKernelGenerator::emitUnitMainLoop(Emitter &e, const Context &c,
                                                          const UnitLoop &u,
                                                          ArrayRef<bool> summing) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  ArrayRef<SumsPlan> sumsPlans = u.sumsPlans;
  int64_t slices = slicesPerConsumer();
  auto turnBarrier = [&](Value which) { return e.add(which, e.i32(kMainloopTurnBarrier)); };
  auto [sumsAt, carriedSums] = sumsLayout(sumsPlans, summing);
  SmallVector<Value> loopResults;
  if (config.getMainloop().getPromote() > 0) {
    loopResults = emitPromotedKSteps(e, c, u);
  } else {
    SmallVector<Value> zeros(carriedSums, u.f32Zero);
    // Opaque zeros, set before the loop: LLVM would otherwise set the constants between the
    // first k-step's wgmmas, where ptxas must fence (or serialize) around them.
    SmallVector<Value> init(u.loopInit);
    llvm::append_range(init, emitValueFence(e, zeros));
    loopResults = SmallVector<Value>(
        emitKSteps(e, c, u, summing, u.unit.kBegin, u.unit.kEnd, init).getResults());
  }
  // Ping-pong: every wgmma of this unit is issued; the other consumer may run its main loop
  // (when the block has a next unit, which is the other consumer's).
  if (config.getMainloop().getPingpong()) {
    auto handOver = scf::IfOp::create(b, loc, u.hasNext, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(handOver.thenBlock());
    NVVM::BarrierArriveOp::create(b, loc, turnBarrier(e.sub(e.i32(1), u.consumer)),
                                  e.i32(2 * kWarpgroup));
  }
  // Wait for the last wgmmas here, before any variants join: a register move of their
  // accumulators at the join while they run would make ptxas serialize every wgmma.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> results = {loopResults[0]};
  for (int64_t s = 0; s < slices; ++s)
    results.push_back(emitAccumulatorFence(e, loopResults[1 + s], registers()));
  SmallVector<Value> sums =
      emitValueFence(e, ArrayRef<Value>(loopResults).drop_front(1 + slices));
  for (auto [i, p] : llvm::enumerate(sumsPlans)) {
    if (summing[i])
      llvm::append_range(results, ArrayRef<Value>(sums).slice(sumsAt[i], p.tile.carried()));
    else
      results.append(p.tile.carried(), LLVM::UndefOp::create(b, loc, b.getF32Type()));
  }
  return results;
}

} // namespace mlir::mepi::wgmma
