// The wgmma kernel family (sm_90a): TMA loads into a ring of shared-memory stages, mbarrier
// handshakes, warpgroup MMAs, and the epilog applied to the accumulator registers.
//
// Block: warpgroup 0 is the producer (one thread issues the TMA loads, the warpgroup gives its
// registers away with setmaxnreg); warpgroups 1..C are consumers, each owning 64 rows of the
// tile_m x tile_n tile (C = tile_m / 64), accumulating with wgmma m64 n{tile_n} k16 in f32
// registers. The grid is persistent: block b handles tiles b, b + gridDim.x, ... in a grouped
// order (GROUP_M tile rows at a time) so that concurrently running blocks share operand rows in
// L2. Both roles walk the same sequence of (tile, k-step) pairs, so stage s = it % stages and
// its phase (it / stages) & 1 follow from one counter `it` that runs across tiles.
//
// Shared memory (dynamic, aligned to 1024 bytes for the 128-byte swizzle):
//   stage s: A tile (tile_m x 64 elements) | B tile (tile_n x 64 elements)
//   then, with operand sums, a 1 KiB tile of ones; the consumers' staging blocks and scratch
//   areas; full[stages] (TMA bytes landed) and empty[stages] (consumers done) mbarriers.
// Operand tiles keep the operand's memory order, in 128-byte lines with the 128-byte swizzle
// that TMA writes and wgmma descriptors read:
//   K-major (A [M, K], B given as [N, K]): line r holds row r's 64 k-values; one TMA box.
//   MN-major (A given as [K, M], B [K, N]): 64-row blocks of 8 KiB, line k of block j holding
//   rows 64j..64j+63 at k; one TMA box per block; the wgmma reads them transposed.
// Reads past the operand's edges fill zeros, so M, N and K need no multiple of the tile.
//
// Split-K (splits = S > 1): the grid walks work units (tile, split) instead of tiles; unit
// (t, s) accumulates k-steps [s * kSteps / S, (s + 1) * kSteps / S) of tile t. Each consumer
// warpgroup stores its partial sums to the workspace, then counts itself in on its tile's
// counter; the S-th to arrive adds the S partials in split order, resets the counter and runs
// the epilog. Nobody waits for anybody, so the units need not be resident at once.
//
// Stream-K (scheduler = <stream_k>): of U units on G walkers, walker w first takes whole units w, w
// + G,
// ... below (U / G) * G; the k-steps of the last U % G units, laid end to end, are then cut into
// G' <= G consecutive ranges of equal length (within one) and at least kMinStreamKSteps, walker
// w < G' taking range w, unit by unit; or, where the walk is constants and every one of those
// units can be cut into P >= 2 ranges of kMinStreamKSteps or more (Sm90Spec::streamKPieces),
// each into P ranges of its own (G' = P x the units), so that no range crosses into a second
// unit. A unit whose k-steps several walkers share is summed
// like a split-K unit: each stores its partials as a record (every walker block keeps two, for
// the first and the last shared unit its range meets), counts itself in on the counter of the
// unit's first walker, and the last to arrive adds the records in k order and runs the epilog;
// a unit cut into pieces of its own is finished by its last piece instead, which waits for the
// others' count and adds their records to its own sums (SplitReduction.cpp).
// The last wave then ends together instead of leaving G - U % G walkers idle.
//
// Ping-pong (pingpong = true): two consumer warpgroups, each computing whole tiles with
// tile_m / 64 wgmmas per k16 (the tile's row slices). Consumer j of the block takes the block's
// units j, j + 2, ... ; the producer still walks every unit, so the stage counter of the block's
// i-th unit starts at i * kSteps. Two named barriers hand the right to run a main loop from one
// consumer to the other: consumer 1 starts its first main loop once consumer 0's has issued its
// last wgmma, and so on, so that one consumer's epilog runs while the other's wgmmas keep the
// tensor cores busy. The hand-over is also what keeps the parity waits sound: a consumer never
// waits on a stage more than one fill ahead of the producer.
//
// Clusters (cluster = 2): the two blocks of a cluster walk the same sequence of pair units, a
// pair unit being tile rows 2i and 2i + 1 of one tile column, block rank r taking row 2i + r.
// Both tiles read the same tile of B: block r loads half r of it and multicasts it into both
// blocks' stages, and its full barrier expects the whole stage (its A, both halves of B). A
// stage may only be refilled once the consumers of both blocks freed it, so each consumer
// warpgroup arrives on the empty barrier of both blocks. The barriers are initialized before a
// cluster barrier, and a last cluster barrier keeps each block alive until its peer no longer
// writes into it. A pair's second tile may lie below D (odd tile rows): it loads zeros and skips
// its epilog. With multicast = a the pair is tile columns 2j and 2j + 1 of one tile row, which
// share A's tile the same way (short M, wide N, where A's rows are what every block rereads);
// its second tile may lie right of D. Clusters of 4 or 8 with multicast = ab: a unit is 2 tile
// rows by 2 or 4 tile columns, block r taking tile (r % 2, r / 2); the blocks of a tile row
// share A's tile and those of a column B's, each loading its share of both and multicasting it
// to its row or column, and each consumer frees a stage in its row's and column's blocks
// (whole units only). Split-K in clusters: a pair unit is a pair of tiles and a
// split, both blocks taking the same k-steps of their own tile, each tile with its own counter
// and records.
//
// Workspace: counters[tiles * C] (u32, 256-byte padded) | partials[tiles][S][C][R / 4][128] of
// float4 (stream-K: counters[132 * C] | partials[132][2][C][R / 4][128]), R = tile_n / 2
// accumulator registers per thread, so that a warp's partial stores and loads are 512
// contiguous bytes.
#include "WgmmaKernelGenerator.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {

