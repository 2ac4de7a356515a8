// The GPU suite's f32 cases on the tensor cores (see GpuCases.h): TF32 where the caller allows
// it, and strict f32 split into TF32 parts by a pre-pass or inside the kernel.
#include "GpuCases.h"

#include <array>

using namespace mepi::runtime;

namespace {
/// f32 A and B at TF32 precision.
void addTf32Cases(std::vector<gputest::Case> &cases) {
  using gputest::Case;
  // f32 A and B at TF32 precision (Options::allowTF32) on the wgmma family: K-major A and B
  // read through TMA, wgmma m64nNk8.tf32 over 32-element lines; every epilog form, residues in
  // M, N and K, a batch, and the forced forms.
  for (const char *e : {"DEFAULT", "BIAS", "RELU_BIAS", "GELU_BIAS"})
    for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{
             {17, 33, 64}, {127, 136, 260}, {1000, 1000, 1000}, {2000, 4100, 1000}}) {
      Case tf32{ElementType::F32, {m, k}, {n, k}, {m, n}, false, true, e};
      tf32.tf32 = true;
      cases.push_back(tf32);
    }
  {
    Case tf32C{ElementType::F32, {300, 200}, {500, 200}, {300, 500}, false, true, "RELU_BIAS",
               true, 0.5f, -1.25f};
    tf32C.tf32 = true;
    cases.push_back(tf32C);
    Case tf32Batched{ElementType::F32, {3, 257, 128}, {3, 264, 128}, {3, 257, 264}, false, true,
                     "GELU_BIAS"};
    tf32Batched.tf32 = true;
    cases.push_back(tf32Batched);
    for (const char *config : {"#mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = "
                               "<stages = 4>, scheduler = <split_k, splits = 3>>",
                               "#mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = "
                               "<stages = 4, pingpong = true>>",
                               "#mepi.kernel_config<wgmma, tile = [128, 256, 32], mainloop = "
                               "<stages = 4, cluster = 2>, epilogue = <store = tma>>",
                               "#mepi.kernel_config<wgmma, tile = [64, 128, 32], mainloop = "
                               "<stages = 6>, epilogue = <store = registers>>",
                               "#mepi.kernel_config<wgmma, tile = [256, 128, 32], mainloop = "
                               "<stages = 4>, epilogue = <store = tma>>",
                               "#mepi.kernel_config<wgmma, tile = [128, 256, 32], mainloop = "
                               "<stages = 4>, scheduler = <stream_k>>",
                               "#mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = "
                               "<stages = 6, promote = 3>>"}) {
      Case forced{ElementType::F32, {333, 520}, {264, 520}, {333, 264}, false, true, "GELU_BIAS"};
      forced.tf32 = true;
      forced.config = config;
      cases.push_back(forced);
    }
  }
}

/// Strict f32, split into TF32 parts by a pre-pass or inside the kernel.
void addStrictF32Cases(std::vector<gputest::Case> &cases) {
  using gputest::Case;
  // Strict f32 on the tensor cores: the operands split into TF32 parts by a pre-pass, one TF32
  // GEMM over three times K (lib/Runtime/SplitOperand.h), which must keep f32's accuracy
  // (1e-5) up to K = 16384, also where one accumulator sums all 3 x 16384 products (no
  // split-K): every operand orientation (the pre-pass makes them K-major), K not a multiple of
  // anything, a batch against one broadcast B, C with beta.
  for (auto [m, n, k, transA, transB] : std::vector<std::tuple<int64_t, int64_t, int64_t, bool, bool>>{
           {256, 384, 16384, false, false}, {300, 257, 16384, true, true},
           {2048, 2048, 16384, false, true},
           {1000, 1000, 4099, false, true}, {33, 4100, 777, true, false}}) {
    Case strict{ElementType::F32, transA ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k},
                transB ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, {m, n},
                transA, transB, k == 4099 ? "GELU_BIAS" : "DEFAULT"};
    cases.push_back(strict);
  }
  // Strict f32 of at most 128 rows, K-major in place: split inside the kernel (Tf32Split.h),
  // no pre-pass. Odd M and N, K = 16384 in promoted units, a K whose last step is partial,
  // C with beta; forced split-K (stages reused by three units a block) and a 64 x 32 tile.
  {
    for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{
             {13, 1000, 4100}, {128, 520, 16384}, {77, 4104, 2052}}) {
      Case inKernel{ElementType::F32, {m, k}, {n, k}, {m, n}, false, true,
                    k == 2052 ? "GELU_BIAS" : "DEFAULT"};
      cases.push_back(inKernel);
    }
    cases.push_back({ElementType::F32, {100, 1000}, {300, 1000}, {100, 300}, false, true,
                     "RELU_BIAS", true, 0.5f, -1.25f});
    Case splitK{ElementType::F32, {70, 3000}, {390, 3000}, {70, 390}, false, true, "BIAS"};
    splitK.config = "#mepi.kernel_config<wgmma, tile = [64, 128, 32], mainloop = <stages = 4>, "
                    "scheduler = <split_k, splits = 3>>";
    cases.push_back(splitK);
    // 31 k-steps in one accumulator (93 products of 32): within the planner's bound of 32
    // (kSplitInKernelMaxUnitKSteps); 63 measured 1.4e-5 against fp64 (H100), as the pre-pass
    // form's error over as many products.
    Case narrow{ElementType::F32, {64, 992}, {96, 992}, {64, 96}, false, true, "GELU"};
    narrow.config = "#mepi.kernel_config<wgmma, tile = [64, 32, 32], mainloop = <stages = 8>>";
    cases.push_back(narrow);
    // The forms beyond one consumer, each reading stages the producer warpgroup split once:
    // two consumers of a 128-row tile (promoted over K = 16384, and whole), ping-pong
    // consumers, a cluster whose peer multicasts half of B.
    for (auto [m, n, k, config] : std::vector<std::tuple<int64_t, int64_t, int64_t, const char *>>{
             {128, 256, 16384, "#mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = "
                               "<stages = 3, promote = 4>>"},
             {120, 300, 1000, "#mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = "
                              "<stages = 3>>"},
             {128, 264, 1000, "#mepi.kernel_config<wgmma, tile = [64, 128, 32], mainloop = "
                              "<stages = 4, pingpong = true>>"},
             {128, 520, 1000, "#mepi.kernel_config<wgmma, tile = [64, 128, 32], mainloop = "
                              "<stages = 4, cluster = 2>, epilogue = <store = tma>>"}}) {
      Case form{ElementType::F32, {m, k}, {n, k}, {m, n}, false, true, "GELU_BIAS"};
      form.config = config;
      cases.push_back(form);
    }
  }
}
} // namespace

void gputest::addF32Cases(std::vector<Case> &cases) {
  addTf32Cases(cases);
  addStrictF32Cases(cases);
}
