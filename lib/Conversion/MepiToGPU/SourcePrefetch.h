// The epilog's source C taken into L2 ahead of the epilog (`prefetch_source`): the producer's
// issuing thread prefetches the rows of C under a work unit's tile during the unit's last
// k-steps, so that the epilog's loads of C hit L2 instead of waiting for DRAM.
#ifndef MEPI_CONVERSION_MEPITOGPU_SOURCEPREFETCH_H
#define MEPI_CONVERSION_MEPITOGPU_SOURCEPREFETCH_H

#include "Emitter.h"
#include "mepi/IR/MepiOps.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::mepi::wgmma {

class SourcePrefetch {
public:
  /// The unit's last k-steps that prefetch, each a 1 / kSteps share of the tile's rows. With
  /// the stage ring's lead, the first rows are asked for (stages + kSteps - 1) k-steps before
  /// the epilog reads them: ahead of DRAM's latency, yet late enough that the operands streamed
  /// through L2 in between do not evict them.
  static constexpr int64_t kSteps = 4;

  /// C of `op` (Sm90Problem::prefetchesSource) in a D of m x n, tiles of tileM x tileN.
  SourcePrefetch(Emitter &e, MatmulOp op, const IRMapping &operands, int64_t m, int64_t n,
                 int64_t tileM, int64_t tileN);

  /// At k-step `k` (i32) of a unit of k-steps [kBegin, kEnd) whose tile starts at D's (row,
  /// col): the rows of C due then. One bulk prefetch per row, of the tile's columns inside D
  /// in whole 16-byte pieces (a row's last few bytes are left to the epilog).
  void emit(Emitter &e, Value k, Value kBegin, Value kEnd, Value row, Value col) const;

private:
  Value base; // C's first element (global pointer)
  int64_t pitchBytes = 0, elementBytes = 0;
  int64_t m = 0, n = 0, tileM = 0, tileN = 0;
};

} // namespace mlir::mepi::wgmma

#endif // MEPI_CONVERSION_MEPITOGPU_SOURCEPREFETCH_H