/// The kernel-wide values of `c`: the problem's sizes and the spec's counts, the tensor maps
/// and workspace among the `leading` arguments, the reductions' layouts.
void WgmmaKernelGenerator::fillContext(Emitter &e, Context &c, MatmulOp op,
                                       ValueRange leading) const {
  unsigned maps = 0;
  if (config.getMainloop().getTma()) {
    c.mapA = leading[maps++];
    c.mapB = leading[maps++];
  }
  if (config.getEpilogue().getStore() == DStore::Tma && c.spec.problem().dThroughTma) {
    c.mapD = leading[maps++];
    for (size_t i = 0; i < op.getMirrors().size(); ++i)
      c.mirrorMaps.push_back(leading[maps++]);
  }
  const Sm90Problem &p = c.spec.problem();
  c.m = p.m;
  c.n = p.n;
  c.k = p.k;
  c.mnMajorA = p.mnMajorA;
  c.mnMajorB = p.mnMajorB;
  c.tilesM = c.spec.tilesM();
  c.tilesN = c.spec.tilesN();
  c.kSteps = c.spec.kSteps();
  c.units = c.spec.workUnits();
  c.batch = p.batch;
  c.unitsPerBatch = c.spec.unitsPerBatch();
  if (c.spec.needsWorkspace())
    c.workspace = LLVM::AddrSpaceCastOp::create(e.b, e.loc, e.globalPtr(), leading[maps]);
  int64_t workspaceBytes = 0;
  c.reductions = reductionLayouts(op, workspaceBytes);
  c.elementType = op.getA().getType().getElementType();
}

/// The block's base in dynamic shared memory (aligned to 1024 bytes for the 128-byte swizzle),
/// its thread, warpgroup and cluster rank, the tile scheduler and the stage pipeline.
void WgmmaKernelGenerator::emitBlockValues(Emitter &e, Context &c) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  // The dynamic shared memory symbol, declared once per kernel module.
  auto module = b.getInsertionBlock()->getParentOp()->getParentOfType<gpu::GPUModuleOp>();
  if (!module.lookupSymbol(kSharedMemoryName)) {
    OpBuilder global = OpBuilder::atBlockBegin(module.getBody());
    LLVM::GlobalOp::create(global, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External, kSharedMemoryName,
                           Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  }
  Value raw = LLVM::AddressOfOp::create(b, loc, e.sharedPtr(), kSharedMemoryName);
  Value rawAddress = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), raw);
  c.baseAddress = e.andI(e.add(rawAddress, e.i32(1023)), e.i32(~1023));
  c.base = e.offset(raw, e.sub(c.baseAddress, rawAddress));
  c.tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  // The warpgroup as lane 0 sees it: the same value in every lane, which ptxas then keeps, with
  // what derives from it (a consumer's wgmma descriptors), in uniform registers rather than
  // computing it per thread and moving each descriptor over (R2UR) before its wgmma.
  c.warpgroup = NVVM::ShflOp::create(b, loc, b.getI32Type(), e.i32(-1),
                                     e.div(c.tid, e.i32(kWarpgroup)), e.i32(0), e.i32(0x1f),
                                     NVVM::ShflKind::idx, UnitAttr());
  c.rank = cluster() > 1 ? NVVM::ClusterId::create(b, loc, b.getI32Type()).getResult() : e.i32(0);
  c.scheduler.emplace(c.spec, c.rank);
  c.pipeline.emplace(c.base, c.layout, config, c.rank);
}

