// The GPU suite's batched cases on the wgmma family (numpy.matmul broadcasting).
#include "GpuCases.h"

using namespace gputest;

namespace {
/// One B for every element, folded into one GEMM of all rows (FoldBatch.h): elements ending
/// inside a tile (448 and 127 rows), two batch dimensions, a bias per element or one for every
/// element (read at the row within the element: a cyclic row input, on the TMA-store, register
/// and staged epilogs), the swapped and the split forms the folded rows may take.
void addFoldedCases(std::vector<Case> &cases, ElementType t) {
  cases.push_back({t, {71, 448, 264}, {136, 264}, {71, 448, 136}, false, true, "DEFAULT"});
  cases.push_back({t, {6, 1000, 576}, {776, 576}, {6, 1000, 776}, false, true, "RELU"});
  cases.push_back({t, {3, 127, 1000}, {1000, 200}, {3, 127, 200}, false, false, "GELU"});
  cases.push_back({t, {9, 448, 1000}, {600, 1000}, {9, 448, 600}, false, true, "GELU_BIAS"});
  cases.push_back({t, {6, 1000, 576}, {776, 576}, {6, 1000, 776}, false, true, "GELU_BIAS"});
  cases.push_back({t, {5, 127, 72}, {200, 72}, {5, 127, 200}, false, true, "RELU_BIAS"});
  cases.push_back({t, {2, 3, 100, 520}, {264, 520}, {2, 3, 100, 264}, false, true, "BIAS"});
  Case staged{t, {7, 200, 264}, {136, 264}, {7, 200, 136}, false, true, "GELU_BIAS"};
  staged.config = "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4>>";
  cases.push_back(staged);
  Case registers{t, {5, 127, 72}, {200, 72}, {5, 127, 200}, false, true, "RELU_BIAS"};
  registers.config = "#mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6>, "
                     "epilogue = <store = registers>>";
  cases.push_back(registers);
  Case perElement{t, {3, 5, 127, 72}, {200, 72}, {3, 5, 127, 200}, false, true, "GELU_BIAS"};
  perElement.biasPerElement = true;
  cases.push_back(perElement);
  Case decode{t, {4, 5, 4096}, {4096, 4096}, {4, 5, 4096}, false, true, "BIAS"};
  decode.biasPerElement = true;
  cases.push_back(decode);
  cases.push_back({t, {4, 5, 1000}, {4096, 1000}, {4, 5, 4096}, false, true, "GELU_BIAS"});
  Case longK{t, {2, 96, 20000}, {136, 20000}, {2, 96, 136}, false, true, "DEFAULT"};
  cases.push_back(longK);
}
} // namespace

void gputest::addBatchedCases(std::vector<Case> &cases) {
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
    // k-steps, residue rows and columns, TMA stores of D.
    cases.push_back({t, {6, 1000, 576}, {6, 776, 576}, {6, 1000, 776}, false, true, "GELU_BIAS"});
    // The heuristic's batched 128 x 256 (32 k-steps, a cheap epilog, waves as full as 256 x
    // 128's): residue rows.
    cases.push_back({t, {8, 1000, 2048}, {8, 1024, 2048}, {8, 1000, 1024}, false, true, "BIAS"});
    // The heuristic's batched 64 x 256 ping-pong (batchRowFit): 320-row elements, a sixth of
    // 128-row tiles' rows outside D, rows on L2 sectors (K = 720); residue columns and K.
    for (const char *e : {"DEFAULT", "GELU_BIAS"})
      cases.push_back({t, {24, 320, 720}, {24, 952, 720}, {24, 320, 952}, false, true, e});
    // The heuristic's 128 x 160 and 128 x 192 for batches under one wave of 128 x 256 tiles
    // (batchWaveFit): 128 tiles of 128 x 160 (residue K), 63 x 2 of 128 x 192 (N = 192).
    cases.push_back({t, {8, 448, 1000}, {8, 640, 1000}, {8, 448, 640}, false, true, "DEFAULT"});
    cases.push_back({t, {63, 192, 1504}, {63, 192, 1504}, {63, 192, 192}, false, true,
                     "GELU_BIAS"});
    Case batchedC{t, {6, 130, 72}, {6, 200, 72}, {6, 130, 200}, false, true, "RELU_BIAS", true,
                  0.5f, -1.25f};
    cases.push_back(batchedC);
    Case batchedWide{t, {3, 257, 128}, {3, 128, 264}, {3, 257, 264}, false, false, "GELU_BIAS",
                     true, 1.0f, 0.5f};
    batchedWide.outType = ElementType::F32;
    cases.push_back(batchedWide);
    addFoldedCases(cases, t);
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
}
