// The GPU suite's cases of the wgmma kernel's forms: the heuristic's shapes, every tile, ping-pong,
// 256-row tiles, the promoted accumulators, the store forms and the partial wave's widths.
#include "GpuCases.h"

#include <array>
#include <tuple>

void gputest::addWgmmaShapeCases(std::vector<Case> &cases, bool quick) {
  // The wgmma family (sm_90a): 16-bit A and B with contiguous rows, 16-byte aligned (K a
  // multiple of 8); K-major here, MN-major below. Shapes reach each configuration of the
  // heuristic: short M (one consumer warpgroup, 64 x 128), few tiles (128 x 128), many tiles
  // (128 x 256; in clusters where D takes no TMA stores: 2000 x 4100), many tiles of short K
  // (64 x 192 ping-pong: 1500 x 4104 x 328; cheap epilogs whose rows start on L2's sectors
  // ping-pong 128 x 128: 1400 x 4104 x 336), and 128 x 256 where 256-row tiles would add a
  // quarter of rows outside D (320 x 11272 x 520, whose GELU_BIAS takes the short-K form), one
  // partial wave of 128 x 256 just past a wave of 128 x 128 (1000 x 2304 x 1032), with residues
  // in M, N and K and a K shorter than one stage; a narrow D of many rows over short K
  // (narrowPingpong: 64 x 128 ping-pong over 120 columns, 128 x 128 over 200; K a multiple of 16
  // elements, rows on L2 sectors); ping-pong 128 x 128 for cheap epilogs of 4-6 k-steps over 16
  // or more 128 x 128 tiles per multiprocessor (8200 x 4104 x 304) and of 7 k-steps (3000 x 4104
  // x 432; shortCheapPingpong).
  std::vector<std::array<int64_t, 3>> wgmmaShapes = {
      {1, 1, 8},          {17, 33, 64},       {17, 4000, 1032},  {127, 129, 264},
      {1000, 1000, 1000}, {2000, 4100, 1000}, {1500, 4104, 328}, {320, 11272, 520},
      {1000, 2304, 1032}, {34000, 120, 848},  {17000, 200, 1008}, {1400, 4104, 336},
      {8200, 4104, 304},  {3000, 4104, 432}};
  if (!quick)
    wgmmaShapes.push_back({4096, 4096, 4096});
  for (ElementType t : {ElementType::F16, ElementType::BF16}) {
    for (auto [m, n, k] : wgmmaShapes)
      for (const char *e : {"DEFAULT", "BIAS", "RELU_BIAS", "GELU_BIAS"})
        cases.push_back({t, {m, k}, {n, k}, {m, n}, false, true, e});
    cases.push_back({t, {300, 200}, {500, 200}, {300, 500}, false, true, "SILU"});
    Case withC{t, {300, 200}, {500, 200}, {300, 500}, false, true, "RELU_BIAS", true, 0.5f,
               -1.25f};
    cases.push_back(withC);
    Case wide{t, {300, 200}, {500, 200}, {300, 500}, false, true, "GELU_BIAS", true, 1.0f, 0.5f};
    wide.outType = ElementType::F32;
    cases.push_back(wide);
  }
}

void gputest::addPromotedCases(std::vector<Case> &cases) {
  // The promoted accumulator policy (forced): the whole of K = 16384 in one unit, its sums
  // added in f32 every 4 k-steps, and bf16 under split-K with a block that K does not fill.
  {
    Case promoted{ElementType::F32, {2048, 16384}, {2048, 16384}, {2048, 2048}, false, true};
    promoted.config = "#mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = <stages = 6, "
                      "promote = 4>, epilogue = <store = tma>>";
    cases.push_back(promoted);
    Case promotedBf16{ElementType::BF16, {300, 8200}, {257, 8200}, {300, 257}, false, true,
                      "GELU_BIAS"};
    promotedBf16.config = "#mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = "
                          "8, promote = 3>, scheduler = <split_k, splits = 4>>";
    cases.push_back(promotedBf16);
  }
  {
    cases.push_back(
        {ElementType::F32, {5, 130, 1030}, {1030, 72}, {5, 130, 72}, false, false, "RELU_BIAS"});
    cases.push_back({ElementType::F32, {257, 300}, {300, 129}, {257, 129}, false, false,
                     "GELU", true, 0.5f, -1.25f});
  }
}

void gputest::addTileCases(std::vector<Case> &cases) {
  // Every wgmma tile the heuristic can choose, forced, on residue shapes.
  for (auto [tileM, tileN, stages] : std::vector<std::array<int, 3>>{
           {128, 256, 4}, {128, 128, 6}, {128, 64, 8}, {64, 256, 5}, {64, 128, 8}, {64, 64, 8}}) {
    std::string config = "#mepi.kernel_config<wgmma, tile = [" + std::to_string(tileM) + ", " +
                         std::to_string(tileN) +
                         ", 64], mainloop = <stages = " + std::to_string(stages) + ">>";
    Case bf{ElementType::BF16, {300, 200}, {500, 200}, {300, 500}, false, true, "GELU_BIAS"};
    bf.config = config;
    cases.push_back(bf);
    Case half{ElementType::F16, {127, 264}, {129, 264}, {127, 129}, false, true, "RELU_BIAS", true,
              0.5f, 2.0f};
    half.config = config;
    cases.push_back(half);
  }
}

