// The GPU suite's cases of operand layouts: MN-major A and B, and rows TMA cannot address.
#include "GpuCases.h"

#include <array>
#include <tuple>

void gputest::addMnMajorCases(std::vector<Case> &cases) {
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
}

void gputest::addStagedRowCases(std::vector<Case> &cases, bool quick) {
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
}
