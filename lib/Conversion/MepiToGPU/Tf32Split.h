// Strict f32 on the tensor cores inside the kernel (3xTF32): a TF32 wgmma keeps 10 of an
// f32's 23 mantissa bits, so each element x of a stage is written as hi + lo, hi = x rounded
// to TF32 (to nearest, ties away from zero: cvt.rna.tf32.f32), lo = (x - hi) rounded the same
// way, and a b ~ a_lo b_hi + a_hi b_lo + a_hi b_hi (the dropped a_lo b_lo and lo's rounding are
// <= 2^-22 |a b|): each product as exact as an f32 product. This is the runtime's pre-pass
// (SplitOperand.h) done on the stage: no copies of A and B through global memory, which is
// what short-M problems spend their time on (the pre-pass reads B once and writes it three
// times, then the GEMM reads it again).
//
// The consumer (one warpgroup: a second would read the stage half rounded) rounds the stage's
// A and B tiles in place to hi and writes lo into one of two buffers of a stage's size
// (`it` % 2: the wgmmas of k-step it - 2, which read the other use of that buffer, are done
// once k-step it - 1 has waited for all groups but its own), then makes the writes visible to
// the tensor cores and meets at its barrier. An element keeps its place: the lo buffer has the
// stage's layout (its 128-byte swizzle too), so its descriptors are the stage's plus the
// distance between them. Infinities and NaNs pass in hi with lo = 0.
#ifndef MEPI_CONVERSION_MEPITOGPU_TF32SPLIT_H
#define MEPI_CONVERSION_MEPITOGPU_TF32SPLIT_H

#include "Emitter.h"

namespace mlir::mepi {

struct Tf32Split {
  int64_t stageBytes; // A tile | B tile, f32
  int64_t loOffset;   // the two lo buffers in the block's shared memory (Sm90SharedLayout)
  int64_t threads;    // the consumer's

  /// Splits the stage at byte offset `stage` (i32) of the block's base `base` (ptr<3>) for
  /// k-step `it`: thread `thread` (< threads) its share of 16-byte chunks, then the fence and
  /// named barrier `barrier` of `threads`. Returns the byte offset of the k-step's lo buffer
  /// from the base (i32).
  Value emit(Emitter &e, Value base, Value stage, Value it, Value thread, Value barrier) const;

private:
  /// hi and lo of one f32 `x` (see above).
  std::pair<Value, Value> emitSplit(Emitter &e, Value x) const;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_TF32SPLIT_H