void gputest::addPingpongCases(std::vector<Case> &cases) {
  // Ping-pong, forced: both tiles it takes (two 64-row slices per consumer, or one 256 wide),
  // residues, beta * C with f32 D, MN-major operands, the ordinary-load producer and staged
  // rows. 2100 x 2000 has 272 tiles of 128 x 128 on at most 132 blocks: blocks of 2 and of 3
  // units, so the consumers hand the main loop over, and the last unit is either one's.
  for (auto [tileM, tileN, stages] : std::vector<std::array<int, 3>>{{128, 128, 6}, {64, 256, 5}}) {
    std::string config = "#mepi.kernel_config<wgmma, tile = [" + std::to_string(tileM) + ", " +
                         std::to_string(tileN) +
                         ", 64], mainloop = <stages = " + std::to_string(stages);
    std::string inPlace = config + ", pingpong = true>>";
    auto pingpong = [&](Case c, const std::string &forced) {
      c.config = forced;
      cases.push_back(c);
    };
    pingpong({ElementType::BF16, {300, 200}, {500, 200}, {300, 500}, false, true, "GELU_BIAS"},
             inPlace);
    pingpong({ElementType::F16, {127, 264}, {129, 264}, {127, 129}, false, true, "RELU_BIAS",
              true, 0.5f, 2.0f, false, ElementType::F32},
             inPlace);
    pingpong({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"},
             inPlace);
    pingpong({ElementType::F16, {264, 300}, {264, 512}, {300, 512}, true, false, "GELU"},
             inPlace);
    pingpong({ElementType::BF16, {300, 203}, {500, 203}, {300, 500}, false, true, "GELU_BIAS"},
             config + ", tma = false, pingpong = true>>");
    pingpong({ElementType::F16, {257, 203}, {131, 203}, {257, 131}, false, true, "RELU_BIAS"},
             inPlace); // rows of 406 bytes: staged
  }
}

void gputest::addTallTileCases(std::vector<Case> &cases) {
  // 256-row tiles (two consumers of two 64-row slices each), forced: residues, beta * C with f32
  // D, MN-major A and B, the ordinary-load producer, staged rows, more tiles than blocks.
  {
    std::string config = "#mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4";
    auto tall = [&](Case c, const std::string &suffix) {
      c.config = config + suffix;
      cases.push_back(c);
    };
    tall({ElementType::BF16, {300, 200}, {500, 200}, {300, 500}, false, true, "GELU_BIAS"}, ">>");
    tall({ElementType::F16,
          {127, 264},
          {129, 264},
          {127, 129},
          false,
          true,
          "RELU_BIAS",
          true,
          0.5f,
          2.0f,
          false,
          ElementType::F32},
         ">>");
    tall({ElementType::F16, {264, 300}, {264, 512}, {300, 512}, true, false, "GELU"}, ">>");
    tall({ElementType::BF16, {300, 203}, {500, 203}, {300, 500}, false, true, "GELU_BIAS"},
         ", tma = false>>");
    tall({ElementType::F16, {257, 203}, {131, 203}, {257, 131}, false, true, "RELU_BIAS"}, ">>");
    tall({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"}, ">>");
  }
}

namespace gputest {
namespace {
/// The store forms' cases on `form` (the body of a kernel_config after `tile = `): residue rows
/// and columns (D rows of 1008 bytes, the TMA store clips at the edges), beta * C with f32 D
/// (32-column lines), more tiles than blocks (2100 x 2000), then MN-major A and B; or, for a
/// width ending in a narrower line (`narrowLine`: B as [K, N] loads 64-row blocks, so tile_n
/// 64k), MN-major A with B as [N, K] and D's rows of 1002 bytes, which TMA cannot address (the
/// threads copy every line).
void addStoredCases(std::vector<Case> &cases, const char *form, bool narrowLine) {
  std::string config = std::string("#mepi.kernel_config<wgmma, tile = ") + form + ">";
  auto stored = [&](Case c) { cases.push_back(forced(c, config)); };
  stored({ElementType::BF16, {300, 200}, {504, 200}, {300, 504}, false, true, "GELU_BIAS"});
  stored({ElementType::F16, {127, 264}, {136, 264}, {127, 136}, false, true, "RELU_BIAS", true,
          0.5f, 2.0f, false, ElementType::F32});
  stored({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"});
  if (!narrowLine) {
    stored({ElementType::F16, {264, 300}, {264, 512}, {300, 512}, true, false, "GELU"});
    return;
  }
  stored({ElementType::F16, {330, 264}, {520, 330}, {264, 520}, true, true, "GELU"});
  stored({ElementType::BF16, {301, 200}, {501, 200}, {301, 501}, false, true, "BIAS"});
}
} // namespace
} // namespace gputest

void gputest::addStoreFormCases(std::vector<Case> &cases) {
  // D through TMA stores (and from the registers outside the cooperative 128-row kernels),
  // forced in every kernel form (addStoredCases): 64-column tiles (one line per slice: the
  // buffers alternate across tiles), split-K (the last split stores), and clusters of 2.
  for (const char *form :
       {"[128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>",
        "[128, 128, 64], mainloop = <stages = 6>, epilogue = <store = tma>",
        "[64, 256, 64], mainloop = <stages = 5>, epilogue = <store = tma>",
        "[64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>",
        "[128, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma>",
        "[256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>",
        // One buffer a consumer (each line waits for the store before it): an odd number of
        // lines a slice (192 columns), 256-row tiles, one line a slice.
        "[128, 192, 64], mainloop = <stages = 4>, epilogue = <store = tma, buffers = 1>",
        "[256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma, buffers = 1>",
        "[128, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma, buffers = 1>",
        "[128, 128, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>",
        "[64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>",
        "[128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>",
        "[128, 128, 64], mainloop = <stages = 4, pingpong = true>, "
        "epilogue = <store = registers>",
        "[256, 128, 64], mainloop = <stages = 4>, epilogue = <store = registers>",
        // Three lines a tile in ping-pong (the short-K width measured in bench/NOTES.md).
        "[64, 192, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>"})
    addStoredCases(cases, form, /*narrowLine=*/false);
  // A last line narrower than 128 bytes, which the threads copy: half a line after two (160),
  // after one (96, an even count), after three with one buffer (224), in ping-pong; f32 D's
  // 32-column lines are whole.
  for (const char *form :
       {"[128, 160, 64], mainloop = <stages = 4>, epilogue = <store = tma>",
        "[128, 96, 64], mainloop = <stages = 6>, epilogue = <store = tma>",
        "[128, 224, 64], mainloop = <stages = 4>, epilogue = <store = tma, buffers = 1>",
        "[64, 160, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>"})
    addStoredCases(cases, form, /*narrowLine=*/true);
  // A matrix of D at least L2's size over at most 4 k-steps: TMA stores with L2's evict-first
  // policy (Sm90Spec::streamsD; 8195 x 4104 bf16 is 64 MiB): the heuristic's kernel, a batch of
  // such matrices, C with f32 D, and the swapped form's stores.
  cases.push_back({ElementType::BF16, {8195, 136}, {4104, 136}, {8195, 4104}, false, true,
                   "DEFAULT"});
  cases.push_back({ElementType::F16, {2, 6601, 200}, {2, 4104, 200}, {2, 6601, 4104}, false,
                   true, "GELU_BIAS"});
  cases.push_back(forced({ElementType::BF16, {4100, 72}, {4104, 72}, {4100, 4104}, false, true,
                          "RELU_BIAS", true, 0.5f, 2.0f, false, ElementType::F32},
                         "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = "
                         "<stages = 4>, epilogue = <store = tma>>"));
  cases.push_back(swappedCase(ElementType::BF16, {8000, 4104, 136}, "BIAS",
                              "[176, 128, 64], mainloop = <stages = 4>, "
                              "epilogue = <store = tma>"));
}

void gputest::addWideTileCases(std::vector<Case> &cases) {
  // Widths that fit a partial wave (the heuristic's waveFittedWidth) and 128 x 192 among
  // autotune's candidates (alone and in clusters of 2): B K-major (an MN-major B loads 64-row
  // blocks), residue columns, C with f32 D, a batch whose tiles leave rows and columns of D.
  for (const char *form :
       {"[128, 160, 64], mainloop = <stages = 5>, epilogue = <store = registers>",
        "[128, 160, 64], mainloop = <stages = 5>",
        "[128, 224, 64], mainloop = <stages = 4>, epilogue = <store = registers>",
        "[128, 192, 64], mainloop = <stages = 4>, epilogue = <store = tma>",
        "[128, 192, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>"}) {
    auto fitted = [&](Case c) {
      c.config = std::string("#mepi.kernel_config<wgmma, tile = ") + form + ">";
      cases.push_back(c);
    };
    fitted({ElementType::BF16, {300, 200}, {504, 200}, {300, 504}, false, true, "GELU_BIAS"});
    fitted({ElementType::F16, {127, 264}, {136, 264}, {127, 136}, false, true, "RELU_BIAS", true,
            0.5f, 2.0f, false, ElementType::F32});
    fitted({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"});
    if (std::string(form).find("192") != std::string::npos)
      fitted({ElementType::F16, {3, 300, 264}, {3, 520, 264}, {3, 300, 520}, false, true,
              "GELU_BIAS"});
  }
}
