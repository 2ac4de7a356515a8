// Groups along K (torch._grouped_mm's 2-D x 2-D): TMA reads whole 128-byte lines of K, so the
// k-steps at a group's two ends also hold elements of the neighbouring groups. Before the
// wgmmas read such a stage, the consumers zero those elements in A's and B's tiles together:
// both operands, so that a neighbour's Inf or NaN never meets a zero.
#ifndef MEPI_CONVERSION_MEPITOGPU_KGROUPMASK_H
#define MEPI_CONVERSION_MEPITOGPU_KGROUPMASK_H

#include "Emitter.h"

namespace mlir::mepi {

struct KGroupMask {
  int64_t tileK;          // elements of K per k-step (one 128-byte line of 16-bit elements)
  int64_t aBytes, bBytes; // the stage's A tile, then its B tile
  bool mnMajorA, mnMajorB;
  /// The threads that read the stage and zero it together: every consumer's of a cooperative
  /// block, or one ping-pong consumer's.
  int64_t threads;

  /// For k-step `k` (i32) of a group of elements [kStart, kStop) of K: when the step holds
  /// elements outside them, thread `thread` (< threads) zeroes its share of those in the stage
  /// at `stage` (ptr<3>), then the threads make their writes visible to the tensor cores and
  /// meet at named barrier `barrier` (i32) before any of them reads the stage. Every one of the
  /// threads calls it for the same k-steps.
  void emit(Emitter &e, Value stage, Value k, Value kStart, Value kStop, Value thread,
            Value barrier) const;

private:
  /// The element of K (i32, within the k-step) of element `t` of 16-byte chunk `chunk` (i32)
  /// of a tile, which holds 128-byte lines with the 128-byte swizzle (WgmmaKernel.cpp).
  Value emitChunkK(Emitter &e, Value chunk, int64_t t, bool mnMajor) const;
  /// Zeroes the elements of chunk `chunk` of the stage outside [kStart, kStop).
  void emitChunk(Emitter &e, Value stage, Value chunk, Value first, Value kStart,
                 Value kStop) const;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_KGROUPMASK_H
