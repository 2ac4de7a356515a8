// The GPU suite's cluster cases, forced: pairs sharing B, pairs along N sharing A, and clusters of
// 4 and 8 sharing both.
#include "GpuCases.h"

#include <array>
#include <tuple>

void gputest::addClusterBCases(std::vector<Case> &cases) {
  // Clusters of 2 with B multicast, forced: an odd number of tile rows (the last pair's second
  // tile lies below D: 300 rows, and 384 = 3 whole tiles, where no row bound would stop its
  // stores), more pair units than clusters (2100 x 2000), MN-major A and B (whole 64-row blocks
  // per block), beta * C with f32 D, one consumer (64-row tiles), staged rows, and ping-pong
  // consumers in clusters.
  for (auto [tileM, tileN, stages, pingpong] : std::vector<std::array<int, 4>>{
           {128, 256, 4, 0}, {128, 128, 6, 0}, {64, 256, 5, 0}, {128, 128, 6, 1}, {256, 128, 4, 0}}) {
    std::string config = "#mepi.kernel_config<wgmma, tile = [" + std::to_string(tileM) + ", " +
                         std::to_string(tileN) +
                         ", 64], mainloop = <stages = " + std::to_string(stages) +
                         (pingpong ? ", pingpong = true" : "") + ", cluster = 2>>";
    auto clustered = [&](Case c) { cases.push_back(forced(c, config)); };
    clustered({ElementType::BF16, {300, 200}, {500, 200}, {300, 500}, false, true, "GELU_BIAS"});
    clustered({ElementType::F16, {384, 264}, {520, 264}, {384, 520}, false, true, "RELU_BIAS",
               true, 0.5f, 2.0f, false, ElementType::F32});
    clustered({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"});
    clustered({ElementType::F16, {264, 300}, {264, 512}, {300, 512}, true, false, "GELU"});
    clustered({ElementType::F16, {257, 203}, {131, 203}, {257, 131}, false, true, "RELU_BIAS"});
  }
}

void gputest::addClusterNCases(std::vector<Case> &cases) {
  // Clusters of 2 along N (multicast = a), forced: an odd number of tile columns (the last
  // pair's second tile lies right of D: 520 and 3880 columns), short M and wide N with an N
  // residue (the form's purpose), more pair units than clusters (2100 x 2000), MN-major A and
  // B (128-row tiles: whole 64-row blocks of A per block), beta * C with f32 D, staged rows,
  // ping-pong consumers, TMA stores, split-K and stream-K in such clusters.
  for (const char *form : {"[64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>",
                           "[64, 256, 64], mainloop = <stages = 5, cluster = 2, multicast = a>",
                           "[128, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>",
                           "[128, 128, 64], mainloop = <stages = 6, pingpong = true, cluster = 2, "
                           "multicast = a>",
                           "[64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>, "
                           "epilogue = <store = tma>",
                           "[64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>, "
                           "scheduler = <split_k, splits = 3>",
                           "[128, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>, "
                           "scheduler = <stream_k>"}) {
    std::string config = std::string("#mepi.kernel_config<wgmma, tile = ") + form + ">";
    auto alongN = [&](Case c) { cases.push_back(forced(c, config)); };
    alongN({ElementType::BF16, {300, 200}, {520, 200}, {300, 520}, false, true, "GELU_BIAS"});
    alongN({ElementType::F16, {64, 1000}, {3880, 1000}, {64, 3880}, false, true, "BIAS"});
    alongN({ElementType::F16, {100, 264}, {520, 264}, {100, 520}, false, true, "RELU_BIAS", true,
            0.5f, 2.0f, false, ElementType::F32});
    alongN({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"});
    if (std::string(form).find("store = tma") == std::string::npos) // rows TMA cannot store
      alongN({ElementType::F16, {57, 203}, {1031, 203}, {57, 1031}, false, true, "RELU_BIAS"});
    if (std::string(form).find("[128,") != std::string::npos)
      alongN({ElementType::F16, {264, 300}, {264, 520}, {300, 520}, true, false, "GELU"});
    if (std::string(form).find("stream_k") == std::string::npos) // batched: no stream-K
      alongN({ElementType::BF16, {3, 64, 256}, {3, 520, 256}, {3, 64, 520}, false, true,
              "GELU_BIAS"});
  }
}

void gputest::addClusterABCases(std::vector<Case> &cases) {
  // Clusters of 4 and 8 sharing both operands (multicast = ab: 2 tile rows by 2 or 4 tile
  // columns), forced: tiles below and right of D in one unit (3 tile rows, 9 or 5 tile
  // columns), more units than clusters (2100 x 2000), beta * C with f32 D, MN-major A and B
  // (whole 64-row blocks per block where the tile allows), 16-row shares of a 64-row A, two
  // slices a consumer, TMA stores, short M (57 rows: a unit's second tile row empty), batched.
  for (const char *form : {"[128, 64, 64], mainloop = <stages = 8, cluster = 8, multicast = ab>",
                           "[64, 128, 64], mainloop = <stages = 8, cluster = 8, multicast = ab>",
                           "[128, 128, 64], mainloop = <stages = 6, cluster = 4, multicast = ab>, "
                           "epilogue = <store = tma>",
                           "[256, 128, 64], mainloop = <stages = 4, cluster = 4, "
                           "multicast = ab>"}) {
    std::string config = std::string("#mepi.kernel_config<wgmma, tile = ") + form + ">";
    auto both = [&](Case c) { cases.push_back(forced(c, config)); };
    both({ElementType::BF16, {300, 200}, {520, 200}, {300, 520}, false, true, "GELU_BIAS"});
    both({ElementType::F16, {100, 264}, {520, 264}, {100, 520}, false, true, "RELU_BIAS", true,
          0.5f, 2.0f, false, ElementType::F32});
    both({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"});
    both({ElementType::BF16, {3, 200, 256}, {3, 520, 256}, {3, 200, 520}, false, true,
          "GELU_BIAS"});
    if (std::string(form).find("store = tma") == std::string::npos) // rows TMA cannot store
      both({ElementType::F16, {57, 203}, {1031, 203}, {57, 1031}, false, true, "RELU_BIAS"});
    if (std::string(form).find("[128, 128,") != std::string::npos)
      both({ElementType::F16, {264, 300}, {264, 520}, {300, 520}, true, false, "GELU"});
  }
}
