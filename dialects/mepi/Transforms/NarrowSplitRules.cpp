// The heuristic's rule for split-K of narrow tiles (KernelRules.h): the splits that fill the
// machine, D stored from the registers.
#include "KernelRules.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {

/// Split-K of 64 x 64 or 64 x 32 tiles takes as many splits as the multiprocessors hold (up
/// to 32, each of at least 8 k-steps) where that is more than the chosen, and stores D from the
/// registers. Such a tile's record is 8 or 16 KiB, so the last arrival sums even 21 of them in
/// a few microseconds, while each split's main loop shortens with the splits; the cost model,
/// fitted on 2, 4 and 8 splits, took 8 where 11-22 fill the machine. Measured on the H200
/// (2026-12-01, bf16 and fp16 as the sweeps draw them): in single passes of sweeps 20261201
/// and 20261123 (the first 222 and 209 problems; each kernel alone on rotated inputs, against
/// the runs of 0447ee9 / ff53e0d) the 35 problem-epilogs whose splits it raises ran 1.030x in
/// geomean, 0.964-1.261x: 64 x 192 x 41408 GELU_BIAS in 22 splits 0.78 -> 0.99 of cuBLASLt,
/// 64 x 320 x 51456 GELU_BIAS in 13 0.82 -> 0.98. The interleaved forced forms and A/B it came
/// from (`split-fill-forms.log`: 1.14-1.49x; `split-fill-ab.log`: 1.141x, 1.176x unseen) timed
/// the new form on inputs the old one had just brought into L2 (mepi-bench's --against before
/// 059ef38): they overstate it. Storing D from the registers at the chosen splits ran 1.005x
/// over 7 in the sweeps (`split-reg-ab.log`'s A/B said 1.12-1.34x on batched 64 x 64), so that
/// alone changes nothing. Unbatched only (batches not measured fairly), not with reductions
/// (not measured). `chosen` where that does not apply or run.
KernelConfigAttr narrowSplitFill(MatmulOp op, const TargetInfo &target, bool tma,
                                 KernelConfigAttr chosen) {
  constexpr int64_t kMinStepsPerSplit = 8, kMaxSplits = 32, kStages = 8;
  Sm90Problem p = Sm90Problem::of(op);
  if (!plainCooperative(chosen) || p.batch != 1 || chosen.getScheduler().getSplits() < 2 ||
      chosen.getTileM() != sm90::kSliceRows || chosen.getTileN() > 64 || op.getASums() ||
      op.getBSums() || !op.getReductions().empty())
    return chosen;
  int64_t tiles = tileCount(p, chosen.getTileM(), chosen.getTileN());
  if (tiles == 0) // an empty D
    return chosen;
  int64_t kSteps = llvm::divideCeil(p.k, p.atom().lineElements());
  int64_t splits = std::min({target.multiprocessors / tiles, kSteps / kMinStepsPerSplit,
                             kMaxSplits});
  if (splits <= chosen.getScheduler().getSplits())
    return chosen;
  KernelConfigAttr filled =
      wgmmaTile(op, p, chosen.getTileM(), chosen.getTileN(), tma, kStages).withSplits(splits);
  filled = withFittingStages(p, target, filled);
  return buildable(p, target, filled) ? filled : chosen;
}

} // namespace mlir::mepi::rules
