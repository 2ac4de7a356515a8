// Where the wgmma family's epilog works (WgmmaEpilog.h), fixed per kernel, and the primitives
// that its walk and its nodes (EpilogueNodes.h, WgmmaRegisterEpilog.h) share: D's global base,
// the L2 policy of D's stores, the consumer's named barrier and the turns of its TMA store
// buffers. Below both the walk and the nodes, so that neither includes the other's definitions
// to reach these.
#ifndef MEPI_CONVERSION_MEPITOGPU_WGMMAEPILOGFRAME_H
#define MEPI_CONVERSION_MEPITOGPU_WGMMAEPILOGFRAME_H

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

/// Whether epilog input `i` is a vector of one value per row that the epilogs load once per
/// slice at the thread's rows: a row input [M] or a cyclic row input ([P], row r reading
/// r mod P). (A batched row input is read per element.)
bool isRowVectorInput(MatmulOp op, unsigned i);

/// Row vector input `input` (epilog input `i`) at D's row `row` (i32). Rows at or past the
/// frame's row limit read element 0 (valid memory); their elements are never stored.
Value emitRowVectorLoad(Emitter &e, const WgmmaEpilogFrame &f, MatmulOp op, unsigned i,
                        Value input, Value row);

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

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_WGMMAEPILOGFRAME_H
