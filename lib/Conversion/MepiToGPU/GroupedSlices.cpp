// Grouped kernels: the 64-row slices of a tile that lie wholly past its group's end. A group's
// last tile holds on average half a tile of the next group's rows (or of none), which the
// kernel must not store; a slice with none of its own rows needs neither wgmmas nor an epilog.
#include "WgmmaKernelGenerator.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {

/// Whether `slice` (i32, of the tile's slices) of `unit` has rows of its group (i1); null where
/// every slice has (not grouped by rows).
Value WgmmaKernelGenerator::emitSliceHasRows(Emitter &e, const WorkUnit &unit,
                                             Value slice) const {
  if (!unit.rowEnd)
    return {};
  Value first = e.add(unit.firstRow(e, config.getTileM()), e.mul(slice, e.i32(sm90::kSliceRows)));
  return e.ult(first, unit.rowEnd);
}

/// Whether this cooperative consumer's slices all lie past the group's end (i1, uniform over
/// the warpgroup); null where a consumer always has work: not grouped by rows, one consumer or
/// ping-pong (a consumer then holds the tile's first row, which is its group's), split units
/// (each consumer adds its partials to a shared reduction), or groups along K (the stage masks
/// meet both consumers at a barrier).
Value WgmmaKernelGenerator::emitIdleConsumer(Emitter &e, const Context &c,
                                             const UnitLoop &u) const {
  if (!u.unit.rowEnd || consumers() == 1 || c.kGroupMask || !u.sumsPlans.empty() ||
      config.getMainloop().getPingpong() || !config.getScheduler().isDataParallel())
    return {};
  Value hasRows = emitSliceHasRows(e, u.unit, e.mul(u.consumer, e.i32(slicesPerConsumer())));
  return e.xorI(hasRows, arith::ConstantIntOp::create(e.b, e.loc, 1, 1));
}

/// An idle consumer's part in the stage ring over the unit's k-steps: the stages are released
/// as the main loop would (stage k after k + 1 has landed; the last in emitUnitEpilog), by the
/// leader alone, which waits for each. Then the warpgroup meets: the other threads wait for no
/// stage here, and without that barrier they could run ahead to a next unit's stage two phases
/// ahead of its barrier, whose parity would then pass at once. Returns the stage counter and
/// undefined accumulators (no epilog reads them: emitSliceHasRows is false for every slice).
SmallVector<Value> WgmmaKernelGenerator::emitIdleKSteps(Emitter &e, const Context &c,
                                                        const UnitLoop &u,
                                                        TypeRange resultTypes) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto loop = scf::ForOp::create(b, loc, u.unit.kBegin, u.unit.kEnd, e.i32(1),
                                 ValueRange{u.loopInit[0]});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(loop.getBody());
    Value it = loop.getRegionIterArg(0), k = loop.getInductionVar();
    auto leader = scf::IfOp::create(b, loc, u.isLeader, /*withElseRegion=*/false);
    b.setInsertionPointToStart(leader.thenBlock());
    c.pipeline->emitWait(e, c.pipeline->emitSlot(e, it));
    auto notFirst = scf::IfOp::create(b, loc, e.ult(u.unit.kBegin, k), /*withElseRegion=*/false);
    b.setInsertionPointToStart(notFirst.thenBlock());
    c.pipeline->emitRelease(e, e.sub(it, e.i32(1)), u.isLeader);
    b.setInsertionPointAfter(leader);
    scf::YieldOp::create(b, loc, ValueRange{e.add(it, e.i32(1))});
  }
  emitConsumerBarrier(e, u.consumer);
  SmallVector<Value> results = {loop.getResult(0)};
  for (Type type : resultTypes.drop_front())
    results.push_back(LLVM::UndefOp::create(b, loc, type));
  return results;
}

/// The consumer's main loop over a unit: emitMainLoopVariants, or, for a consumer that may be
/// idle (emitIdleConsumer), that or emitIdleKSteps by a uniform branch.
SmallVector<Value> WgmmaKernelGenerator::emitConsumerMainLoop(Emitter &e, const Context &c,
                                                              const UnitLoop &u,
                                                              TypeRange resultTypes) const {
  Value idle = emitIdleConsumer(e, c, u);
  if (!idle)
    return emitMainLoopVariants(e, c, u, resultTypes, {});
  OpBuilder &b = e.b;
  auto ifOp = scf::IfOp::create(b, e.loc, resultTypes, idle, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard branch(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, e.loc, emitIdleKSteps(e, c, u, resultTypes));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, e.loc, emitMainLoopVariants(e, c, u, resultTypes, {}));
  return ifOp.getResults();
}

} // namespace mlir::mepi::wgmma
