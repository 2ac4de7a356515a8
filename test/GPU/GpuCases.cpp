// The GPU suite's matrix cases (see GpuCases.h).
#include "GpuCases.h"

#include <array>
#include <tuple>

using namespace mepi::runtime;

namespace {
/// `c` with beta * C added (alpha 0.5, beta -1.25) and an f32 D: the reduced epilogs' C path.
gputest::Case withCIntoF32(gputest::Case c) {
  c.withC = true;
  c.alpha = 0.5f;
  c.beta = -1.25f;
  c.outType = ElementType::F32;
  return c;
}

/// `c` run on the forced kernel configuration `config` (Options::kernelConfig).
gputest::Case forced(gputest::Case c, const std::string &config) {
  c.config = config;
  return c;
}
} // namespace

gputest::Case gputest::swappedCase(ElementType t, std::array<int64_t, 3> mnk, const char *epilog,
                                   const std::string &tile) {
  auto [m, n, k] = mnk;
  Case c{t, {m, k}, {n, k}, {m, n}, false, true, epilog};
  c.config = "#mepi.kernel_config<wgmma, tile = " + tile + ", swapped = true>";
  return c;
}

std::vector<gputest::Case> gputest::allCases(bool quick) {
  std::vector<Case> cases;
  const ElementType types[] = {ElementType::F16, ElementType::BF16, ElementType::F32};
  const char *epilogs[] = {"DEFAULT", "BIAS", "RELU", "RELU_BIAS", "GELU", "GELU_BIAS"};
  std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1}, {17, 33, 65}, {127, 129, 255},
                                                {1000, 1000, 1000}};
  if (!quick)
    shapes.push_back({4096, 4096, 4096});
  for (ElementType t : types)
    for (auto [m, n, k] : shapes)
      for (const char *e : epilogs)
        cases.push_back({t, {m, k}, {k, n}, {m, n}, false, false, e});
  for (ElementType t : types) // activations beyond nvmath-python's list
    for (const char *e : {"SIGMOID", "TANH", "SILU"}) {
      cases.push_back({t, {17, 65}, {65, 33}, {17, 33}, false, false, e});
      cases.push_back({t, {255, 127}, {129, 255}, {127, 129}, true, true, e});
    }
  for (ElementType t : types) {
    // Transposes (op(A) = A^T stored K x M; op(B) = B^T stored N x K).
    cases.push_back({t, {255, 127}, {255, 129}, {127, 129}, true, false, "RELU_BIAS"});
    cases.push_back({t, {127, 255}, {129, 255}, {127, 129}, false, true, "GELU_BIAS"});
    cases.push_back({t, {255, 127}, {129, 255}, {127, 129}, true, true, "BIAS"});
    // alpha, beta and C.
    Case withC{t, {17, 65}, {65, 33}, {17, 33}, false, false, "RELU_BIAS", true, 0.5f, -1.25f};
    cases.push_back(withC);
    Case bigC{t, {1000, 1000}, {1000, 1000}, {1000, 1000}, true, false, "GELU", true, 2.0f, 0.5f};
    cases.push_back(bigC);
    // Batch of 3 with numpy broadcasting (B shared), and a column-major A.
    cases.push_back({t, {3, 17, 65}, {65, 33}, {3, 17, 33}, false, false, "BIAS"});
    cases.push_back({t, {1, 33, 20}, {3, 20, 31}, {3, 33, 31}, false, false, "GELU_BIAS"});
    Case colMajor{t, {127, 255}, {255, 129}, {127, 129}, false, false, "RELU"};
    colMajor.columnMajorA = true;
    cases.push_back(colMajor);
    if (t == ElementType::F32) { // the TF32 opt-in
      Case tf32{t, {127, 255}, {255, 129}, {127, 129}, false, false, "RELU_BIAS"};
      tf32.tf32 = true;
      cases.push_back(tf32);
      Case tf32Big{t, {1000, 1000}, {1000, 1000}, {1000, 1000}, true, false, "GELU"};
      tf32Big.tf32 = true;
      cases.push_back(tf32Big);
    }
    if (t != ElementType::F32) { // 16-bit inputs, f32 D (and C)
      Case wide{t, {127, 255}, {255, 129}, {127, 129}, false, false, "GELU_BIAS", true, 1.0f, 0.5f};
      wide.outType = ElementType::F32;
      cases.push_back(wide);
      // A bias of another type than D's: f32, and the other 16-bit type; simt and wgmma.
      for (ElementType biasType : {ElementType::F32, t == ElementType::BF16 ? ElementType::F16
                                                                            : ElementType::BF16})
        for (bool kMajorB : {false, true}) {
          Case mixed{t, {257, 99}, kMajorB ? std::vector<int64_t>{131, 99}
                                           : std::vector<int64_t>{99, 131},
                     {257, 131}, false, kMajorB, "GELU_BIAS"};
          mixed.biasType = biasType;
          if (!kMajorB)
            mixed.config = "#mepi.kernel_config<simt, tile = [16, 32, 1]>";
          cases.push_back(mixed);
        }
    }
  }
  // The wgmma family (sm_90a): 16-bit A and B with contiguous rows, 16-byte aligned (K a
  // multiple of 8); K-major here, MN-major below. Shapes reach each configuration of the
  // heuristic: short M (one consumer warpgroup, 64 x 128), few tiles (128 x 128), many tiles
  // (128 x 256; in clusters where D takes no TMA stores: 2000 x 4100), many tiles of short K
  // (64 x 256 ping-pong: 1500 x 4104 x 328), and 128 x 256 where 256-row tiles would add a
  // quarter of rows outside D (320 x 11272 x 520, whose GELU_BIAS takes the short-K form), one
  // partial wave of 128 x 256 just past a wave of 128 x 128 (1000 x 2304 x 1032), with residues
  // in M, N and K and a K shorter than one stage.
  std::vector<std::array<int64_t, 3>> wgmmaShapes = {
      {1, 1, 8},          {17, 33, 64},       {17, 4000, 1032},  {127, 129, 264},
      {1000, 1000, 1000}, {2000, 4100, 1000}, {1500, 4104, 328}, {320, 11272, 520},
      {1000, 2304, 1032}};
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
  // Batched problems on the wgmma family (numpy.matmul broadcasting): batch elements walked by
  // the tile scheduler, a TMA coordinate per batch dimension (0 where one broadcasts), the
  // epilog through views of the unit's element; residues in M, N and K, both orientations of
  // B, one and two batch dimensions, a 2-D operand against a batched one, C with beta, an f32
  // D, and the forced forms (split-K, ping-pong, clusters, each store form).
  for (ElementType t : {ElementType::F16, ElementType::BF16}) {
    for (const char *e : {"DEFAULT", "BIAS", "RELU_BIAS", "GELU_BIAS"}) {
      cases.push_back({t, {5, 127, 264}, {5, 136, 264}, {5, 127, 136}, false, true, e});
      cases.push_back({t, {7, 300, 200}, {7, 200, 504}, {7, 300, 504}, false, false, e});
    }
    cases.push_back({t, {2, 3, 129, 136}, {1, 3, 136, 200}, {2, 3, 129, 200}, false, false,
                     "GELU_BIAS"});
    cases.push_back({t, {300, 200}, {4, 200, 504}, {4, 300, 504}, false, false, "RELU_BIAS"});
    // A batch of one: batch coordinates and views at element 0.
    cases.push_back({t, {1, 300, 200}, {200, 504}, {1, 300, 504}, false, false, "GELU_BIAS"});
    cases.push_back({t, {4, 300, 200}, {504, 200}, {4, 300, 504}, false, true, "BIAS"});
    cases.push_back({t, {3, 264, 1000}, {3, 264, 136}, {3, 1000, 136}, true, false, "SILU"});
    cases.push_back({t, {16, 1024, 1024}, {16, 1024, 1024}, {16, 1024, 1024}, false, false,
                     "DEFAULT"});
    // The heuristic's batched 128 x 256 in clusters of 2 where rows start off L2's sectors
    // (1200 bytes): 43 elements of 8 x 3 tiles (the last tile row of 4 rows, the last column
    // of 8), residue K.
    cases.push_back({t, {43, 900, 600}, {43, 520, 600}, {43, 900, 520}, false, true, "BIAS"});
    // The heuristic's batched ping-pong 128 x 128 (pingpongForm): rows on L2's sectors, 9
    // k-steps, one B for all 6 elements, residue rows and columns, TMA stores of D.
    cases.push_back({t, {6, 1000, 576}, {776, 576}, {6, 1000, 776}, false, true, "GELU_BIAS"});
    // The heuristic's batched 128 x 256 (32 k-steps, a cheap epilog, waves as full as 256 x
    // 128's): residue rows.
    cases.push_back({t, {8, 1000, 2048}, {8, 1024, 2048}, {8, 1000, 1024}, false, true, "BIAS"});
    Case batchedC{t, {6, 130, 72}, {6, 200, 72}, {6, 130, 200}, false, true, "RELU_BIAS", true,
                  0.5f, -1.25f};
    cases.push_back(batchedC);
    Case batchedWide{t, {3, 257, 128}, {3, 128, 264}, {3, 257, 264}, false, false, "GELU_BIAS",
                     true, 1.0f, 0.5f};
    batchedWide.outType = ElementType::F32;
    cases.push_back(batchedWide);
    for (const char *config : {"#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = "
                               "<stages = 4>, scheduler = <split_k, splits = 3>>",
                               "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = "
                               "<stages = 4, pingpong = true>>",
                               "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = "
                               "<stages = 6, pingpong = true>, epilogue = <store = tma>>",
                               "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = "
                               "<stages = 4, cluster = 2>, epilogue = <store = tma>>",
                               "#mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = "
                               "<stages = 6>, epilogue = <store = registers>>",
                               "#mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = "
                               "<stages = 4>, epilogue = <store = tma>>"}) {
      Case forced{t, {3, 333, 520}, {3, 264, 520}, {3, 333, 264}, false, true, "GELU_BIAS"};
      forced.config = config;
      cases.push_back(forced);
    }
  }
  addF32Cases(cases);
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
  // MN-major operands (A given as [K, M] with transpose_a, B as [K, N]): TMA boxes of 64-row
  // blocks and transposed wgmma reads, every orientation, tile and residue; staged odd pitches
  // (N or M not a multiple of 8) and the ordinary-load producer.
  for (ElementType t : {ElementType::F16, ElementType::BF16}) {
    for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{
             {1, 1, 8}, {17, 4000, 1032}, {127, 136, 264}, {1000, 1000, 1000}})
      for (auto [transA, transB] : {std::pair{false, false}, {true, true}, {true, false}}) {
        std::vector<int64_t> aShape = transA ? std::vector<int64_t>{k, m} : std::vector{m, k};
        std::vector<int64_t> bShape = transB ? std::vector<int64_t>{n, k} : std::vector{k, n};
        cases.push_back({t, aShape, bShape, {m, n}, transA, transB, "GELU_BIAS"});
      }
    cases.push_back({t, {200, 300}, {200, 504}, {300, 504}, true, false, "RELU_BIAS", true, 0.5f,
                     -1.25f});
    cases.push_back({t, {257, 203}, {203, 131}, {257, 131}, false, false, "BIAS"});
    cases.push_back({t, {203, 257}, {203, 131}, {257, 131}, true, false, "GELU"});
    for (auto [tileM, tileN, stages] :
         std::vector<std::array<int, 3>>{{128, 256, 4}, {128, 128, 6}, {64, 256, 5}, {64, 64, 8}}) {
      Case forced{t, {264, 300}, {264, 500}, {300, 500}, true, false, "RELU_BIAS"};
      forced.config = "#mepi.kernel_config<wgmma, tile = [" + std::to_string(tileM) + ", " +
                      std::to_string(tileN) +
                      ", 64], mainloop = <stages = " + std::to_string(stages) + ">>";
      cases.push_back(forced);
    }
    Case loadsMN{t, {203, 257}, {203, 131}, {257, 131}, true, false, "GELU_BIAS"};
    loadsMN.config =
        "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, tma = false>>";
    cases.push_back(loadsMN);
    Case splitMN{t, {4096, 64}, {4096, 200}, {64, 200}, true, false, "BIAS"};
    splitMN.config = "#mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, "
                     "scheduler = <split_k, splits = 8>>";
    cases.push_back(splitMN);
  }
  // Rows TMA cannot address (K not a multiple of 8, or an address not a multiple of 16): the
  // runtime stages A and B into 16-byte rows before each launch; forced `tma = false` keeps
  // the ordinary-load producer, which reads them in place.
  for (ElementType t : {ElementType::F16, ElementType::BF16}) {
    Case shifted{t, {300, 256}, {500, 256}, {300, 500}, false, true, "GELU_BIAS"};
    shifted.misalignBytes = 2;
    cases.push_back(shifted);
    Case shiftedOdd{t, {257, 203}, {131, 203}, {257, 131}, false, true, "RELU_BIAS"};
    shiftedOdd.misalignBytes = 6;
    cases.push_back(shiftedOdd);
    Case oddLoads{t, {300, 203}, {500, 203}, {300, 500}, false, true, "GELU_BIAS"};
    oddLoads.config =
        "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, tma = false>>";
    cases.push_back(oddLoads);
    cases.push_back({t, {300, 203}, {500, 203}, {300, 500}, false, true, "GELU_BIAS"});
    cases.push_back({t, {17, 1031}, {4000, 1031}, {17, 4000}, false, true, "RELU_BIAS"});
    cases.push_back({t, {7, 1837}, {4121, 1837}, {7, 4121}, false, true, "GELU_BIAS"});
    // D rows TMA cannot address, store = tma: the consumer's threads store each line (2-,
    // 4-byte units; D in f32: 4 bytes); bias per column, beta * C, a partial last tile.
    for (int64_t n : {1001, 1002, 1003}) {
      Case lines{t, {300, 520}, {n, 520}, {300, n}, false, true, n == 1001 ? "GELU_BIAS" : "BIAS",
                 n != 1003, 1.0f, n != 1003 ? -0.5f : 0.0f};
      if (n == 1003)
        lines.outType = ElementType::F32;
      lines.config = "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, "
                     "cluster = 2>, epilogue = <store = tma>>";
      cases.push_back(lines);
    }
    // ... in the other forms: 256-row tiles, ping-pong, split-K's last arrival, stream-K.
    for (const char *form : {"tile = [256, 128, 64], mainloop = <stages = 4>",
                             "tile = [128, 128, 64], mainloop = <stages = 4, pingpong = true>",
                             "tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = "
                             "<split_k, splits = 3>",
                             "tile = [128, 256, 64], mainloop = <stages = 4>, scheduler = "
                             "<stream_k>",
                             "tile = [128, 192, 64], mainloop = <stages = 4, cluster = 2>, "
                             "scheduler = <stream_k>"}) {
      Case lines{t, {700, 1000}, {1001, 1000}, {700, 1001}, false, true, "GELU_BIAS"};
      lines.config = std::string("#mepi.kernel_config<wgmma, ") + form +
                     ", epilogue = <store = tma>>";
      cases.push_back(lines);
    }
    if (!quick)
      cases.push_back({t, {4095, 4099}, {4097, 4099}, {4095, 4097}, false, true, "GELU_BIAS"});
    // The heuristic's 128 x 192 in clusters where 128 x 256 would compute a third of its
    // columns outside D (columnFitted): 331 columns, the last pair unit's second tile below D.
    cases.push_back({t, {16500, 520}, {331, 520}, {16500, 331}, false, true, "GELU_BIAS"});
    Case loads{t, {127, 264}, {129, 264}, {127, 129}, false, true, "BIAS"};
    loads.config =
        "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, tma = false>>";
    cases.push_back(loads);
  }
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
  // Split-K, forced: uneven slices (K = 200: 4 k-steps in 3 splits), more work units than
  // multiprocessors (1000^3, 64 tiles x 4 splits), ordinary loads (K = 1031), one consumer
  // (64 x 256), beta * C and f32 D, and 16 splits over a long K. Each case runs twice on the
  // same workspace, so the second run also checks that the counters were left at zero.
  auto split = [&](ElementType t, std::array<int64_t, 3> mnk, const char *epilog,
                   const std::string &config) {
    auto [m, n, k] = mnk;
    Case c{t, {m, k}, {n, k}, {m, n}, false, true, epilog};
    c.config = config;
    return c;
  };
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
  if (!quick)
    cases.push_back(
        split(ElementType::BF16, {200, 700, 8200}, "GELU_BIAS",
              splitPrefix +
                  "[128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 16>>"));
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
  // D through TMA stores (and from the registers outside the cooperative 128-row kernels),
  // forced in every kernel form: residue rows and columns (D rows of 1008 bytes, the TMA
  // store clips at the edges), beta * C with f32 D (32-column lines), more tiles than blocks
  // (2100 x 2000), MN-major A and B, 64-column tiles (one line per slice: the buffers
  // alternate across tiles), split-K (the last split stores), and clusters of 2.
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
        "[256, 128, 64], mainloop = <stages = 4>, epilogue = <store = registers>"}) {
    std::string config = std::string("#mepi.kernel_config<wgmma, tile = ") + form + ">";
    auto stored = [&](Case c) { cases.push_back(forced(c, config)); };
    stored({ElementType::BF16, {300, 200}, {504, 200}, {300, 504}, false, true, "GELU_BIAS"});
    stored({ElementType::F16, {127, 264}, {136, 264}, {127, 136}, false, true, "RELU_BIAS", true,
            0.5f, 2.0f, false, ElementType::F32});
    stored({ElementType::BF16, {2100, 520}, {2000, 520}, {2100, 2000}, false, true, "BIAS"});
    stored({ElementType::F16, {264, 300}, {264, 512}, {300, 512}, true, false, "GELU"});
  }
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
  addOneTileCases(cases);
  addPairedSplitCases(cases);
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
  // Mirrors (D stored again to each, bytes equal to D's): each store form (tma, registers,
  // staged), clusters, split-K's and stream-K's last arrivals, the swapped form, the SIMT
  // kernel and the heuristic's own choice; odd shapes, C with f32 D.
  auto mirrored = [&](Case c, const std::string &form, int mirrors) {
    c.config = form.empty() ? form : "#mepi.kernel_config<" + form + ">";
    c.mirrors = mirrors;
    cases.push_back(c);
  };
  Case odd{ElementType::BF16, {1000, 520}, {1032, 520}, {1000, 1032}, false, true, "GELU_BIAS"};
  mirrored(odd, "wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>", 2);
  mirrored(odd, "wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, "
                "epilogue = <store = tma>", 1);
  mirrored(odd, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, "
                "epilogue = <store = registers>", 3);
  mirrored(odd, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>", 1);
  mirrored(odd, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, "
                "scheduler = <split_k, splits = 3>, epilogue = <store = tma>", 1);
  mirrored(odd, "wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, "
                "scheduler = <stream_k>, epilogue = <store = tma>", 1);
  mirrored(odd, "", 1);
  Case gelu{ElementType::F16, {300, 777}, {777, 264}, {300, 264}, false, false, "GELU"};
  mirrored(gelu, "", 2);
  Case withC{ElementType::F16, {127, 264}, {136, 264}, {127, 136}, false, true, "RELU_BIAS",
             true, 0.5f, 2.0f, false, ElementType::F32};
  mirrored(withC, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, "
                  "epilogue = <store = tma>", 1);
  mirrored(withC, "simt, tile = [16, 32, 1]", 2);
  Case swappedMirror = swapped(ElementType::BF16, {13, 1000, 1000}, "BIAS",
                               "[16, 128, 64], mainloop = <stages = 12>");
  swappedMirror.mirrors = 1;
  cases.push_back(swappedMirror);
  swappedMirror.mirrors = 3;
  cases.push_back(swappedMirror);
  // A distributed all-reduce's mirrored last pieces on 4 ranks (C = the partial sums, three
  // peers): 32 and 109 rows, the heuristic's tiles.
  for (auto [m, withC, mirrors] : {std::tuple{32, true, 3}, {32, false, 3}, {32, true, 1},
                                    {109, true, 3}})
    mirrored(Case{ElementType::BF16, {m, 128}, {384, 128}, {m, 384}, false, true, "BIAS", withC,
                  1.0f, 1.0f},
             "", mirrors);
  return cases;
}
