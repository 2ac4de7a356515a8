// Strict f32 on the tensor cores inside the kernel (3xTF32): a TF32 wgmma keeps 10 of an
// f32's 23 mantissa bits, so each element x of a stage is written as hi + lo, hi = x rounded
// to TF32 (to nearest, ties away from zero: cvt.rna.tf32.f32), lo = (x - hi) rounded the same
// way, and a b ~ a_lo b_hi + a_hi b_lo + a_hi b_hi (the dropped a_lo b_lo and lo's rounding are
// <= 2^-22 |a b|): each product as exact as an f32 product. This is the runtime's pre-pass
// (SplitOperand.h) done on the stage: no copies of A and B through global memory, which is
// what short-M problems spend their time on (the pre-pass reads B once and writes it three
// times, then the GEMM reads it again).
//
// Three warps of the producer warpgroup (its issuing thread's warp loads the stages) split
// each stage once it has landed: they round its A and B tiles in place to hi and write lo into
// the stage's own low buffer, make the writes visible to the tensor cores and arrive on the
// stage's ready barrier (StagePipeline.h), on which the consumers wait before their wgmmas. So
// the split of later stages runs beside the consumers' wgmmas of earlier ones, and any number
// of consumers read a stage split once. A low buffer is free when its stage is: the producer
// refills stage s (and the splitters rewrite its low parts) only after the consumers released
// it. An element keeps its place: the low buffer has the stage's layout (its 128-byte swizzle
// too), so its descriptors are the stage's plus the distance between them. Infinities and
// NaNs pass in hi with lo = 0.
#ifndef MEPI_CONVERSION_MEPITOGPU_TF32SPLIT_H
#define MEPI_CONVERSION_MEPITOGPU_TF32SPLIT_H

#include "Emitter.h"

namespace mlir::mepi {

struct Tf32Split {
  /// The splitting threads: warps 1-3 of the producer warpgroup.
  static constexpr int64_t kThreads = 96;
  static constexpr int64_t kFirstThread = 32;

  int64_t stageBytes; // A tile | B tile, f32
  int64_t loOffset;   // the stages' low buffers in the block's shared memory (Sm90SharedLayout)

  /// The byte offset of stage `stage`'s (i32) low buffer from the block's base (i32).
  Value emitLowOffset(Emitter &e, Value stage) const;
  /// Splits stage `stage` (i32) of the block's base `base` (ptr<3>): thread `thread`
  /// (< kThreads) its share of 16-byte chunks.
  void emit(Emitter &e, Value base, Value stage, Value thread) const;

private:
  /// hi and lo of one f32 `x` (see above), for any x.
  std::pair<Value, Value> emitSplit(Emitter &e, Value x) const;
  /// A thread's chunks split at once.
  static constexpr int64_t kChunksAtOnce = 2;
  struct Parts {
    SmallVector<Value> hi, lo;
  };
  /// hi and lo of 4-vectors `chunks`, the common case (none near the largest finite f32, none
  /// infinite or NaN) in a few integer operations an element.
  Parts emitChunks(Emitter &e, ArrayRef<Value> chunks) const;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_TF32SPLIT_H
