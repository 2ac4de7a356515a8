// Split-K and stream-K: the units that share a tile sum their accumulators through the
// workspace (Sm90Spec::splitSum says how). Split-K's units meet in pairs up a tree
// (SplitTreeSum.cpp). Otherwise each consumer warpgroup stores its record (the accumulators,
// then any partial operand sums) as float4s, makes it visible GPU-wide and counts itself in on
// the tile's counter; the last to arrive adds every record in split order (the same bits
// whoever arrives last) and runs the tile's epilog. Nobody waits for anybody, so the units
// need not be resident at once.
// Stream-K pieces of their own (Sm90Spec::streamKPieces) are the exception: the P pieces of a
// shared unit run on P neighbouring walkers of one persistent grid, all resident, and the piece
// of the last k-steps finishes the unit: it waits for the others' count and adds their records
// in split order to its own accumulators (one fixed order: the same bits every launch), so that
// it neither stores nor reads back its own record, and holds no second set of sums. The waiting
// walker's peers have lower block indices and wait for nothing in their piece: with the grid
// resident (at most one block per multiprocessor, the device's count) each makes progress; a
// GPU shared with other work relies, as CUTLASS's stream-K does, on blocks being dispatched in
// index order.
#include "SplitRecords.h"
#include "WgmmaKernelGenerator.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {

/// Split-K and stream-K: this consumer's partial `acc` (with its partial operand sums,
/// `sumPartials`) goes into the workspace; the last to arrive at the tile sums the records in
/// order, stores the operand sums (`storeSums`) and runs the epilog of slice `slice`.
void WgmmaKernelGenerator::emitReducedEpilog(
    Emitter &e, const Context &c, MatmulOp op, const IRMapping &operands, Value acc,
    const WorkUnit &unit, ArrayRef<Value> sumPartials, Value slice,
    function_ref<void(ArrayRef<Value>)> storeSums) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type f32 = b.getF32Type();
  auto accType = acc.getType();
  // The partial operand sums travel with the accumulators: one record per thread.
  Value record = acc;
  if (!sumPartials.empty()) {
    int64_t floats = c.spec.splitRecordFloats();
    auto recordType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(floats, f32));
    record = LLVM::ZeroOp::create(b, loc, recordType);
    for (int64_t i = 0; i < registers(); ++i)
      record = LLVM::InsertValueOp::create(b, loc, record,
                                           LLVM::ExtractValueOp::create(b, loc, acc, i), i);
    for (auto [i, v] : llvm::enumerate(sumPartials))
      record = LLVM::InsertValueOp::create(b, loc, record, v, registers() + i);
  }
  Value isLast, sum;
  if (config.getScheduler().isStreamK()) {
    // Only the units two walkers share are reduced.
    auto shared = scf::IfOp::create(b, loc, TypeRange{b.getI1Type(), record.getType()},
                                    e.ult(e.i32(1), unit.splits), /*withElseRegion=*/true);
    OpBuilder::InsertionGuard branch(b);
    b.setInsertionPointToStart(shared.thenBlock());
    auto [last, total] = emitSplitReduction(e, c, unit, record);
    scf::YieldOp::create(b, loc, ValueRange{last, total});
    b.setInsertionPointToStart(shared.elseBlock());
    Value alone = arith::ConstantIntOp::create(b, loc, 1, 1);
    scf::YieldOp::create(b, loc, ValueRange{alone, record});
    isLast = shared.getResult(0);
    sum = shared.getResult(1);
  } else {
    std::tie(isLast, sum) = emitSplitReduction(e, c, unit, record);
  }
  auto last = scf::IfOp::create(b, loc, isLast, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard then(b);
  b.setInsertionPointToStart(last.thenBlock());
  Value total = sum;
  if (!sumPartials.empty()) {
    total = LLVM::ZeroOp::create(b, loc, accType);
    for (int64_t i = 0; i < registers(); ++i)
      total = LLVM::InsertValueOp::create(b, loc, total,
                                          LLVM::ExtractValueOp::create(b, loc, sum, i), i);
    SmallVector<Value> sums;
    for (size_t i = 0; i < sumPartials.size(); ++i)
      sums.push_back(LLVM::ExtractValueOp::create(b, loc, sum, registers() + i));
    storeSums(sums);
  }
  emitEpilog(e, c, op, operands, total, unit, slice);
}

void storePartials(Emitter &e, Value acc, int64_t quads, Value split, PartialAddress partial) {
  OpBuilder &b = e.b;
  auto vec4 = VectorType::get({4}, b.getF32Type());
  for (int64_t q = 0; q < quads; ++q) {
    Value v = LLVM::UndefOp::create(b, e.loc, vec4);
    for (int64_t j = 0; j < 4; ++j)
      v = LLVM::InsertElementOp::create(b, e.loc, v,
                                        LLVM::ExtractValueOp::create(b, e.loc, acc, 4 * q + j),
                                        e.i32(j));
    LLVM::StoreOp::create(b, e.loc, v, partial(split, q), /*alignment=*/16);
  }
}

