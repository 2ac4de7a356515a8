// The FP8 GPU suite's matmul cases (Fp8MatmulCase.h), by what they exercise.
#include "Fp8MatmulCase.h"

#include <iterator>

using namespace gputest;

namespace {
/// The scaling modes and the bias gradients.
void addFp8ScalingCases(std::vector<Fp8Case> &cases) {
  using T = ElementType;
  using S = Scale;
  const Fp8Case part[] = {
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 999, 1001, 1040, S::Tensor, S::Tensor},
      {T::F8E4M3FN, T::F8E5M2, T::F32, 517, 263, 4096, S::Vector, S::Vector, false, true},
      // The bias gradients of A and B (a pass after the GEMM): no scales, one value, row-wise,
      // blocks of K (partial in M, N and K), A given MN-major (its K-major copy summed), an
      // e4m3 D beside a bf16 gradient, f32 sums beside an f32 D, a decode shape.
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 301, 263, 528, S::None, S::None, false, false, false,
       "BGRADA"},
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 257, 384, 1040, S::Tensor, S::Tensor, false, false, false,
       "BGRADB"},
      {T::F8E5M2, T::F8E4M3FN, T::F8E4M3FN, 200, 136, 520, S::Vector, S::Vector, true, false,
       false, "BGRADA"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 999, 1001, 1040, S::Block, S::Block, false, false, false,
       "BGRADA"},
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 640, 333, 1100, S::Block, S::Block, false, false, false,
       "BGRADB"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 130, 200, 300, S::Tensor, S::Tensor, false, false, false,
       "BGRADA", 2, "", true},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 16, 1504, 6000, S::Vector, S::Vector, false, false,
       false, "BGRADB"},
      {T::F8E5M2, T::F8E4M3FN, T::F8E4M3FN, 300, 520, 528, S::Tensor, S::Tensor, true, true, false,
       "RELU_BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E5M2, 257, 384, 256, S::None, S::Vector, true, false, false,
       "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F16, 2048, 3000, 2048, S::Vector, S::Tensor, false, false, true,
       "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 200, 300, 512, S::None, S::None, true, true, false,
       "DEFAULT", 2000},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 129, 72, 1000, S::Tensor, S::None, false, false, false,
       "BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 4096, 4096, 4096, S::Tensor, S::Tensor},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 64, 64, 8192},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 256, 256, 8192, S::None, S::None, false, false, true},
      {T::F8E5M2, T::F8E4M3FN, T::BF16, 1000, 2000, 1536, S::Vector, S::Vector, false, true, true,
       "RELU"},
  };
  cases.insert(cases.end(), std::begin(part), std::end(part));
}