void WgmmaKernelGenerator::fillPolicies(Emitter &e, Context &c, MatmulOp op,
                                        const IRMapping &operands) const {
  const Sm90SharedLayout &layout = c.layout;
  if (c.spec.problem().grouped()) {
    c.groups.emplace(op, e.offset(c.base, e.i32(layout.groupTable)), config.getTileM());
    c.scheduler->setGroups(*c.groups);
  } else if (op.isGroupedAlongK()) {
    c.scheduler->setKGroups(*op.getGroupForm(), operands.lookup(op.getGroups()));
    int64_t maskers = config.getMainloop().getPingpong() ? 1 : consumers();
    c.kGroupMask = KGroupMask{config.getTileK(), layout.aBytes, layout.bBytes,
                              c.mnMajorA,         c.mnMajorB,    maskers * kWarpgroup};
  }
  if (c.spec.problem().splitsTf32)
    c.tf32Split = Tf32Split{layout.stageBytes, layout.splitLo};
}

void WgmmaKernelGenerator::emitBarrierInit(Emitter &e, const Context &c, Value isThread0) const {
  // Thread 0 initializes the barriers: full[s] completes on the producer's arrive plus the TMA
  // bytes, empty[s] on one arrive per consumer warpgroup.
  OpBuilder &b = e.b;
  auto init = scf::IfOp::create(b, e.loc, isThread0, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(init.thenBlock());
    // TMA: the issuing thread arrives (and each thread copying block scales); ordinary
    // loads: each producer thread does. Each stage is read by every consumer, or by one
    // (ping-pong), of every block that multicasts into it.
    int64_t producerArrivals =
        !config.getMainloop().getTma() ? kWarpgroup
        : c.spec.stagesBlockScales()   ? 1 + BlockScaleCopies::kThreads
                                       : 1;
    int64_t readers =
        (config.getMainloop().getPingpong() ? 1 : consumers()) * c.pipeline->sharers();
    c.pipeline->emitInit(e, producerArrivals, readers, Tf32Split::kThreads);
  }
}

