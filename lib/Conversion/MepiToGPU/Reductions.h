// Declared reductions of a mepi.matmul across thread blocks: partial results in the workspace,
// one arrival counter per group, and the last block to arrive combining them in a fixed order.
//
// Every kernel family covers D with tiles; inside a tile a family combines the yielded values
// its own way (shared memory, shuffles). What is common is completing a reduction across
// tiles without any block waiting for another:
//   - a row reduction has one group per (batch, tile row, row slice) of `width` rows, whose
//     contributors are the tile columns; a column reduction one group per (batch, tile column)
//     of width tile_n, whose contributors are the (tile row, row slice) pairs; a scalar
//     reduction one group of width 1 that every (batch, tile, row slice) contributes to;
//   - a contributor stores its partials, makes them visible GPU-wide (membar.gl) and counts
//     itself in with one device-scope atomic; the one that arrives last combines the partials
//     of all contributors in contributor order (the bits do not depend on who came last),
//     converts and stores the result, and resets the counter to zero for the next launch.
#ifndef MEPI_CONVERSION_MEPITOGPU_REDUCTIONS_H
#define MEPI_CONVERSION_MEPITOGPU_REDUCTIONS_H

#include "Emitter.h"
#include "mepi/IR/MepiOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::mepi {

/// How a kernel family's grid covers D: tiles of tile_m x tile_n, each split into `slices`
/// row slices of tile_m / slices rows that contribute separately (wgmma's consumer warpgroups).
struct TileGrid {
  int64_t batch = 1, m = 0, n = 0, tileM = 0, tileN = 0, slices = 1;
  int64_t tilesM() const { return (m + tileM - 1) / tileM; }
  int64_t tilesN() const { return (n + tileN - 1) / tileN; }
  int64_t sliceRows() const { return tileM / slices; }
};

/// Where one reduction keeps its counters and partials in the workspace (byte offsets).
struct ReductionLayout {
  BroadcastKind kind = BroadcastKind::Row;
  Combiner combiner = Combiner::Add;
  int64_t groups = 0, contributors = 0, width = 0;
  int64_t counterOffset = 0; ///< groups x i32
  int64_t partialOffset = 0; ///< groups x contributors x width f32
};

/// Lays out `op`'s reductions in the workspace from byte `offset` on (256-byte aligned
/// regions); `end` receives the first byte after them.
SmallVector<ReductionLayout> planReductions(MatmulOp op, const TileGrid &grid, int64_t offset,
                                            int64_t &end);

/// The combiner's identity (0 for add, -inf for max) and its application.
Value emitReductionIdentity(Emitter &e, Combiner combiner);
Value emitCombine(Emitter &e, Combiner combiner, Value x, Value y);

/// Address of partial `local` of `contributor` in `group` (i32 values; `workspace` is a global
/// pointer).
Value emitPartialAddress(Emitter &e, Value workspace, const ReductionLayout &layout, Value group,
                         Value contributor, Value local);

/// Counts one contributor of `group` in (one thread, after its block's partials are visible
/// GPU-wide) and returns whether it was the last; the last resets the counter.
Value emitArrival(Emitter &e, Value workspace, const ReductionLayout &layout, Value group);

/// The combination of partial `local` over all contributors of `group`, in contributor order.
Value emitCombinedPartials(Emitter &e, Value workspace, const ReductionLayout &layout,
                           Value group, Value local);

/// The values of one element that other threads combine, in this order: an i1 per bitmask aux
/// output (its bit), then an f32 per declared reduction.
SmallVector<Type> combinedValueTypes(MatmulOp op);
/// Those values among `values`, the results of emitEpilogValues / emitEpilogAndStore.
SmallVector<Value> pickCombinedValues(MatmulOp op, ArrayRef<Value> values);
/// Those values for an element outside D: zero bits and the reductions' identities.
SmallVector<Value> emitOutsideCombinedValues(Emitter &e, MatmulOp op);

/// Converts `value` to the element type of reduction `i` of `op` and stores it at `indices`.
void emitStoreReduction(Emitter &e, MatmulOp op, const IRMapping &operands, unsigned i,
                        Value value, ValueRange indices);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_REDUCTIONS_H