/// Promoted 128 x 192 tiles, block scales in the heuristic's and forced forms, and stream-K.
void addFp8PromotedCases(std::vector<Fp8Case> &cases) {
  using T = ElementType;
  using S = Scale;
  const Fp8Case part[] = {
      // Promoted 128 x 192 tiles (the heuristic's where they fill the GPU) with partial tiles
      // in N (3000 = 15 x 192 + 120) and K (1040), row-wise scales, an e4m3 D with its amax.
      {T::F8E4M3FN, T::F8E5M2, T::F8E4M3FN, 2000, 3000, 1040, S::Vector, S::Vector, true, true,
       false, "GELU_BIAS"},
      // Block scales (1 x 128 of A, 128 x 128 of B), partial blocks in M, N and K: the
      // heuristic's tiles, then forced split-K, stream-K, 64 x 64 and 128 x 64 tiles, clusters.
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 999, 1001, 1040, S::Block, S::Block},
      {T::F8E4M3FN, T::F8E5M2, T::F32, 517, 263, 4000, S::Block, S::Block, false, true},
      {T::F8E5M2, T::F8E4M3FN, T::F8E4M3FN, 300, 520, 528, S::Block, S::Block, true, true, false,
       "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 200, 300, 3008, S::Block, S::Block, false, false, false,
       "RELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 128, 128], mainloop = <stages = 4, promote = 1>, "
       "scheduler = <split_k, splits = 3>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 1000, 1000, 2048, S::Block, S::Block, false, false, false,
       "DEFAULT", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 128, 128], mainloop = <stages = 4, promote = 1>, "
       "scheduler = <stream_k>>"},
      // Stream-K over promoted 128 x 192 tiles whose last wave's units are each cut into ranges
      // of their own (9 x 16 = 144 tiles on the H100's 132: 12 shared units of 32 k-steps in two
      // pieces), an e4m3 D (no amax: stream-K takes no reductions); and block scales the same
      // way (14 x 11 = 154 tiles of 128 x 128, K = 4100: 22 shared units of 33 k-steps in two
      // pieces).
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 1100, 3000, 4000, S::Tensor, S::Tensor, true, false,
       false, "GELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, "
       "scheduler = <stream_k>>"},
      {T::F8E5M2, T::F8E4M3FN, T::BF16, 1790, 1400, 4100, S::Block, S::Block, false, false, false,
       "BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 128, 128], mainloop = <stages = 6, promote = 1>, "
       "scheduler = <stream_k>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 333, 200, 1100, S::Block, S::Block, false, false, false,
       "DEFAULT", 2,
       "#mepi.kernel_config<wgmma, tile = [64, 64, 128], mainloop = <stages = 8, promote = 1>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 1000, 700, 1024, S::Block, S::Block, false, false, false,
       "BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 64, 128], mainloop = <stages = 8, promote = 1>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 1000, 3000, 1040, S::Block, S::Block, false, true, false,
       "GELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 4096, 4096, 4096, S::Block, S::Block, true, true, false,
       "DEFAULT", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 128, 128], "
       "mainloop = <stages = 4, cluster = 2, promote = 1>>"},
  };
  cases.insert(cases.end(), std::begin(part), std::end(part));
}