/// The block waits for the grid before it in the stream, and for that grid's memory, before
/// anything reads or writes global memory: the runtime launches the wgmma kernels with
/// programmatic stream serialization (CompiledKernel::programmaticLaunch), so a launch may
/// start while the grid before it finishes. An asm with a memory clobber, so that no access
/// moves above it (the NVVM intrinsic is declared as touching no memory).
static void emitPriorGridWait(Emitter &e) {
  LLVM::InlineAsmOp::create(e.b, e.loc, TypeRange{}, ValueRange{}, "griddepcontrol.wait;",
                            "~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                            ArrayAttr());
}

void WgmmaKernelGenerator::emitBody(OpBuilder &b, MatmulOp op, const IRMapping &operands,
                                    ValueRange leading) const {
  Location loc = op.getLoc();
  Emitter e{b, loc};
  emitPriorGridWait(e);
  Context c(spec(op));
  const Sm90SharedLayout &layout = c.layout;
  fillContext(e, c, op, leading);
  emitBlockValues(e, c);
  fillPolicies(e, c, op, operands);
  Value isThread0 = e.eq(c.tid, e.i32(0));
  emitBarrierInit(e, c, isThread0);
  if (c.spec.sumsOnTensorCores())
    emitOnesTile(e, e.offset(c.base, e.i32(layout.ones)), c.tid, c.elementType);
  if (c.groups)
    c.groups->emitBuild(e, operands.lookup(op.getGroups()), c.tid);
  auto clusterBarrier = [&] {
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  };
  if (cluster() > 1)
    clusterBarrier();
  else
    gpu::BarrierOp::create(b, loc);

  // One branch per role, as setmaxnreg requires.
  auto role = scf::IfOp::create(b, loc, e.eq(c.warpgroup, e.i32(0)), /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(role.thenBlock());
    NVVM::SetMaxRegisterOp::create(b, loc, Sm90Spec::registerSplit(config).first,
                                   NVVM::SetMaxRegisterAction::decrease);
    // TMA: one thread issues (one warp, which also copies block scales); ordinary loads: the
    // whole warpgroup loads. 3xTF32: warps 1-3 split the stages that landed.
    if (config.getMainloop().getTma()) {
      Value issues = c.spec.stagesBlockScales()
                         ? e.ult(c.tid, e.i32(BlockScaleCopies::kThreads))
                         : isThread0;
      auto issuer = scf::IfOp::create(b, loc, issues, /*withElseRegion=*/bool(c.tf32Split));
      if (c.tf32Split) {
        b.setInsertionPointToStart(issuer.elseBlock());
        Value splitter = e.sub(c.tid, e.i32(Tf32Split::kFirstThread));
        auto splits = scf::IfOp::create(b, loc, e.ult(splitter, e.i32(Tf32Split::kThreads)),
                                        /*withElseRegion=*/false);
        b.setInsertionPointToStart(splits.thenBlock());
        emitSplitters(e, c, splitter);
      }
      b.setInsertionPointToStart(issuer.thenBlock());
    }
    emitProducer(e, c, op, operands);
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(role.elseBlock());
    NVVM::SetMaxRegisterOp::create(b, loc, Sm90Spec::registerSplit(config).second,
                                   NVVM::SetMaxRegisterAction::increase);
    c.consumer = e.sub(c.warpgroup, e.i32(1));
    emitConsumer(e, c, op, operands);
    if (config.getEpilogue().getStore() == DStore::Tma)
      emitTmaStoresDrained(e, c.tid);
  }
  // Neither block of a cluster leaves while its peer may still multicast into it or arrive on
  // its barriers.
  if (cluster() > 1)
    clusterBarrier();
}


/// The operand sums this consumer takes in `unit` (OperandSums.h).
auto WgmmaKernelGenerator::planOperandSums(Emitter &e, const Context &c, MatmulOp op,
                                           const IRMapping &operands, const WorkUnit &unit,
                                           Value consumer) const -> SmallVector<SumsPlan> {
  int64_t tileN = config.getTileN();
  SmallVector<SumsPlan> plans;
  if (Value sums = op.getASums()) {
    SumsPlan p{operands.lookup(sums), tileSums(c.spec, c.mnMajorA, 1)};
    p.active = e.eq(unit.tileCol, e.i32(0));
    p.firstRow = e.add(e.mul(unit.tileRow, e.i32(config.getTileM())),
                       e.mul(consumer, e.i32(kBlockRows)));
    p.consumerOffset = e.mul(consumer, e.i32(kBlockBytes));
    p.limit = c.m;
    plans.push_back(p);
  }
  if (Value sums = op.getBSums()) {
    int64_t rows = bSumRows();
    bool split = rows < tileN;
    SumsPlan p{operands.lookup(sums), tileSums(c.spec, c.mnMajorB, rows / kBlockRows)};
    p.active = e.eq(unit.tileRow, e.i32(0));
    if (!split)
      p.active = e.andI(p.active, e.eq(consumer, e.i32(0)));
    Value first = split ? e.mul(consumer, e.i32(rows)) : e.i32(0);
    p.firstRow = e.add(e.mul(unit.tileCol, e.i32(tileN)), first);
    p.stageOffset = c.layout.aBytes;
    p.consumerOffset = e.mul(e.div(first, e.i32(kBlockRows)), e.i32(kBlockBytes));
    p.limit = c.n;
    plans.push_back(p);
  }
  return plans;
}

void WgmmaKernelGenerator::emitConsumer(Emitter &e, const Context &c, MatmulOp op,
                                        const IRMapping &operands) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  MLIRContext *ctx = b.getContext();
  const Sm90SharedLayout &layout = c.layout;
  Type f32 = b.getF32Type();
  auto accType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(registers(), f32));
  Value consumer = c.consumer;
  Value isLeader = e.eq(e.rem(c.tid, e.i32(kWarpgroup)), e.i32(0));
  bool pingpong = config.getMainloop().getPingpong();
  int64_t slices = slicesPerConsumer();
  WgmmaMainloop mainloop(c.spec, c.elementType, op.getB().getType().getElementType(), accType);
  Value localThread = e.rem(c.tid, e.i32(kWarpgroup));

  OpBuilder::InsertionGuard guard(b);
  // Ping-pong: consumer j takes the block's units j, j + 2, ...; the block's i-th unit's stages
  // start after the k-steps of the block's units before it (i * kSteps where all have kSteps).
  std::optional<StreamKWalk> walk;
  if (config.getScheduler().isStreamK())
    walk = c.scheduler->emitStreamKWalk(e);
  scf::ForOp units =
      pingpong ? c.scheduler->emitUnitLoop(e, nullptr, consumer, 2,
                                           e.mul(consumer, pingpongFirstSteps(e, c)))
               : c.scheduler->emitUnitLoop(e, walk ? &*walk : nullptr);
  WorkUnit unit =
      c.scheduler->emitWorkUnit(e, units.getInductionVar(), walk && !pingpong ? &*walk : nullptr);
  SmallVector<SumsPlan> sumsPlans = planOperandSums(e, c, op, operands, unit, consumer);
  // Ping-pong: wait for the other consumer's main loop of the block's previous unit (the
  // block's first unit has none).
  Value grid = c.scheduler->emitWalkers(e);
  Value hasPrevious = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                            units.getInductionVar(), grid);
  Value hasNext = e.ult(e.add(units.getInductionVar(), grid), e.i32(c.units));
  if (pingpong)
    emitPingpongTurn(e, hasPrevious, consumer);
  Value zero = LLVM::ZeroOp::create(b, loc, accType);
  // With operand sums the zeros are opaque, set before the loop variants (as theirs below).
  if (!sumsPlans.empty())
    zero = emitAccumulatorFence(e, zero, registers());
  SmallVector<Value> loopInit = {units.getRegionIterArg(0)};
  loopInit.append(slices, zero);
  Value f32Zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  // What the main loop variants return: the stage counter, the accumulators, then every sums
  // plan's fragments.
  SmallVector<Type> loopResultTypes = llvm::to_vector(TypeRange(ValueRange(loopInit)));
  for (const SumsPlan &p : sumsPlans)
    loopResultTypes.append(p.tile.carried(), b.getF32Type());
  // The B side of the operand sums' wgmmas: the tile of ones, K-major.
  Value onesDescriptor;
  if (c.spec.sumsOnTensorCores())
    onesDescriptor =
        emitMatrixDescriptor(e, e.add(c.baseAddress, e.i32(layout.ones)), /*mnMajor=*/false);
  UnitLoop u{unit,     sumsPlans, loopInit,    mainloop,       consumer,
             isLeader, localThread, f32Zero, onesDescriptor, hasNext};
  // Ping-pong: the k-steps of the block's next unit, the other consumer's, which this one's
  // stage counter skips.
  if (pingpong)
    u.otherSteps = c.kGroupMask ? c.scheduler->emitUnitKSteps(
                                      e, e.add(units.getInductionVar(), grid))
                                : e.i32(c.kSteps);
  // Block scales: a cooperative consumer c holds slices [c * slices, (c + 1) * slices).
  std::optional<BlockScaleFactors> blockScales;
  if (op.getABlockScales()) {
    Value stages =
        c.spec.stagesBlockScales() ? e.offset(c.base, e.i32(layout.scales)) : Value();
    // The consumer's first row: in the tile where staged, else in D.
    Value dRow = stages ? Value() : unit.firstRow(e, config.getTileM());
    Value firstRow = e.mul(consumer, e.i32(slices * kSliceRows));
    if (!stages)
      firstRow = e.add(dRow, firstRow);
    Value firstCol = e.mul(unit.tileCol, e.i32(config.getTileN()));
    blockScales.emplace(e, operands.lookup(op.getABlockScales()),
                        operands.lookup(op.getBBlockScales()), c.m, c.n, firstRow, slices,
                        firstCol, config.getTileM(), config.getTileN(), localThread, stages,
                        layout.scaleStageBytes);
    u.blockScales = &*blockScales;
  }
  SmallVector<Value> loopResults = emitMainLoopVariants(e, c, u, loopResultTypes, {});
  emitUnitEpilog(e, c, op, operands, u, loopResults);
}

