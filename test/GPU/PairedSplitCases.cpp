// The GPU suite's cases of the paired split-K rule (PairedSplitRules.cpp): split-K over a B
// larger than half of L2 pairs its tile rows in clusters of 2 that share B's tile, chosen by
// the heuristic.
#include "GpuCases.h"

void gputest::addPairedSplitCases(std::vector<Case> &cases) {
  // 64 x 128 tiles over 128 rows (one pair a tile column), B 60 MB; residue columns and K.
  cases.push_back({ElementType::BF16, {128, 30008}, {1000, 30008}, {128, 1000}, false, true,
                   "GELU_BIAS"});
  // 64 x 128 over 100 rows (the pair's second tile mostly below D), B [K, N] of 54 MB.
  cases.push_back({ElementType::F16, {100, 19000}, {19000, 1432}, {100, 1432}, false, false,
                   "RELU_BIAS"});
  // Two consumers a block over 250 rows (the heuristic's 128 x 224 in 13 splits: the split-K
  // width fitted to the wave), B 53 MB; residue rows, columns and K.
  cases.push_back({ElementType::F16, {250, 24008}, {1100, 24008}, {250, 1100}, false, true,
                   "BIAS"});
}
