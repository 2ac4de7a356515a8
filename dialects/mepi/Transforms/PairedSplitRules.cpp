// The heuristic's rule for split-K over a B that L2 cannot hold (KernelRules.h): the tile rows
// pair up in clusters of 2 that share B's tile by multicast, so that each pair reads B from L2
// (and DRAM) once, not twice; an odd count of rows pairs in the swapped form, whose height
// fits D's rows to an even count.
#include "KernelRules.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {

namespace {
/// An odd count of tile rows (at least 3) cannot pair; the swapped form can fit its height to
/// an even count and pair those (B's tile multicast along M), as cuBLASLt runs 320 x 384 x
/// 55168 (80 x 128 in clusters of 2, 11 splits): two consumers of 64 columns, TMA stores, the
/// splits refitted to the wave, the height (64-192 rows; taller serializes the wgmmas) whose
/// waves fall most inside D, the tallest of equal shares. Taken only where that share is at
/// least the chosen split's. Measured on the H200 (bf16, A B B A against the chosen split;
/// bench/NOTES.md, Split-K): where the share fell the swapped pairs lost (0.81-0.96x on 10 of
/// 34 problems, seed 20261211), where it held they won 1.0-1.45x; on an unseen sample (seed
/// 20261213) the 18 problems it changed ran 1.084x in geomean, 13 faster, the lowest 0.877
/// (384 x 768 x 18560: 26 k-steps a unit). `config` where none applies or runs.
KernelConfigAttr swappedPairs(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                              KernelConfigAttr config) {
  constexpr int64_t kColumns = 128, kHeightStep = 16, kMinHeight = 64, kMaxHeight = 192;
  if (llvm::divideCeil(p.m, config.getTileM()) < 3 || !canSwap(op, /*tmaLoads=*/true) ||
      p.mnMajorB || !canUseTmaStores(op, /*tmaLoads=*/true, kColumns))
    return config;
  double chosenShare = predictedShare(p, target, config), bestShare = 0;
  KernelConfigAttr best;
  for (int64_t rows = 2;; rows += 2) {
    int64_t height = llvm::alignTo(llvm::divideCeil(p.m, rows), kHeightStep);
    if (height < kMinHeight)
      break;
    int64_t tiles = rows * llvm::divideCeil(p.n, kColumns);
    int64_t splits = waveSplits(p, target, tiles);
    double share = waveShare(p, target, height, kColumns, splits);
    if (height > kMaxHeight || int64_t(llvm::divideCeil(p.m, height)) != rows || splits < 2 ||
        share < chosenShare || share <= bestShare)
      continue;
    KernelConfigAttr swapped = swappedTile(op, height, kColumns).withStore(DStore::Tma);
    swapped = withFittingStages(p, target, swapped.withSplits(splits).withCluster(2));
    if (swapped && Sm90Spec(p, swapped, target).canImplement()) {
      best = swapped;
      bestShare = share;
    }
  }
  return best ? best : config;
}
} // namespace

/// Measured on the H200 (bf16, interleaved A B B A, the same splits with and without the
/// pairs; bench/NOTES.md, Split-K): on the rule's data (seed 20261202) 19 problems 1.087x in
/// geomean, none under 0.98; on an unseen sample (seed 20261203) 73 problems 1.082x, 64-row
/// tiles 1.090x (44, none under 0.985: 128 x 384 x 58304 0.57 -> 0.76 of cuBLASLt), 128-row
/// tiles 1.068x (29, five at 0.95-0.97). Below half of L2, B tiles narrower than 128 columns
/// and an odd tile row count lost 5-30 %.
KernelConfigAttr pairedSplits(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                              KernelConfigAttr config) {
  if (!plainCooperative(config) || config.getScheduler().getSplits() < 2 ||
      !config.getMainloop().getTma() || p.batch != 1 || p.grouped() || p.kGroups > 0 ||
      target.l2Bytes <= 0)
    return config;
  // An even count of tile rows: a pair's block below D would take a multiprocessor for
  // nothing, and the splits would have to shrink for it. B's tile at least 128 columns: with
  // narrower tiles B is a third or half of a stage's bytes, less than the lockstep costs.
  int64_t rows = llvm::divideCeil(p.m, config.getTileM());
  if (config.getTileN() < 128 || p.n * p.k * p.elementBytes < target.l2Bytes / 2)
    return config;
  if (rows % 2 != 0)
    return swappedPairs(op, p, target, config);
  KernelConfigAttr paired = withFittingStages(p, target, config.withCluster(2));
  return paired && Sm90Spec(p, paired, target).canImplement() ? paired : config;
}

} // namespace mlir::mepi::rules