Value addQuad(Emitter &e, Value total, Value v, int64_t q, Value inRange) {
  for (int64_t j = 0; j < 4; ++j) {
    Value x = LLVM::ExtractElementOp::create(e.b, e.loc, v, e.i32(j));
    Value t = LLVM::ExtractValueOp::create(e.b, e.loc, total, 4 * q + j);
    Value added = arith::AddFOp::create(e.b, e.loc, t, x);
    if (inRange)
      added = e.select(inRange, added, t);
    total = LLVM::InsertValueOp::create(e.b, e.loc, total, added, 4 * q + j);
  }
  return total;
}

Value loadCount(OpBuilder &b, Location loc, Value counter) {
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), counter, /*alignment=*/4,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/false, /*isInvariantGroup=*/false,
                              LLVM::AtomicOrdering::monotonic, StringRef("device"));
}

namespace {

/// The leader counts its warpgroup in at `counter` (a device-scope atomic; the last of
/// `splits` arrivals resets it to zero for the next launch) and publishes to the warpgroup at
/// `flag` whether it arrived last. Without `flag`, a stream-K piece counts in for its finisher,
/// which waits for the count and resets it (emitFinisherSum): no piece is ever the last.
void countArrival(Emitter &e, Value isLeader, function_ref<Value()> counterAddress, Value splits,
                  Value flag) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto leader = scf::IfOp::create(b, loc, isLeader, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(leader.thenBlock());
  Value counter = counterAddress();
  Value arrived = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, counter, e.i32(1),
                                            LLVM::AtomicOrdering::monotonic, StringRef("device"));
  if (!flag)
    return;
  Value last = e.eq(arrived, e.sub(splits, e.i32(1)));
  auto reset = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
  b.setInsertionPointToStart(reset.thenBlock());
  LLVM::StoreOp::create(b, loc, e.i32(0), counter, /*alignment=*/4);
  b.setInsertionPointAfter(reset);
  LLVM::StoreOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), last), flag,
                        /*alignment=*/4);
}

/// Records the last arrival loads at once: its sum waits for one load's latency per group of
/// splits instead of one per split (the latency, not the bytes, bounds a single block's sum
/// of a narrow tile's few floats). Groups hold about this many floats a thread, so that a
/// 64 x 64 slice (32 accumulators) loads two splits at once and 64 x 32 four, while slices of
/// 128 columns or more keep one (their loads already fill a round trip).
constexpr int64_t kSumFloatsInFlight = 64;

/// Where `isLast`: the partials of all `splits` splits summed in split order (the same bits
/// whoever arrives last) onto `init` (zeros where null); elsewhere `acc`.
Value sumPartials(Emitter &e, Value acc, int64_t quads, Value splits, Value isLast,
                  PartialAddress partial, Value init = {}) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto vec4 = VectorType::get({4}, b.getF32Type());
  auto sum = scf::IfOp::create(b, loc, TypeRange{acc.getType()}, isLast, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(sum.thenBlock());
  // Acquire: the other warpgroups' partials, released before their count.
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  Value zero = init ? init : LLVM::ZeroOp::create(b, loc, acc.getType()).getResult();
  int64_t group = std::clamp<int64_t>(kSumFloatsInFlight / (4 * quads), 1, 4);
  auto loop = scf::ForOp::create(b, loc, e.i32(0), splits, e.i32(group), ValueRange{zero});
  b.setInsertionPointToStart(loop.getBody());
  Value first = loop.getInductionVar();
  Value total = loop.getRegionIterArg(0);
  auto add = [&](Value v, int64_t q, Value inRange) { total = addQuad(e, total, v, q, inRange); };
  auto load = [&](Value split, int64_t q) -> Value {
    return LLVM::LoadOp::create(b, loc, vec4, partial(split, q), /*alignment=*/16);
  };
  if (group == 1) {
    // Each quad added as it comes: the order ptxas has scheduled best (a 64 x 128 split-K
    // kernel with all loads first ran 6 % slower).
    for (int64_t q = 0; q < quads; ++q)
      add(load(first, q), q, Value());
  } else {
    // The group's loads first; a split past the last reads the first's record again and is
    // not added.
    SmallVector<Value> inRange(group), loaded;
    for (int64_t g = 0; g < group; ++g) {
      Value split = first;
      if (g > 0) {
        inRange[g] = e.ult(e.add(first, e.i32(g)), splits);
        split = e.select(inRange[g], e.add(first, e.i32(g)), first);
      }
      for (int64_t q = 0; q < quads; ++q)
        loaded.push_back(load(split, q));
    }
    for (int64_t g = 0; g < group; ++g)
      for (int64_t q = 0; q < quads; ++q)
        add(loaded[g * quads + q], q, inRange[g]);
  }
  scf::YieldOp::create(b, loc, total);
  b.setInsertionPointAfter(loop);
  scf::YieldOp::create(b, loc, loop.getResult(0));
  b.setInsertionPointToStart(sum.elseBlock());
  scf::YieldOp::create(b, loc, acc);
  return sum.getResult(0);
}

