// Block scales in the promoted main loop (MepiOps.td: block_scales): each k-step of 128
// elements of K is one scale block; before its wgmmas a consumer thread loads the factors of
// the rows it holds (of a_block_scales) and of its tile's 128 columns (of b_block_scales), and
// the promotion adds the step's sums times their product into the f32 accumulators.
#ifndef MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H
#define MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H

#include "Emitter.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::mepi {

class BlockScaleFactors {
public:
  /// For a consumer thread (`thread`: its index in the warpgroup, i32) whose `slices` 64-row
  /// slices start at row `firstRow` (i32) of D, in the tile of columns from `firstCol` (i32);
  /// `aScales`, `bScales` the kernel's memrefs, `m` D's rows.
  BlockScaleFactors(Emitter &e, Value aScales, Value bScales, int64_t m, Value firstRow,
                    int64_t slices, Value firstCol, Value thread);
  /// Loads the scales of block `k` (i32: the k-step): sb[col / 128, k], then sa[row, k] for
  /// each slice's two rows. Loaded a k-step ahead of their use, so that their latency hides
  /// behind a k-step's wgmmas (the main loop carries them).
  SmallVector<Value> emitLoads(Emitter &e, Value k) const;
  /// The factors of loaded scales: sa[row, k] * sb[col / 128, k] for slice s, row half h at
  /// 2 s + h (WgmmaFragment.h).
  static SmallVector<Value> emitFactors(Emitter &e, ArrayRef<Value> loaded);

private:
  Value aScales, bScales;
  SmallVector<Value> rows; // index: each slice's two rows, clamped into D
  Value columnBlock;       // index
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H
