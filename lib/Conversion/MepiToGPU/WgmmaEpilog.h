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

#include "Emitter.h"
#include "Reductions.h"

namespace mlir::mepi {

/// The aligned address of memref `value` as a global pointer (for stores by address).
Value emitGlobalBase(Emitter &e, Value value);

/// L2's evict-first cache policy (`createpolicy`, all of an access's lines), the hint of D's
/// TMA stores where the kernel streams D through L2 (Sm90Spec::streamsD).
Value emitEvictFirstPolicy(Emitter &e);

/// Named barrier 1 + consumer: the 128 threads of consumer warpgroup `consumer` (0-based; named
/// barrier 0 is the block's).
void emitConsumerBarrier(Emitter &e, Value consumer);

/// Where the epilog works, fixed per kernel: the tile grid over D (each 64-row slice of a tile
/// a contributor, Reductions.h), then the epilog's resources.
struct WgmmaEpilogFrame : TileGrid {
  /// How D is written (the kernel configuration's `store`; registers and tma only for epilogs
  /// that write D only, WgmmaRegisterEpilog.h).
  DStore store = DStore::Staged;
  Value dMap;          ///< D's TMA descriptor (store = tma)
  SmallVector<Value> mirrorMaps; ///< store = tma: each mirror's descriptor (MatmulOp's mirrors)
  /// Batched, store = tma: the TMA coordinates of the unit's batch element of D, innermost
  /// first (after the column and the row).
  SmallVector<Value> dBatch;
  int64_t staging = 0; ///< shared byte offset of consumer 0's staging block
  int64_t stagingBytes = 0;   ///< one consumer's staging block (Sm90Spec::stagingBytes)
  int64_t tmaStoreBuffers = 0; ///< store = tma: its buffers (Sm90Spec::tmaStoreBuffers)
  Value dStorePolicy; ///< store = tma: L2's policy for D's lines (emitEvictFirstPolicy), or none
  int64_t scratch = 0; ///< shared byte offset of consumer 0's scratch area
  SmallVector<ReductionLayout> reductions;
  Value base;      ///< aligned dynamic shared memory (ptr<3>)
  Value workspace; ///< global pointer (reductions only)
  Value tid;       ///< thread index in the block (i32); consumers are warpgroups 1..C
  Value consumer;  ///< this thread's consumer (warpgroup - 1), uniform over its warpgroup
  /// Grouped, per work unit: the tile's first row and the end of its group's rows (i32), which
  /// bound the rows written instead of M. Null otherwise.
  Value firstRow, rowEnd;

  /// The rows below which the epilog writes D (i32).
  Value emitRowLimit(Emitter &e) const { return rowEnd ? rowEnd : e.i32(m); }
  /// Whether a tile may have rows past that limit.
  bool rowBounds() const { return rowEnd || m % tileM != 0; }
};

/// How a consumer's lines (swapped: chunks) of D take its `count` TMA store buffers in turn,
/// line l the buffer l % count: a buffer is overwritten only after the store that read it.
struct TmaBufferTurns {
  int64_t count;
  /// Line `line` of `lines` waits for its buffer's last store (and the consumer's barrier)
  /// before it is written: every line with one buffer; with two the first of an odd number,
  /// whose buffer held the previous slice's last line.
  bool waitsBefore(int64_t line, int64_t lines) const {
    return count == 1 || (line == 0 && lines % 2 != 0);
  }
  /// With two, before the barrier that ends a line, the store of the line before it has read
  /// its buffer, the one the next line overwrites.
  bool waitsAtEnd() const { return count > 1; }
};

/// Applies the epilog to the accumulators `acc` (an LLVM struct of tile_n / 2 f32 in the wgmma
/// fragment layout) of 64-row slice `slice` (i32) of tile (tileRow, tileCol), storing D and the
/// aux outputs and completing the reductions. The calling warpgroup's staging block, scratch
/// area and named barrier are its own, whichever slice it computes.
void emitWgmmaEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                     const WgmmaEpilogFrame &frame, Value acc, Value tileRow, Value tileCol,
                     Value slice);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_WGMMAEPILOG_H
