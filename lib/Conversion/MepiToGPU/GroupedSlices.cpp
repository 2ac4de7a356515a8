// Grouped kernels: the 64-row slices of a tile that lie wholly past its group's end, and the
// tiles of at most one slice of their group's rows, halved between the consumers. A group's
// last tile holds on average half a tile of the next group's rows (or of none), which the
// kernel must not store; a slice with none of its own rows skips its epilog. Its wgmmas still
// run: a consumer that skipped them (bfcd2fa) finished such tiles early, which drew the blocks'
// statically assigned units out of step and cost L2 reuse (Mixtral up read 5.1 GB from DRAM
// instead of 3.3, bench/NOTES.md), more than the skipped wgmmas saved.
#include "WgmmaKernelGenerator.h"

#include <cstdlib>

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

/// Whether the unit's tile has at most a slice of its group's rows (i1), where the kernel
/// halves such tiles between its consumers (Sm90Spec::halvesGroupTails); else null. Uniform
/// over the block: both consumers take the halved main loop, and each reads every stage.
Value WgmmaKernelGenerator::emitHalfTile(Emitter &e, const Context &c,
                                         const WorkUnit &unit) const {
  if (!c.spec.halvesGroupTails() || std::getenv("MEPI_EXP_NO_HALF_TILES")) // A/B toggle (WIP)
    return {};
  return e.ult(e.sub(unit.rowEnd, unit.groupRow), e.i32(kSliceRows + 1));
}

/// A halved tile's main loop: the consumer's wgmmas of tile_n / 2 columns over the first slice
/// (WgmmaMainloop::halved), half the tensor work of the slice it would compute otherwise, whose
/// rows lie past the group. Returns the stage counter and a whole slice's accumulators, the
/// consumer's half of them its values and the other half zeros: the epilog runs as for slice 0
/// and stores the consumer's half of the columns only (WgmmaEpilogFrame::halfTile). Each value
/// goes to its place through a select: where both halves took the loop's registers directly,
/// ptxas serialized the wgmmas of both main loops (C7511).
SmallVector<Value> WgmmaKernelGenerator::emitHalfTileMainLoop(Emitter &e, const Context &c,
                                                              const UnitLoop &u) const {
  OpBuilder &b = e.b;
  Type f32 = b.getF32Type();
  int64_t half = registers() / 2;
  auto halfType = LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(half, f32));
  WgmmaMainloop mainloop = u.mainloop.halved(halfType);
  // Opaque zeros (as constants, ptxas serialized the wgmmas here too).
  Value zero = emitAccumulatorFence(e, LLVM::ZeroOp::create(b, e.loc, halfType), half);
  SmallVector<Value> init = {u.loopInit[0], zero};
  UnitLoop h{u.unit,   u.sumsPlans,   init,      mainloop,         u.consumer,
             u.isLeader, u.localThread, u.f32Zero, u.onesDescriptor, u.hasNext};
  SmallVector<Value> results = emitUnitMainLoop(e, c, h, {});
  Value whole = LLVM::UndefOp::create(b, e.loc, u.loopInit[1].getType());
  for (int64_t i = 0; i < registers(); ++i) {
    Value mine = e.eq(u.consumer, e.i32(i / half));
    Value value = LLVM::ExtractValueOp::create(b, e.loc, results[1], i % half);
    whole = LLVM::InsertValueOp::create(b, e.loc, whole, e.select(mine, value, u.f32Zero), i);
  }
  return {results[0], whole};
}

SmallVector<Value> WgmmaKernelGenerator::emitConsumerMainLoop(Emitter &e, const Context &c,
                                                              const UnitLoop &u,
                                                              TypeRange resultTypes) const {
  if (!u.halfTile)
    return emitMainLoopVariants(e, c, u, resultTypes, {});
  OpBuilder &b = e.b;
  auto ifOp = scf::IfOp::create(b, e.loc, resultTypes, u.halfTile, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard branch(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, e.loc, emitHalfTileMainLoop(e, c, u));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, e.loc, emitMainLoopVariants(e, c, u, resultTypes, {}));
  return ifOp.getResults();
}

} // namespace mlir::mepi::wgmma
