// The GPU suite's split-K and stream-K cases, forced (but for the heuristic's narrow splits):
// uneven k ranges, narrow tiles, clusters, fitted widths and shared ranges.
#include "GpuCases.h"

#include <array>
#include <tuple>

void gputest::addSplitKCases(std::vector<Case> &cases, bool quick) {
  // Split-K, forced: uneven slices (K = 200: 4 k-steps in 3 splits), more work units than
  // multiprocessors (1000^3, 64 tiles x 4 splits), ordinary loads (K = 1031), one consumer
  // (64 x 256), beta * C and f32 D, and 16 splits over a long K. Each case runs twice on the
  // same workspace, so the second run also checks that the counters were left at zero.
  const auto split = kMajorCase;
  const std::string splitPrefix = "#mepi.kernel_config<wgmma, tile = ";
  cases.push_back(split(
      ElementType::BF16, {300, 500, 200}, "GELU_BIAS",
      splitPrefix + "[128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 3>>"));
  cases.push_back(split(
      ElementType::F16, {1000, 1000, 1000}, "RELU_BIAS",
      splitPrefix + "[128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 4>>"));
  cases.push_back(split(ElementType::BF16, {127, 129, 1031}, "BIAS",
                        splitPrefix + "[128, 128, 64], mainloop = <stages = 6, tma = false>, "
                                      "scheduler = <split_k, splits = 5>>"));
  cases.push_back(split(
      ElementType::F16, {17, 4000, 4104}, "GELU_BIAS",
      splitPrefix + "[64, 256, 64], mainloop = <stages = 5>, scheduler = <split_k, splits = 7>>"));
  // Narrow tiles, whose last arrival loads the records of 2 (64 x 64) or 4 (64 x 32) splits
  // at once: split counts that leave the last group part empty.
  cases.push_back(split(
      ElementType::BF16, {300, 200, 2600}, "GELU_BIAS",
      splitPrefix + "[64, 32, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 5>>"));
  cases.push_back(split(ElementType::F16, {130, 248, 3000}, "BIAS",
                        splitPrefix + "[64, 64, 64], mainloop = <stages = 8>, scheduler = "
                                      "<split_k, splits = 7>, epilogue = <store = tma>>"));
  cases.push_back(withCIntoF32(split(
      ElementType::BF16, {300, 500, 1000}, "RELU_BIAS",
      splitPrefix + "[128, 256, 64], mainloop = <stages = 4>, scheduler = <split_k, splits = 2>>")));
  // Split-K in clusters of 2: an odd number of tile rows (5 of 64: the last pair's second tile
  // lies below D and takes no counter), more pair units than clusters (1000^3: 4 x 8 pairs x 4
  // splits), TMA stores, the grouped last arrival of 64 x 64 tiles, beta * C with f32 D.
  cases.push_back(split(ElementType::BF16, {300, 384, 5000}, "GELU_BIAS",
                        splitPrefix + "[64, 128, 64], mainloop = <stages = 8, cluster = 2>, "
                                      "scheduler = <split_k, splits = 6>>"));
  cases.push_back(split(ElementType::F16, {1000, 1000, 1000}, "RELU_BIAS",
                        splitPrefix + "[128, 128, 64], mainloop = <stages = 6, cluster = 2>, "
                                      "scheduler = <split_k, splits = 4>, epilogue = <store = "
                                      "tma>>"));
  cases.push_back(split(ElementType::BF16, {256, 192, 4000}, "BIAS",
                        splitPrefix + "[64, 64, 64], mainloop = <stages = 8, cluster = 2>, "
                                      "scheduler = <split_k, splits = 7>, epilogue = <store = "
                                      "tma>>"));
  cases.push_back(withCIntoF32(split(ElementType::F16, {257, 300, 3000}, "RELU_BIAS",
                                     splitPrefix + "[128, 128, 64], mainloop = <stages = 6, "
                                                   "cluster = 2>, scheduler = <split_k, "
                                                   "splits = 3>>")));
  // The heuristic's split-K of narrow tiles (narrowSplitFill): 64 x 32 in 22 and 16 splits
  // (records of 21 and 15 other splits summed), 64 x 64 in 11; D from the registers; residue
  // rows, columns and K.
  cases.push_back(split(ElementType::BF16, {61, 190, 41000}, "GELU_BIAS", ""));
  cases.push_back(split(ElementType::F16, {100, 120, 23000}, "RELU_BIAS", ""));
  cases.push_back(split(ElementType::BF16, {250, 180, 15000}, "DEFAULT", ""));
  if (!quick)
    cases.push_back(
        split(ElementType::BF16, {200, 700, 8200}, "GELU_BIAS",
              splitPrefix +
                  "[128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 16>>"));
}