/// Ping-pong: the k-steps of the block's first unit, after which consumer 1's stages start:
/// kSteps, or, grouped along K, that unit's group's.
Value WgmmaKernelGenerator::pingpongFirstSteps(Emitter &e, const Context &c) const {
  if (!c.kGroupMask)
    return e.i32(c.kSteps);
  return c.scheduler->emitUnitKSteps(e, c.scheduler->emitWalker(e));
}

/// Ping-pong: waits for the other consumer's main loop of the block's previous unit (the
/// block's first unit has none).
void WgmmaKernelGenerator::emitPingpongTurn(Emitter &e, Value hasPrevious,
                                            Value consumer) const {
  OpBuilder &b = e.b;
  auto wait = scf::IfOp::create(b, e.loc, hasPrevious, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard then(b);
  b.setInsertionPointToStart(wait.thenBlock());
  NVVM::BarrierOp::create(b, e.loc, Type(), e.add(consumer, e.i32(kMainloopTurnBarrier)),
                          e.i32(2 * kWarpgroup), NVVM::BarrierReductionAttr(), Value());
}

/// One main loop per combination of the sums plans active in this unit (a uniform branch per
/// warpgroup), so that a loop issues only the wgmmas it needs, with no branch between them;
/// `summing` says which of the first plans this branch sums.
SmallVector<Value> WgmmaKernelGenerator::emitMainLoopVariants(Emitter &e, const Context &c,
                                                              const UnitLoop &u,
                                                              TypeRange resultTypes,
                                                              SmallVector<bool> summing) const {
  if (summing.size() == u.sumsPlans.size())
    return emitUnitMainLoop(e, c, u, summing);
  OpBuilder &b = e.b;
  auto ifOp = scf::IfOp::create(b, e.loc, resultTypes, u.sumsPlans[summing.size()].active,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard branch(b);
  for (bool active : {true, false}) {
    b.setInsertionPointToStart(active ? ifOp.thenBlock() : ifOp.elseBlock());
    SmallVector<bool> next(summing);
    next.push_back(active);
    scf::YieldOp::create(b, e.loc, emitMainLoopVariants(e, c, u, resultTypes, next));
  }
  return ifOp.getResults();
}

/// After the unit's main loop (`loopResults`: the stage counter, the accumulators, the sums'
/// fragments): releases its last stage, combines the operand sums, and emits the unit's epilog
/// (through the workspace under split-K and stream-K) before the unit loop's yield.
void WgmmaKernelGenerator::emitUnitEpilog(Emitter &e, const Context &c, MatmulOp op,
                                          const IRMapping &operands, const UnitLoop &u,
                                          ArrayRef<Value> loopResults) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  bool pingpong = config.getMainloop().getPingpong();
  int64_t slices = slicesPerConsumer();
  const WorkUnit &unit = u.unit;
  ArrayRef<SumsPlan> sumsPlans = u.sumsPlans;
  Value consumer = u.consumer, localThread = u.localThread;
  auto release = [&](Value it) {
    c.pipeline->emitRelease(e, it, u.localThread, u.isLeader);
  };
  Value itEnd = loopResults[0];
  SmallVector<Value> accs(ArrayRef<Value>(loopResults).slice(1, slices));
  ArrayRef<Value> carriedSums = ArrayRef<Value>(loopResults).drop_front(1 + slices);
  // Stores the operand sums of the tiles that take them, from the (total) per-thread partials.
  auto storeSums = [&](ArrayRef<Value> partials) {
    size_t offset = 0;
    for (const SumsPlan &p : sumsPlans) {
      ArrayRef<Value> mine = partials.slice(offset, p.tile.values());
      offset += p.tile.values();
      auto ifOp = scf::IfOp::create(b, loc, p.active, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard then(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      p.tile.emitStore(e, localThread, ValueRange(mine), p.sums, p.firstRow, p.limit);
    }
  };
  // Grouped along K: an empty group's unit took no stage.
  if (unit.kStart) {
    auto took = scf::IfOp::create(b, loc, e.ult(unit.kBegin, unit.kEnd), /*withElseRegion=*/false);
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(took.thenBlock());
    release(e.sub(itEnd, e.i32(1)));
  } else {
    release(e.sub(itEnd, e.i32(1)));
  }
  SmallVector<Value> sumPartials;
  size_t sumsOffset = 0;
  for (const SumsPlan &p : sumsPlans) {
    llvm::append_range(sumPartials,
                       p.tile.emitCombine(e, carriedSums.slice(sumsOffset, p.tile.carried())));
    sumsOffset += p.tile.carried();
  }
  // Ping-pong: the block's next unit is the other consumer's; this one's next starts a unit on.
  Value nextIt = pingpong ? e.add(itEnd, u.otherSteps) : itEnd;
  // The unit loop's yield first: the epilog goes before it.
  b.setInsertionPoint(scf::YieldOp::create(b, loc, nextIt));

  // A cluster's tile below or right of D (its pair's second) has nothing to store (nor, in
  // stream-K, to reduce: the other walker of a shared unit skips it too).
  std::optional<OpBuilder::InsertionGuard> insideGuard;
  if (cluster() > 1) {
    insideGuard.emplace(b);
    auto inside = scf::IfOp::create(b, loc, unit.inside, /*withElseRegion=*/false);
    b.setInsertionPointToStart(inside.thenBlock());
  }
  if (config.getScheduler().isDataParallel()) { // ping-pong kernels are never split
    storeSums(sumPartials);
    // A cooperative consumer c computes slices [c * slices, (c + 1) * slices), a ping-pong one
    // all of them.
    Value first = pingpong ? e.i32(0) : e.mul(consumer, e.i32(slices));
    for (int64_t s = 0; s < slices; ++s) {
      Value slice = e.add(first, e.i32(s));
      OpBuilder::InsertionGuard sliceGuard(b);
      if (Value hasRows = emitSliceHasRows(e, unit, slice)) // grouped: see GroupedSlices.cpp
        b.setInsertionPointToStart(
            scf::IfOp::create(b, loc, hasRows, /*withElseRegion=*/false).thenBlock());
      emitEpilog(e, c, op, operands, accs[s], unit, slice);
    }
  } else {
    emitReducedEpilog(e, c, op, operands, accs[0], unit, sumPartials, consumer, storeSums);
  }
}

void WgmmaKernelGenerator::emitEpilog(Emitter &e, const Context &c, MatmulOp op,
                                      const IRMapping &operands, Value acc,
                                      const WorkUnit &unit, Value slice) const {
  // Batched: the epilog addresses the unit's batch element through views of its operands;
  // grouped: its group's epilog inputs.
  IRMapping batchViews;
  if (unit.batch)
    batchViews = emitBatchViews(e.b, e.loc, op, operands, unit.batch);
  else if (unit.group)
    batchViews = emitGroupViews(e.b, e.loc, op, operands, unit.group);
  const IRMapping &views = unit.batch || unit.group ? batchViews : operands;
  if (config.getSwapped() && config.getEpilogue().getStore() != DStore::Tma)
    return emitTransposedEpilog(e, op, views, c.m, c.n, config.getTileM(), config.getTileN(),
                                acc, unit.tileRow, unit.tileCol, c.tid, c.consumer);
  WgmmaEpilogFrame frame;
  static_cast<TileGrid &>(frame) = tileGrid(op);
  frame.store = config.getEpilogue().getStore();
  frame.dMap = c.mapD;
  frame.mirrorMaps = c.mirrorMaps;
  if (unit.batch && c.mapD) {
    Value d = operands.lookup(op.getD());
    frame.dBatch = emitTmaBatchCoordinates(e.b, e.loc, d, d, unit.batch);
  }
  frame.staging = c.layout.staging;
  frame.stagingBytes = c.spec.stagingBytes();
  frame.tmaStoreBuffers = c.spec.tmaStoreBuffers();
  if (frame.store == DStore::Tma && c.spec.streamsD())
    frame.dStorePolicy = emitEvictFirstPolicy(e);
  frame.scratch = c.layout.scratch;
  frame.reductions = c.reductions;
  frame.base = c.base;
  frame.workspace = c.workspace;
  frame.tid = c.tid;
  frame.consumer = c.consumer;
  frame.firstRow = unit.groupRow;
  frame.rowEnd = unit.rowEnd;
  if (config.getSwapped())
    return emitTransposedTmaStores(e, op, views, frame, acc, unit.tileRow, unit.tileCol,
                                   c.spec.dStoreBoxRows());
  emitWgmmaEpilog(e, op, views, frame, acc, unit.tileRow, unit.tileCol, slice);
}
} // namespace mlir::mepi::wgmma

std::unique_ptr<KernelGenerator>
mlir::mepi::createWgmmaKernelGenerator(KernelConfigAttr config, const TargetInfo &target) {
  return std::make_unique<wgmma::WgmmaKernelGenerator>(config, target);
}
