// The heuristic's rule for how D leaves a chosen 64-row tile (KernelRules.h): through TMA.
#include "KernelRules.h"
#include "RankCandidates.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {

/// A 64-row tile of one consumer in whole units (no splits, stream-K, ping-pong, cluster or
/// swapped form) that stages D in shared memory stores it through TMA instead, over any K:
/// TMA takes the stores off the consumer's path. Applied to the chosen configuration, the
/// rules' or the cost model's, so that the model still chooses the tile (taking TMA stores into
/// the rules' choice itself made the model keep 64 x 128 where it had taken 64 x 256
/// ping-pong: 0.92-0.98x on four such problems). Measured on the H200 (2026-12-01, interleaved,
/// each launch on the next input set, bf16 and fp16 D): over the 46 unseen problem-epilogs
/// (seeds 20261501-04) whose store alone changes, 1.034x in geomean, none under 0.998x (most
/// for GELU_BIAS: 128 x 56832 x 448 0.95 -> 1.17 of cuBLASLt); the sweeps' and the dense set's
/// 35, 1.022x, none under 1.0x; unseen seeds 20261601-06, 57 of them, 1.030x, none under 0.997x.
/// So only where that was measured: a 16-bit D, tiles of 128 to 256 columns of whole lines
/// (128 and 256; 192 on 64 x 43328 x 2048 only, 1.011x / 1.019x), no operand sums. `chosen`
/// where that does not apply or run.
KernelConfigAttr oneConsumerTmaStores(MatmulOp op, const TargetInfo &target,
                                      KernelConfigAttr chosen) {
  constexpr int64_t kMinColumns = 128, kDBits = 16;
  if (!plainCooperative(chosen) || chosen.getTileM() != sm90::kSliceRows ||
      !chosen.getScheduler().isDataParallel() ||
      chosen.getEpilogue().getStore() != DStore::Staged || chosen.getTileN() < kMinColumns ||
      chosen.getTileN() % tmaStoreLineColumns(op) != 0 ||
      op.getD().getType().getElementTypeBitWidth() != kDBits || op.getASums() || op.getBSums())
    return chosen;
  Sm90Problem p = Sm90Problem::of(op);
  KernelConfigAttr stored = withTmaStores(op, p, target, chosen);
  return stored && buildable(p, target, stored) ? stored : chosen;
}

} // namespace mlir::mepi::rules
