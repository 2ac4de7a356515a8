// The GPU suite's cases of the swapped form (Dᵀ = B Aᵀ): short M, B given as [K, N], fitted
// heights, TMA stores, split along K, and the heuristic's own fitted heights.
#include "GpuCases.h"

#include <array>
#include <tuple>

void gputest::addSwappedCases(std::vector<Case> &cases) {
  // The swapped form for short M (Dᵀ = B Aᵀ), forced: 16, 32 and 64 rows of A per tile with
  // fewer rows in D (13, 7, 33), one and two consumers, residue columns, more tiles than blocks
  // (20000 columns in 64-column tiles), beta * C with f32 D, staged rows (K = 1030).
  auto swapped = swappedCase;
  cases.push_back(swapped(ElementType::BF16, {16, 1000, 1000}, "GELU_BIAS",
                          "[16, 64, 64], mainloop = <stages = 16>"));
  cases.push_back(swapped(ElementType::F16, {13, 1000, 4104}, "RELU_BIAS",
                          "[16, 128, 64], mainloop = <stages = 12>"));
  cases.push_back(
      swapped(ElementType::BF16, {33, 300, 200}, "BIAS", "[64, 64, 64], mainloop = <stages = 8>"));
  cases.push_back(swapped(ElementType::BF16, {32, 20000, 256}, "DEFAULT",
                          "[32, 64, 64], mainloop = <stages = 16>"));
  cases.push_back(
      swapped(ElementType::F16, {7, 777, 1030}, "GELU", "[16, 64, 64], mainloop = <stages = 16>"));
  cases.push_back(withCIntoF32(swapped(ElementType::BF16, {16, 520, 512}, "RELU_BIAS",
                                       "[16, 128, 64], mainloop = <stages = 12>")));
  // B given as [K, N] (torch.mm's): the wgmmas read B's 64-row blocks transposed; forced 16-
  // and 64-row tiles with residue rows, columns and K, and the heuristic's decode form.
  auto mnMajorB = [](Case c) { return std::swap(c.bShape[0], c.bShape[1]), c.transB = false, c; };
  cases.push_back(mnMajorB(swapped(ElementType::BF16, {13, 1000, 1030}, "GELU_BIAS",
                                   "[16, 128, 64], mainloop = <stages = 12>")));
  cases.push_back(mnMajorB(swapped(ElementType::F16, {40, 304, 264}, "RELU_BIAS",
                                   "[64, 64, 64], mainloop = <stages = 8>" + std::string(
                                       ", epilogue = <store = tma>"))));
  cases.push_back({ElementType::BF16, {16, 2000}, {2000, 3000}, {16, 3000}, false, false, "BIAS"});
  // The heuristic's swapped form 128 columns wide past one wave of 64-column tiles (9000
  // columns: 141 of them; 27 rows in 32-row tiles), residue columns and K.
  cases.push_back({ElementType::BF16, {27, 1000}, {9000, 1000}, {27, 9000}, false, true,
                   "GELU_BIAS"});
}

void gputest::addSwappedHeightCases(std::vector<Case> &cases) {
  auto swapped = swappedCase;
  // The swapped form over many tile rows with fitted heights (cuBLASLt's 96-176-row tiles):
  // residue rows in the last tile row (2000 = 11 x 176 + 64), residue columns, K residue,
  // 256 rows (128 accumulators a thread), C with f32 D.
  cases.push_back(swapped(ElementType::BF16, {2000, 256, 1000}, "GELU_BIAS",
                          "[176, 128, 64], mainloop = <stages = 5>"));
  cases.push_back(swapped(ElementType::F16, {1000, 300, 520}, "RELU_BIAS",
                          "[96, 64, 64], mainloop = <stages = 8>"));
  cases.push_back(swapped(ElementType::F16, {300, 1000, 1030}, "GELU",
                          "[144, 128, 64], mainloop = <stages = 6>"));
  cases.push_back(withCIntoF32(swapped(ElementType::BF16, {777, 520, 264}, "BIAS",
                                       "[256, 128, 64], mainloop = <stages = 4>")));
  // The swapped form through TMA stores (stmatrix.trans, boxes of gcd(tile_m, 64) rows): a last
  // chunk of 48 rows (176) and of 16 (144) that must not reach the next tile row, residue rows,
  // columns (296) and K, short M on 16-row tiles.
  const std::string tmaStores = ", epilogue = <store = tma>";
  cases.push_back(swapped(ElementType::BF16, {2000, 256, 1000}, "GELU_BIAS",
                          "[176, 128, 64], mainloop = <stages = 4>" + tmaStores));
  cases.push_back(swapped(ElementType::F16, {1000, 296, 520}, "RELU_BIAS",
                          "[96, 64, 64], mainloop = <stages = 8>" + tmaStores));
  cases.push_back(swapped(ElementType::BF16, {300, 1000, 1030}, "GELU",
                          "[144, 128, 64], mainloop = <stages = 5>" + tmaStores));
  cases.push_back(swapped(ElementType::F16, {40, 1000, 512}, "BIAS",
                          "[16, 64, 64], mainloop = <stages = 12>" + tmaStores));
  // One buffer a consumer: each chunk waits for the store before it (three chunks of 176).
  cases.push_back(swapped(ElementType::BF16, {2000, 256, 1000}, "GELU_BIAS",
                          "[176, 128, 64], mainloop = <stages = 4>, "
                          "epilogue = <store = tma, buffers = 1>"));
  // The swapped form split along K (cuBLASLt's 80 x 128 in 11 splits on few tiles of long K):
  // k ranges of unequal k-steps (K = 5000: 79 k-steps in 11), residue rows and columns, element
  // stores of a D whose rows are not 16-byte (190 columns), C with f32 D.
  const std::string splits = ", scheduler = <split_k, splits = ";
  cases.push_back(swapped(ElementType::BF16, {320, 384, 5000}, "GELU_BIAS",
                          "[80, 128, 64], mainloop = <stages = 7>" + splits + "11>" + tmaStores));
  cases.push_back(swapped(ElementType::F16, {250, 190, 7000}, "RELU_BIAS",
                          "[32, 64, 64], mainloop = <stages = 16>" + splits + "5>"));
  cases.push_back(withCIntoF32(swapped(ElementType::BF16, {300, 200, 3000}, "BIAS",
                                       "[48, 128, 64], mainloop = <stages = 8>" + splits + "7>")));
}

void gputest::addFittedHeightCases(std::vector<Case> &cases) {
  // The heuristic's own fitted height (WgmmaHeuristic::fittedHeight, no forced configuration):
  // 128 x 128 on 8000 x 256 x 1024, 112 x 128 on 7000 x 248 x 1040 (residue rows and columns);
  // its low heights (lowSplitHeight): 48 x 128 in 7 splits on 770 x 128 x 12008, unsplit on
  // 2500 x 248 x 4104 (residue rows, columns and K).
  for (auto [t, mnk, epilog] : std::vector<std::tuple<ElementType, std::array<int64_t, 3>,
                                                      const char *>>{
           {ElementType::BF16, {8000, 256, 1024}, "GELU_BIAS"},
           {ElementType::F16, {7000, 248, 1040}, "BIAS"},
           {ElementType::BF16, {770, 128, 12008}, "GELU_BIAS"},
           {ElementType::F16, {2500, 248, 4104}, "RELU_BIAS"}}) {
    auto [m, n, k] = mnk;
    cases.push_back(Case{t, {m, k}, {n, k}, {m, n}, false, true, epilog});
  }
}
