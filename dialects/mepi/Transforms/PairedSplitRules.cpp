// The heuristic's rule for split-K over a B that L2 cannot hold (KernelRules.h): the tile rows
// pair up in clusters of 2 that share B's tile by multicast, so that each pair reads B from L2
// (and DRAM) once, not twice.
#include "KernelRules.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {

/// Measured on the H200 (bf16, interleaved A B B A, the same splits with and without the
/// pairs; bench/NOTES.md, Split-K): on the rule's data (seed 20261202) 19 problems 1.087x in
/// geomean, none under 0.98; on an unseen sample (seed 20261203) 73 problems 1.082x, 64-row
/// tiles 1.090x (44, none under 0.985: 128 x 384 x 58304 0.57 -> 0.76 of cuBLASLt), 128-row
/// tiles 1.068x (29, five at 0.95-0.97). Below half of L2, B tiles narrower than 128 columns
/// and an odd tile row count lost 5-30 %.
KernelConfigAttr pairedSplits(const Sm90Problem &p, const TargetInfo &target,
                              KernelConfigAttr config) {
  if (!config || config.getScheduler().getSplits() < 2 || config.getSwapped() ||
      config.getMainloop().getCluster() > 1 || config.getMainloop().getPingpong() ||
      !config.getMainloop().getTma() || p.batch != 1 || p.grouped() || p.kGroups > 0 ||
      target.l2Bytes <= 0)
    return config;
  // An even count of tile rows: a pair's block below D would take a multiprocessor for
  // nothing, and the splits would have to shrink for it. B's tile at least 128 columns: with
  // narrower tiles B is a third or half of a stage's bytes, less than the lockstep costs.
  int64_t rows = llvm::divideCeil(p.m, config.getTileM());
  if (rows % 2 != 0 || config.getTileN() < 128 || p.n * p.k * p.elementBytes < target.l2Bytes / 2)
    return config;
  KernelConfigAttr paired = withFittingStages(p, target, config.withCluster(2));
  return paired && Sm90Spec(p, paired, target).canImplement() ? paired : config;
}

} // namespace mlir::mepi::rules