/// The tile forms: promoted by slice, block scales beside one store buffer or on 64 x 128,
/// clusters of 8, the swapped form.
void addFp8TileFormCases(std::vector<Fp8Case> &cases) {
  using T = ElementType;
  using S = Scale;
  const Fp8Case part[] = {
      // Promoted by slice (256-row tiles, ping-pong 128 x 128: one slice's tensor-core sums at
      // a time): partial tiles in M, N and K, an e4m3 D with its scale and amax; row-wise
      // scales with TMA stores; block scales; clusters; the ping-pong form.
      {T::F8E4M3FN, T::F8E5M2, T::F8E4M3FN, 1000, 700, 1040, S::Tensor, S::Tensor, true, true,
       false, "GELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 600, 1000, 4000, S::Vector, S::Vector, false, false,
       false, "BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, "
       "epilogue = <store = tma>>"},
      {T::F8E5M2, T::F8E4M3FN, T::BF16, 999, 1001, 1040, S::Block, S::Block, false, false, false,
       "RELU", 2,
       "#mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 3, promote = 1>>"},
      // Block scales as the heuristic runs them on large problems: 4 stages beside one TMA
      // store buffer a consumer (K not a multiple of 128).
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 1100, 1000, 2100, S::Block, S::Block, false, false,
       false, "BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, "
       "epilogue = <store = tma, buffers = 1>>"},
      // Block scales on one consumer's 64 x 128, as the heuristic runs them from 4 k-steps on
      // (blockScaledNarrowFits): with TMA stores, partial tiles in M, N and K; an e4m3 D with
      // its scale and amax through the staged epilog (TMA stores write D only); 48 rows, D
      // through TMA from a tile of 64 (the heuristic's choice).
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 333, 1400, 2100, S::Block, S::Block, false, false,
       false, "BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [64, 128, 128], mainloop = <stages = 8, promote = 1>, "
       "epilogue = <store = tma>>"},
      {T::F8E4M3FN, T::F8E5M2, T::F8E4M3FN, 200, 700, 1100, S::Block, S::Block, true, true,
       false, "GELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [64, 128, 128], mainloop = <stages = 8, promote = 1>>"},
      {T::F8E5M2, T::F8E4M3FN, T::BF16, 48, 650, 3000, S::Block, S::Block, false, false, false,
       "DEFAULT"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 1200, 1300, 2100, S::Tensor, S::Tensor, false, false,
       false, "DEFAULT", 2,
       "#mepi.kernel_config<wgmma, tile = [256, 128, 128], "
       "mainloop = <stages = 4, cluster = 2, promote = 1>, epilogue = <store = tma>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 500, 700, 2000, S::Tensor, S::Tensor, false, true, false,
       "DEFAULT", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 128, 128], "
       "mainloop = <stages = 4, pingpong = true, promote = 1>>"},
      // Clusters of 8 sharing both operands (2 tile rows by 4 tile columns), as few-wave
      // problems run them: tiles below and right of D in a unit, K not a multiple of 128,
      // tensor-wise with TMA stores, block scales staged per block.
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 650, 1190, 2200, S::Tensor, S::Tensor, false, false,
       false, "BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 64, 128], "
       "mainloop = <stages = 8, cluster = 8, promote = 1, multicast = ab>, "
       "epilogue = <store = tma>>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 333, 1400, 2100, S::Block, S::Block, false, false,
       false, "GELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 64, 128], "
       "mainloop = <stages = 8, cluster = 8, promote = 1, multicast = ab>>"},
      // The swapped form (Dᵀ = B Aᵀ) for at most 64 rows: promoted 16-row tiles with K not a
      // multiple of 128, the scales' rows and columns transposed in the fragments; split along
      // K with TMA stores (stmatrix.trans); fast accumulation into an e4m3 D with its scale; an
      // f32 D beside an operand c.
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 13, 1000, 4112, S::Tensor, S::Vector, false, false, false,
       "GELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [16, 64, 128], mainloop = <stages = 16, promote = 1>, "
       "swapped = true>"},
      {T::F8E5M2, T::F8E4M3FN, T::F16, 40, 712, 3000, S::Vector, S::Vector, false, false, false,
       "RELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [48, 64, 128], mainloop = <stages = 12, promote = 1>, "
       "scheduler = <split_k, splits = 3>, epilogue = <store = tma>, swapped = true>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 30, 500, 2000, S::Tensor, S::Tensor, true, false,
       true, "RELU_BIAS", 2,
       "#mepi.kernel_config<wgmma, tile = [32, 128, 128], mainloop = <stages = 8>, "
       "swapped = true>"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 64, 333, 1024, S::Tensor, S::None, false, false, false,
       "DEFAULT", 2,
       "#mepi.kernel_config<wgmma, tile = [64, 64, 128], mainloop = <stages = 12, promote = 1>, "
       "swapped = true>",
       false, false, T::F32},
  };
  cases.insert(cases.end(), std::begin(part), std::end(part));
}

