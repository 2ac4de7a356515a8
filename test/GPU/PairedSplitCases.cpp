// The GPU suite's cases of the paired split-K rule (PairedSplitRules.cpp): split-K over a B
// larger than half of L2 pairs its tile rows in clusters of 2 that share B's tile, or where the
// tile rows are odd the swapped form's, chosen by the heuristic; and swapped pairs forced.
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
  // Five tile rows of 64 cannot pair: the heuristic's swapped pairs (two rows of 176, 16
  // splits), B 32 MB; residue rows, columns and K.
  cases.push_back({ElementType::BF16, {330, 40008}, {400, 40008}, {330, 400}, false, true,
                   "GELU_BIAS"});
  // The swapped form in clusters of 2 that share B's tile (cuBLASLt's 80 x 128 2x1 split-K):
  // four tile rows in two pairs, with TMA stores and unequal k ranges (K = 5000: 79 k-steps in
  // 11); three tile rows of 48 (the second pair's second tile below D) with element stores of
  // D's 190-column rows and residue K, C with f32 D; an unsplit 128-column form.
  auto swappedPairs = swappedCase;
  cases.push_back(swappedPairs(ElementType::BF16, {320, 384, 5000}, "GELU_BIAS",
                               "[80, 128, 64], mainloop = <stages = 7, cluster = 2>, scheduler = "
                               "<split_k, splits = 11>, epilogue = <store = tma>"));
  Case withC = swappedPairs(ElementType::F16, {130, 190, 3001}, "RELU_BIAS",
                            "[48, 128, 64], mainloop = <stages = 8, cluster = 2>, scheduler = "
                            "<split_k, splits = 5>");
  withC.withC = true, withC.alpha = 0.5f, withC.beta = -1.25f;
  withC.outType = ElementType::F32;
  cases.push_back(withC);
  cases.push_back(swappedPairs(ElementType::BF16, {200, 1000, 1000}, "BIAS",
                               "[64, 128, 64], mainloop = <stages = 8, cluster = 2>, epilogue = "
                               "<store = tma>"));
}
