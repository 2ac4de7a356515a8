// The heuristic's rule for split-K of narrow tiles (KernelRules.h): the splits that fill the
// machine, D stored from the registers.
#include "KernelRules.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {

/// Split-K of 64 x 64 or 64 x 32 tiles takes as many splits as the multiprocessors hold (up
/// to 32, each of at least 8 k-steps) and stores D from the registers. Such a tile's record is
/// 8 or 16 KiB, so the last arrival sums even 21 of them in a few microseconds, while each
/// split's main loop, bound by one multiprocessor's reads from L2, shortens with the splits;
/// the cost model, fitted on 2, 4 and 8 splits, took 8 where 11-22 fill the machine. Forced on
/// the sweeps' split-K losers (H200, 2026-12-01, `split-fill-forms.log`, bf16, interleaved):
/// 64 x 192 x 41408 GELU_BIAS 64 x 32 in 22 splits 1.49x the chosen 8 (0.78 of cuBLASLt),
/// 64 x 320 x 27456 in 13 1.39x, 256 x 192 x 15040 GELU_BIAS 64 x 64 in 11 1.19-1.22x (with
/// TMA stores in 8 before); 1024 x 192 x 8768 kept 2 splits of 64 x 64 and ran 1.13x as fast
/// storing D from the registers as through TMA (the last arrival's epilog). Against the
/// choices before (`split-fill-ab.log`, config_ab.py): the 62 problem-epilogs it changes in the
/// three sweeps 1.141x (lowest 0.992), 100 of unseen seeds 20261301-20 1.176x (lowest 0.953: 4
/// to 5 splits of 40 k-steps); those keeping their splits, D from the registers, 1.153x over
/// 28. Batched alike (the tiles of every element): with TMA stores against from the registers
/// (`split-reg-ab.log`, 115 split-K problem-epilogs of seeds 20261123/24, 20261201 and
/// 20261341-50) the batched 64 x 64 ones ran 1.12-1.34x from the registers, where tiles of
/// 128 rows moved 0.97-1.06x and swapped 48 x 128 0.97-1.19x. `chosen` where that does not
/// apply or run.
KernelConfigAttr narrowSplitFill(MatmulOp op, const TargetInfo &target, bool tma,
                                 KernelConfigAttr chosen) {
  constexpr int64_t kMinStepsPerSplit = 8, kMaxSplits = 32, kStages = 8;
  Sm90Problem p = Sm90Problem::of(op);
  if (!chosen || chosen.getSwapped() || chosen.getMainloop().getPingpong() ||
      chosen.getMainloop().getCluster() > 1 || chosen.getScheduler().getSplits() < 2 ||
      chosen.getTileM() != sm90::kSliceRows || chosen.getTileN() > 64 || op.getASums() ||
      op.getBSums())
    return chosen;
  int64_t tiles = p.batch * llvm::divideCeil(p.m, chosen.getTileM()) *
                  llvm::divideCeil(p.n, chosen.getTileN());
  int64_t kSteps = llvm::divideCeil(p.k, p.atom().lineElements());
  int64_t splits = std::min({target.multiprocessors / tiles, kSteps / kMinStepsPerSplit,
                             kMaxSplits});
  if (splits < chosen.getScheduler().getSplits())
    return chosen;
  KernelConfigAttr filled = KernelConfigAttr::get(op.getContext(), KernelStrategy::Wgmma,
                                                  chosen.getTileM(), chosen.getTileN(),
                                                  p.atom().lineElements(), kStages)
                                .withTma(tma)
                                .withSplits(splits);
  filled = filled ? withFittingStages(p, target, filled) : filled;
  return filled && Sm90Spec(p, filled, target).canImplement() ? filled : chosen;
}

} // namespace mlir::mepi::rules
