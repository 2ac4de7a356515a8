// The wgmma family's epilog: from the accumulator registers of one 64-row slice of a tile (64
// rows x tile_n columns of f32, held by one consumer warpgroup) to D, the aux outputs and the
// declared reductions.
//
// The accumulators go through shared memory kChunkColumns columns at a time (the staging
// block), so that a warp's epilog-input loads and D stores are consecutive addresses and the
// epilog region is emitted once. What threads must combine (bitmask bits, reduction values) goes
// through a per-consumer scratch area:
//   - a bitmask aux: one flag byte per element of the chunk; after the chunk, each thread packs
//     the 8 rows of a byte and stores it (cuBLASLt's mask layout);
//   - a row reduction: one f32 slot per (row, thread of the row), combined over the chunks, then
//     per row at the end of the tile;
//   - a column reduction: one slot per (row group of 4 threads' rows, column), combined per
//     chunk into the column's partial;
//   - a scalar reduction: one slot per thread, combined at the end of the tile.
// Every combination runs in a fixed order, then completes across tiles through Reductions.h with
// the 64-row slice as the contributor, so results do not depend on scheduling.
#ifndef MEPI_CONVERSION_MEPITOGPU_WGMMAEPILOG_H
#define MEPI_CONVERSION_MEPITOGPU_WGMMAEPILOG_H

#include "WgmmaEpilogFrame.h"

namespace mlir::mepi {

/// Applies the epilog to the accumulators `acc` (an LLVM struct of tile_n / 2 f32 in the wgmma
/// fragment layout) of 64-row slice `slice` (i32) of tile (tileRow, tileCol), storing D and the
/// aux outputs and completing the reductions. The calling warpgroup's staging block, scratch
/// area and named barrier are its own, whichever slice it computes.
void emitWgmmaEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                     const WgmmaEpilogFrame &frame, Value acc, Value tileRow, Value tileCol,
                     Value slice);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_WGMMAEPILOG_H
