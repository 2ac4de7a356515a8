// Block scales in the promoted main loop (MepiOps.td: block_scales): each k-step of 128
// elements of K is one scale block; a k-step ahead of its promotion a consumer thread loads the
// scales of the rows it holds (of a_block_scales) and of its tile's blocks of 128 columns (of
// b_block_scales: one, or two where the tile's columns cross a block boundary, as 128 x 192
// tiles do), and the promotion adds the step's sums times their product into the f32
// accumulators. The loop carries the products, formed after the promotion that precedes their
// use: so the loads' first reader comes a k-step after them.
#ifndef MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H
#define MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H

#include "Emitter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::mepi {

class BlockScaleFactors {
public:
  /// For a consumer thread (`thread`: its index in the warpgroup, i32) whose `slices` 64-row
  /// slices start at row `firstRow` (i32) of D, in the tile of `tileN` columns from `firstCol`
  /// (i32); `aScales`, `bScales` the kernel's memrefs, D of `m` x `n`.
  BlockScaleFactors(Emitter &e, Value aScales, Value bScales, int64_t m, int64_t n,
                    Value firstRow, int64_t slices, Value firstCol, int64_t tileN, Value thread);
  /// Loads the scales of block `k` (i32: the k-step): B's of the tile's first block (and of
  /// the next one where the tile crosses into it), then A's of each slice's two rows. Loaded
  /// a k-step ahead of their use, so that their latency hides behind a k-step's wgmmas.
  SmallVector<Value> emitLoads(Emitter &e, Value k) const;

  /// The factors of one promotion, from the loaded scales.
  class Factors {
  public:
    /// The factor of accumulator register `r` of slice `s` (WgmmaFragment.h: its row half
    /// picks A's scale, its group of 8 columns B's).
    Value of(Emitter &e, int64_t s, int64_t r);
    /// The products, to carry through the main loop (fromCarried restores them).
    SmallVector<Value> carried() const;

  private:
    friend class BlockScaleFactors;
    SmallVector<Value> first, second; // A's scale times B's first / second block's, 2 s + h
    Value split; // i32: the tile's columns in its first block (two blocks only)
    llvm::DenseMap<int64_t, Value> picked;
  };
  Factors emitFactors(Emitter &e, ArrayRef<Value> loaded) const;
  /// Factors from their carried() values.
  Factors fromCarried(ArrayRef<Value> carried) const;

private:
  Value aScales, bScales;
  SmallVector<Value> rows;  // index: each slice's two rows, clamped into D
  Value columnBlock, nextBlock; // index: the tile's first block of columns, and the next
  Value split;              // i32: the tile's columns in its first block
  bool twoBlocks = false;   // the tile's columns may cross a block boundary
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H