/// The problem forms: short M, the heuristic's K splits, MN-major and odd-pitch operands, an
/// operand c.
void addFp8ProblemCases(std::vector<Fp8Case> &cases) {
  using T = ElementType;
  using S = Scale;
  const Fp8Case part[] = {
      // Short M as the heuristic runs it (the problem streams B): one row, swapped, fast
      // accumulation, row-wise scales; 11 rows past one wave of 64-column tiles (swapped 128
      // columns wide, N past the last full tile); 48 rows on 64 x 64 tiles.
      {T::F8E5M2, T::F8E4M3FN, T::F16, 1, 4000, 2000, S::Vector, S::Vector, false, false, true,
       "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 11, 9000, 1040, S::Tensor, S::Vector, false, false,
       false, "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 48, 3152, 1248, S::Tensor, S::Tensor, false, false,
       false, "BIAS"},
      // The heuristic's K splits (tiles that leave half of the SMs idle): the splits' sums meet
      // before the epilog, so an e4m3 D's scale, saturation and amax see whole sums; row-wise
      // scales on a decode shape, block scales with K not a multiple of 128.
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 100, 1000, 8000, S::Tensor, S::Tensor, true, true,
       false, "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 16, 1500, 6000, S::Vector, S::Vector, false, true, false,
       "RELU"},
      {T::F8E5M2, T::F8E4M3FN, T::BF16, 40, 700, 6000, S::Block, S::Block, false, true, false,
       "BIAS"},
      // The heuristic's 128 x 192 tiles split to fill one wave (promotedSplits: 33 tiles in
      // 4): tensor-wise with an e4m3 D, its scale and amax; block scales (a split boundary
      // between two blocks of K); and block scales forced into 3 splits of 128 x 192.
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 300, 2000, 8000, S::Tensor, S::Tensor, true, true,
       false, "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 300, 2000, 8000, S::Block, S::Block, false, true, false,
       "BIAS"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 1000, 520, 4000, S::Block, S::Block, false, false, false,
       "DEFAULT", 2,
       "#mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, "
       "scheduler = <split_k, splits = 3>>"},
      // Fast accumulation on a decode shape: 64 x 128 tiles, K split.
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 16, 1000, 4096, S::Tensor, S::Tensor, false, false,
       true, "GELU_BIAS"},
      // Operands given MN-major (A as [K, M], B as [K, N]): copied K-major by a pre-pass, then
      // the wgmma kernel; every type pair, tensor, row-wise and block scales, odd shapes.
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 999, 1001, 1040, S::Tensor, S::Tensor, false, false,
       false, "DEFAULT", 2, "", true, false},
      {T::F8E4M3FN, T::F8E5M2, T::F32, 517, 263, 4000, S::Vector, S::Vector, false, false, false,
       "GELU_BIAS", 2, "", false, true},
      {T::F8E5M2, T::F8E4M3FN, T::F8E4M3FN, 300, 520, 528, S::Block, S::Block, true, true, false,
       "RELU_BIAS", 2, "", true, true},
      {T::F8E4M3FN, T::F8E4M3FN, T::F16, 2048, 3000, 2048, S::Vector, S::Tensor, false, false,
       true, "DEFAULT", 2, "", true, true},
      // K-major rows of an odd pitch: staged into 16-byte rows by the realigning pre-pass.
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 130, 203, 1001, S::Tensor, S::Tensor, false, false,
       false, "GELU_BIAS", 2},
      // An operand c: D = sD * epilog(alpha sA sB A B + beta sC C), C read by the epilog after
      // the product's scales (tensor-wise, row-wise, with C's scale), or by the kernel where
      // only block scales (the main loop's) scale the product; C in a 16-bit type beside an
      // 8-bit D, f32 beside an f32 D; odd shapes, a decode shape split along K, fast
      // accumulation, MN-major A.
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 999, 1001, 1040, S::Tensor, S::Tensor, true, true,
       false, "GELU_BIAS", 2, "", false, false, T::BF16, true, 0.5f},
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 517, 263, 4000, S::Vector, S::Vector, false, false, false,
       "RELU_BIAS", 2, "", false, false, T::BF16},
      {T::F8E5M2, T::F8E4M3FN, T::F16, 300, 520, 1100, S::Block, S::Block, false, false, false,
       "DEFAULT", 2, "", false, false, T::F16, true},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 1000, 700, 1024, S::Block, S::Block, false, true, false,
       "BIAS", 2, "", false, false, T::BF16, false, 1.5f},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 16, 1500, 6000, S::Tensor, S::Vector, false, false, false,
       "GELU", 2, "", false, false, T::BF16, true},
      {T::F8E4M3FN, T::F8E4M3FN, T::F32, 257, 300, 2000, S::Tensor, S::Tensor, false, true, false,
       "GELU_BIAS", 2, "", true, false, T::F32, true},
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E5M2, 2048, 3000, 2048, S::Vector, S::Tensor, true, false,
       true, "DEFAULT", 2, "", false, false, T::F16, true},
  };
  cases.insert(cases.end(), std::begin(part), std::end(part));
}

} // namespace

std::vector<Fp8Case> gputest::fp8Cases() {
  std::vector<Fp8Case> cases;
  addFp8ScalingCases(cases);
  addFp8PromotedCases(cases);
  addFp8TileFormCases(cases);
  addFp8ProblemCases(cases);
  return cases;
}