void gputest::addSplitWidthCases(std::vector<Case> &cases) {
  const auto split = kMajorCase;
  const std::string splitPrefix = "#mepi.kernel_config<wgmma, tile = ";
  // Split-K with a fitted width (fitSplitWidth): 192 and 160 columns, residue columns.
  cases.push_back(split(ElementType::F16, {520, 1480, 3000}, "DEFAULT",
                        splitPrefix +
                            "[128, 192, 64], mainloop = <stages = 4>, "
                            "scheduler = <split_k, splits = 4>, epilogue = <store = tma>>"));
  cases.push_back(split(ElementType::BF16, {300, 330, 2000}, "GELU_BIAS",
                        splitPrefix +
                            "[128, 160, 64], mainloop = <stages = 5>, "
                            "scheduler = <split_k, splits = 5>, epilogue = <store = registers>>"));
  cases.push_back(split(ElementType::BF16, {300, 504, 1000}, "GELU_BIAS",
                        splitPrefix +
                            "[128, 128, 64], mainloop = <stages = 6>, "
                            "scheduler = <split_k, splits = 3>, epilogue = <store = tma>>"));
}

void gputest::addStreamKCases(std::vector<Case> &cases) {
  // Stream-K, forced: more units than walkers and not a multiple of them, so that the last
  // wave's k-steps are cut into ranges of 16 or more that share units, two to four walkers a
  // unit (2100 x 2000 has 136 tiles of 128 x 256 on 132 blocks, 72 pair units on 66 clusters,
  // and K = 1500 24 k-steps), one unit a walker (K = 264: 5 k-steps), residue rows,
  // columns and k-steps, beta * C with f32 D, MN-major A and B, each store form and clusters
  // of 2 (the pair's second tile below D in 2100 rows).
  for (auto [tile, mainloop, store] : std::vector<std::array<const char *, 3>>{
           {"[128, 256, 64]", "stages = 4, cluster = 2", "tma"},
           {"[128, 256, 64]", "stages = 4", "staged"},
           {"[128, 128, 64]", "stages = 6", "staged"},
           {"[64, 256, 64]", "stages = 5", "tma"},
           {"[128, 192, 64]", "stages = 4", "tma"},
           {"[128, 128, 64]", "stages = 6", "registers"}}) {
    std::string config =
        std::string("#mepi.kernel_config<wgmma, tile = ") + tile + ", mainloop = <" + mainloop +
        ">, scheduler = <stream_k>" +
        (std::string(store) == "staged" ? std::string()
                                        : std::string(", epilogue = <store = ") + store + ">") +
        ">";
    auto streamed = [&](Case c) { cases.push_back(forced(c, config)); };
    streamed({ElementType::BF16, {2100, 1500}, {2000, 1500}, {2100, 2000}, false, true, "BIAS"});
    streamed({ElementType::BF16, {1900, 3000}, {2104, 3000}, {1900, 2104}, false, true,
              "GELU_BIAS"});
    streamed({ElementType::F16, {1500, 264}, {3000, 264}, {1500, 3000}, false, true,
              "RELU_BIAS", true, 0.5f, 2.0f, false, ElementType::F32});
    streamed({ElementType::F16, {1240, 2100}, {1240, 1800}, {2100, 1800}, true, false, "GELU"});
    // A last wave of few units with many k-steps: each shared unit cut into ranges of its own
    // (128 x 128: 154 tiles, 22 shared on 132 walkers, 63 k-steps in three pieces).
    streamed({ElementType::BF16, {1790, 4000}, {1400, 4000}, {1790, 1400}, false, true,
              "GELU_BIAS"});
  }
}