/// A stream-K finisher's sum (the file's head): its leader waits until the other `splits` - 1
/// pieces have counted in at `counter`, resets it for the next launch, and the warpgroup adds
/// their records in split order to `acc`. Elsewhere `acc`.
Value emitFinisherSum(Emitter &e, Value acc, int64_t quads, Value splits, Value isFinisher,
                      Value isLeader, Value counter, Value consumer, PartialAddress partial) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value others = e.sub(splits, e.i32(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, e.andI(isFinisher, isLeader), /*withElseRegion=*/false)
            .thenBlock());
    scf::WhileOp::create(
        b, loc, TypeRange{}, ValueRange{},
        [&](OpBuilder &before, Location at, ValueRange) {
          Value arrived = loadCount(before, at, counter);
          scf::ConditionOp::create(before, at, e.ult(arrived, others), ValueRange{});
        },
        [&](OpBuilder &after, Location at, ValueRange) {
          scf::YieldOp::create(after, at, ValueRange{});
        });
    LLVM::StoreOp::create(b, loc, e.i32(0), counter, /*alignment=*/4);
  }
  emitConsumerBarrier(e, consumer);
  // sumPartials fences (acquire) before its loads.
  return sumPartials(e, acc, quads, others, isFinisher, partial, /*init=*/acc);
}
} // namespace

std::pair<Value, Value> WgmmaKernelGenerator::emitSplitReduction(Emitter &e, const Context &c,
                                                                 const WorkUnit &unit,
                                                                 Value acc) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t floats = cast<LLVM::LLVMStructType>(acc.getType()).getBody().size();
  int64_t quads = floats / 4;
  Value consumer = c.consumer;
  Value thread = e.rem(c.tid, e.i32(kWarpgroup));
  Value isLeader = e.eq(thread, e.i32(0));
  Value slot = e.add(e.mul(unit.slot, e.i32(consumers())), consumer); // (slot, consumer)
  // Records of all consumers side by side, after the counters.
  auto partial = [&](Value split, int64_t quad) {
    Value block = e.add(e.mul(unit.record(split), e.i32(consumers())), consumer);
    Value blockBytes = e.mul(e.zext64(block), e.i64(floats * kWarpgroup * 4));
    Value within = e.i64(c.spec.counterBytes() + quad * kWarpgroup * 16);
    Value bytes = e.add(e.add(blockBytes, within), e.mul(e.zext64(thread), e.i64(16)));
    return e.globalOffset(c.workspace, bytes);
  };
  // The slot's counters (a tree's nodes, or one) side by side.
  int64_t counters = c.spec.countersPerSlot();
  auto counterAt = [&](Value node) {
    Value index = e.add(e.mul(slot, e.i32(counters)), node);
    return e.globalOffset(c.workspace, e.mul(e.zext64(index), e.i64(4)));
  };
  auto counter = [&] { return counterAt(e.i32(0)); };
  Value flag = e.offset(c.base, e.add(e.i32(c.layout.flags), e.mul(consumer, e.i32(4))));
  Sm90Spec::SplitSum how = c.spec.splitSum();
  if (how == Sm90Spec::SplitSum::Tree)
    return emitTreeSum(e,
                       SplitTree{config.getScheduler().getSplits(), unit.split, isLeader,
                                 consumer, flag, counterAt, partial},
                       acc, quads);
  bool finisherWaits = how == Sm90Spec::SplitSum::Finisher;
  Value isFinisher =
      finisherWaits ? e.eq(unit.split, e.sub(unit.splits, e.i32(1))) : Value();
  {
    OpBuilder::InsertionGuard guard(b);
    if (finisherWaits) { // the finisher keeps its accumulators
      Value notFinisher = e.xorI(isFinisher, arith::ConstantIntOp::create(b, loc, 1, 1));
      b.setInsertionPointToStart(
          scf::IfOp::create(b, loc, notFinisher, /*withElseRegion=*/false).thenBlock());
    }
    storePartials(e, acc, quads, unit.split, partial);
    // Release: the partials are visible GPU-wide before the leader counts the warpgroup in.
    NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
    emitConsumerBarrier(e, consumer);
    countArrival(e, isLeader, counter, unit.splits, finisherWaits ? Value() : flag);
  }
  if (finisherWaits)
    return {isFinisher, emitFinisherSum(e, acc, quads, unit.splits, isFinisher, isLeader,
                                        counter(), consumer, partial)};
  emitConsumerBarrier(e, consumer);
  Value isLast = e.ne(LLVM::LoadOp::create(b, loc, b.getI32Type(), flag, /*alignment=*/4),
                      e.i32(0));
  return {isLast, sumPartials(e, acc, quads, unit.splits, isLast, partial)};
}
} // namespace mlir::mepi::wgmma
