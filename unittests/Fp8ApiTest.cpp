// The C++ API's FP8 checks and plans: quantization scales are validated against the problem
// (which operand, expected against got) before anything is planned, and an 8-bit problem plans
// the promoted accumulator policy unless fast accumulation is asked for. No GPU is needed: the
// pointers are never touched, and planning compiles to a cubin through nvJitLink.
#include "ApiTestSupport.h"

#include "mepi/GroupedMatmul.h"

#include <gtest/gtest.h>

namespace {
using apitest::errorOf;
using mepi::DType;

mepi::Tensor tensor(std::vector<int64_t> shape, DType dtype = DType::Float8E4M3FN) {
  return apitest::fakeTensor(std::move(shape), dtype);
}

/// Options with D in bf16 and the given scales.
mepi::Options scaled(std::optional<mepi::Tensor> a, std::optional<mepi::Tensor> b = {},
                     std::optional<mepi::Tensor> d = {}) {
  mepi::Options options;
  options.resultType = DType::BFloat16;
  options.quantizationScales.a = std::move(a);
  options.quantizationScales.b = std::move(b);
  options.quantizationScales.d = std::move(d);
  return options;
}

const mepi::Qualifiers kTransposeB{false, true};
} // namespace

TEST(Fp8Api, ScalesNeedFp8Operands) {
  std::string e = errorOf([] {
    mepi::Matmul mm(tensor({64, 128}, DType::BFloat16), tensor({32, 128}, DType::BFloat16),
                    std::nullopt, 1.0f, std::nullopt, kTransposeB,
                    scaled(tensor({}, DType::Float32)));
  });
  EXPECT_EQ(e, "quantization scales: expected 8-bit A and B (fp8), got bf16 x bf16");
}

TEST(Fp8Api, ScaleShapesAndTypesAreNamed) {
  auto error = [](mepi::Options options) {
    return errorOf([&] {
      mepi::Matmul mm(tensor({64, 128}), tensor({32, 128}), std::nullopt, 1.0f, std::nullopt,
                      kTransposeB, options);
    });
  };
  EXPECT_EQ(error(scaled(tensor({5}, DType::Float32))),
            "quantization scale a: expected shape [] or [1] or [64] (M: one per row of D) or "
            "[64, 1] (M, ceil(K / 128): one per row and block of 128 elements of K), got [5]");
  EXPECT_EQ(error(scaled(std::nullopt, tensor({64}, DType::Float32))),
            "quantization scale b: expected shape [] or [1] or [32] (N: one per column of D) or "
            "[1, 1] (ceil(N / 128), ceil(K / 128): one per block of 128 x 128 elements of "
            "op(B)), got [64]");
  EXPECT_EQ(error(scaled(std::nullopt, std::nullopt, tensor({32}, DType::Float32))),
            "quantization scale d: expected shape [] or [1], got [32]");
  EXPECT_EQ(error(scaled(tensor({}, DType::BFloat16))),
            "quantization scale a: expected f32, got bf16");
  mepi::Tensor elsewhere = tensor({}, DType::Float32);
  elsewhere.device = 1;
  EXPECT_EQ(error(scaled(elsewhere)), "quantization scale a: expected memory on device 0 "
                                      "(operand a's), got device 1");
}

// C beside the product's scales: D = sD * epilog(alpha sA sB A B + beta sC C), C in bf16 beside
// an e4m3 D; C's scale is one value and needs C.
TEST(Fp8Api, CWithTheProductsScalesAndItsOwn) {
  mepi::Options options = scaled(tensor({}, DType::Float32), tensor({32}, DType::Float32),
                                 tensor({}, DType::Float32));
  options.resultType = DType::Float8E4M3FN;
  options.quantizationScales.c = tensor({1}, DType::Float32);
  mepi::Matmul mm(tensor({64, 128}), tensor({32, 128}), tensor({64, 32}, DType::BFloat16), 0.5f,
                  2.0f, kTransposeB, options);
  mepi::EpilogInputs inputs;
  inputs.bias = tensor({64}, DType::BFloat16);
  EXPECT_EQ(errorOf([&] { mm.plan(mepi::Epilog::GeluBias, inputs); }), "");
  EXPECT_EQ(errorOf([&] { mm.plan(mepi::Epilog::Default); }), "");

  options.quantizationScales.c = tensor({2}, DType::Float32);
  EXPECT_EQ(errorOf([&] {
              mepi::Matmul m(tensor({64, 128}), tensor({32, 128}),
                             tensor({64, 32}, DType::BFloat16), 1.0f, 1.0f, kTransposeB, options);
            }),
            "quantization scale c: expected shape [] or [1], got [2]");
  options.quantizationScales.c = tensor({}, DType::Float32);
  EXPECT_EQ(errorOf([&] {
              mepi::Matmul m(tensor({64, 128}), tensor({32, 128}), std::nullopt, 1.0f,
                             std::nullopt, kTransposeB, options);
            }),
            "quantization scale c: given without an operand c (it scales C)");
}

TEST(Fp8Api, UserEpilogsReadTheirOwnScales) {
  mepi::Matmul mm(tensor({64, 128}), tensor({32, 128}), std::nullopt, 1.0f, std::nullopt,
                  kTransposeB, scaled(tensor({1}, DType::Float32)));
  mepi::UserEpilog user{"func.func @e(%acc: f32, %r: index, %c: index) -> bf16 {\n"
                        "  %t = arith.truncf %acc : f32 to bf16\n  return %t : bf16\n}",
                        "e"};
  EXPECT_EQ(errorOf([&] { mm.plan(user); }),
            "plan: quantization scales are applied by the built-in epilogs; a user epilog reads "
            "its scales as epilog inputs");
}

// GELU_AUX's aux beside an 8-bit D: bf16 by default, or 8-bit with its scale (one value, [] or
// [1]) and its amax, as nvmath's epilog preferences ask; backward epilogs read that bf16 aux
// and write their bias gradient in bf16, as BGRADA does; the preferences with a user epilog
// are refused.
TEST(Fp8Api, GeluAuxBesideAnFp8D) {
  mepi::Options options;
  options.resultType = DType::Float8E4M3FN;
  mepi::Matmul plain(tensor({64, 128}), tensor({32, 128}), std::nullopt, 1.0f, std::nullopt,
                     kTransposeB, options);
  EXPECT_EQ(errorOf([&] { plain.plan(mepi::Epilog::GeluAux); }), "");
  mepi::EpilogInputs backward;
  mepi::Tensor aux = tensor({64, 32}, DType::BFloat16);
  aux.strides = {1, 64};
  backward.geluAux = aux;
  EXPECT_EQ(errorOf([&] { plain.plan(mepi::Epilog::DGeluBGrad, backward); }), "");
  // The operand sums of 8-bit A and B are a pass after the GEMM (OperandSumsPass.h): a bf16
  // bgrada of M values.
  EXPECT_EQ(errorOf([&] { plain.plan(mepi::Epilog::BGradA); }), "");

  options.auxType = DType::Float8E4M3FN;
  options.auxAmax = true;
  mepi::Matmul quantized(tensor({64, 128}), tensor({32, 128}), std::nullopt, 1.0f, std::nullopt,
                         kTransposeB, options);
  mepi::EpilogInputs inputs;
  EXPECT_NE(errorOf([&] { quantized.plan(mepi::Epilog::GeluAux, inputs); })
                .find("an 8-bit gelu_aux needs the epilog input 'aux_quantization_scale'"),
            std::string::npos);
  inputs.auxQuantizationScale = tensor({1}, DType::Float32);
  EXPECT_EQ(errorOf([&] { quantized.plan(mepi::Epilog::GeluAux, inputs); }), "");
  inputs.auxQuantizationScale = tensor({}, DType::Float32);
  EXPECT_EQ(errorOf([&] { quantized.plan(mepi::Epilog::GeluAux, inputs); }), "");
  mepi::UserEpilog user{"func.func @e(%acc: f32, %r: index, %c: index) -> f8E4M3FN {\n"
                        "  %t = arith.truncf %acc : f32 to f8E4M3FN\n"
                        "  return %t : f8E4M3FN\n}",
                        "e"};
  EXPECT_NE(errorOf([&] { quantized.plan(user); })
                .find("options.auxType and options.auxAmax are for the built-in GELU_AUX "
                      "epilogs"),
            std::string::npos)
      << errorOf([&] { quantized.plan(user); });
}

// BGRADA / BGRADB of batched 8-bit operands: the pass sums each element's rows (a shared
// operand's once per element); its gradient is [batch, M] or [batch, N] in bf16 beside an 8-bit D.
TEST(Fp8Api, BatchedBiasGradients) {
  mepi::Options options;
  options.resultType = DType::Float8E4M3FN;
  options.quantizationScales.a = tensor({64}, DType::Float32);
  mepi::Matmul batched(tensor({3, 64, 128}), tensor({32, 128}), std::nullopt, 1.0f,
                       std::nullopt, kTransposeB, options);
  EXPECT_EQ(errorOf([&] { batched.plan(mepi::Epilog::BGradA); }), "");
  EXPECT_EQ(errorOf([&] { batched.plan(mepi::Epilog::BGradB); }), "");
  mepi::Matmul twice(tensor({2, 3, 64, 128}), tensor({2, 3, 32, 128}), std::nullopt, 1.0f,
                     std::nullopt, kTransposeB, options);
  EXPECT_NE(errorOf([&] { twice.plan(mepi::Epilog::BGradA); })
                .find("takes at most one batch dimension, got D of rank 4"),
            std::string::npos)
      << errorOf([&] { twice.plan(mepi::Epilog::BGradA); });
}

// Promoted sums by default (every k-step), the tensor cores' own with fast accumulation; both
// plan, with their scales, for an e4m3 x e5m2 problem with an e4m3 D.
TEST(Fp8Api, PromotedUnlessFastAccumulation) {
  for (bool fast : {false, true}) {
    mepi::Options options = scaled(tensor({300}, DType::Float32), tensor({}, DType::Float32),
                                   tensor({1}, DType::Float32));
    options.resultType = DType::Float8E4M3FN;
    options.resultAmax = true;
    options.fastAccumulation = fast;
    mepi::Matmul mm(tensor({300, 1024}), tensor({520, 1024}, DType::Float8E5M2), std::nullopt,
                    1.0f, std::nullopt, kTransposeB, options);
    ASSERT_EQ(errorOf([&] { mm.plan(mepi::Epilog::Relu); }), "") << "fast " << fast;
    std::string config = mm.kernelConfiguration();
    EXPECT_EQ(config.find("promote = 1") != std::string::npos, !fast) << config;
    EXPECT_NE(config.find("tile = ["), std::string::npos) << config;
    EXPECT_NE(config.find(", 128]"), std::string::npos) << config; // tile_k: 128 bytes of K
  }
}

// Grouped: B's scale is one value, one per group [S] or one per group and column [S, N]; the
// grouped matmul plans with either.
TEST(Fp8Api, GroupedScalesPerGroup) {
  mepi::Tensor ends = tensor({4}, DType::Int32);
  auto grouped = [&](mepi::Tensor scaleB) {
    mepi::Options options = scaled(tensor({300}, DType::Float32), scaleB);
    mepi::GroupedMatmul mm(tensor({300, 256}), tensor({4, 32, 256}), {ends}, 1.0f, kTransposeB,
                           options);
    mm.plan(mepi::Epilog::Default);
    return mm.kernelConfiguration();
  };
  EXPECT_NE(grouped(tensor({4}, DType::Float32)).find("promote = 1"), std::string::npos);
  EXPECT_NE(grouped(tensor({4, 32}, DType::Float32)).find("promote = 1"), std::string::npos);
  EXPECT_EQ(errorOf([&] { grouped(tensor({7}, DType::Float32)); }),
            "quantization scale b: expected shape [] or [1] or [4] (one per group) or [4, 32] "
            "(one per group and column of D), got [7]");
}

// nvmath's aux_type in grouped matmuls: an 8-bit gelu_aux with its scale plans, with its amax
// and D's (scalar maxima, which grouped kernels combine atomically).
TEST(Fp8Api, GroupedGeluAuxOfItsOwnType) {
  mepi::Tensor ends = tensor({4}, DType::Int32);
  for (bool amax : {false, true}) {
    mepi::Options options;
    options.resultType = DType::Float8E4M3FN;
    options.auxType = DType::Float8E5M2;
    options.auxAmax = options.resultAmax = amax;
    mepi::GroupedMatmul mm(tensor({300, 256}), tensor({4, 32, 256}), {ends}, 1.0f, kTransposeB,
                           options);
    mepi::EpilogInputs inputs;
    inputs.bias = tensor({4, 32}, DType::BFloat16);
    inputs.auxQuantizationScale = tensor({}, DType::Float32);
    EXPECT_EQ(errorOf([&] { mm.plan(mepi::Epilog::GeluAuxBias, inputs); }), "") << amax;
  }
}

// Block scales (1 x 128 of A, 128 x 128 of B): both or neither, with promoted sums; they plan
// tiles whose columns lie in one block of 128 (not 128 x 192), for any strides of the scales.
TEST(Fp8Api, BlockScalesComeInPairs) {
  auto error = [](mepi::Options options) {
    return errorOf([&] {
      mepi::Matmul mm(tensor({300, 1000}), tensor({520, 1000}), std::nullopt, 1.0f,
                      std::nullopt, kTransposeB, options);
    });
  };
  EXPECT_EQ(error(scaled(tensor({300, 8}, DType::Float32), tensor({520}, DType::Float32))),
            "quantization scales: block scales of a need block scales of b (1 x 128 blocks of "
            "A with 128 x 128 blocks of B), got b of shape [520]");
  EXPECT_EQ(error(scaled(std::nullopt, tensor({5, 8}, DType::Float32))),
            "quantization scales: block scales of b need block scales of a (1 x 128 blocks of "
            "A with 128 x 128 blocks of B), got a of shape (none)");
  mepi::Options fast = scaled(tensor({300, 8}, DType::Float32), tensor({5, 8}, DType::Float32));
  fast.fastAccumulation = true;
  EXPECT_EQ(error(fast),
            "quantization scales: block scales need promoted sums, got fastAccumulation");
  EXPECT_EQ(error(scaled(tensor({300, 7}, DType::Float32), tensor({5, 8}, DType::Float32))),
            "quantization scale a: expected shape [] or [1] or [300] (M: one per row of D) or "
            "[300, 8] (M, ceil(K / 128): one per row and block of 128 elements of K), got "
            "[300, 7]");
}

TEST(Fp8Api, BlockScalesPlanTilesCrossingOneBlockOfColumnsAtMost) {
  mepi::Tensor sa = tensor({2000, 9}, DType::Float32);
  sa.strides = {1, 2000}; // M-major, as torch hands 1 x 128 scales to cuBLASLt
  mepi::Options options = scaled(sa, tensor({24, 9}, DType::Float32), tensor({}, DType::Float32));
  options.resultAmax = true;
  // 2000 x 3000 x 1040 takes 128 x 192 tiles, whose columns cross a block of 128 in every
  // other tile: B's two factors.
  mepi::Matmul mm(tensor({2000, 1040}), tensor({3000, 1040}, DType::Float8E5M2), std::nullopt,
                  1.0f, std::nullopt, kTransposeB, options);
  mepi::EpilogInputs inputs;
  inputs.bias = tensor({2000}, DType::BFloat16);
  ASSERT_EQ(errorOf([&] { mm.plan(mepi::Epilog::GeluBias, inputs); }), "");
  std::string config = mm.kernelConfiguration();
  EXPECT_NE(config.find("promote = 1"), std::string::npos) << config;
  // 96 columns: some tiles would span three blocks.
  mepi::Options narrow = options;
  narrow.kernelConfig =
      "#mepi.kernel_config<wgmma, tile = [128, 96, 128], mainloop = <stages = 4, promote = 1>>";
  mepi::Matmul forced(tensor({2000, 1040}), tensor({3000, 1040}, DType::Float8E5M2),
                      std::nullopt, 1.0f, std::nullopt, kTransposeB, narrow);
  EXPECT_NE(errorOf([&] { forced.plan(); }).find("block scales need promote = 1 over k-steps of "
                                                 "128 elements and tile_n dividing 128 or a "
                                                 "multiple of 64 up to 256"),
            std::string::npos);
}

// MX block scaling (MXFP8, emulated): uint8 e8m0 scales of A and B in cuBLASLt's interleaved
// layout are checked by size, type and place; the problem plans a bf16 GEMM over the
// pre-passes' copies (their MLIR compiled for sm_90a here); what it does not take is refused.
TEST(Fp8Api, MxBlockScalingPlansABf16GemmOverScaledCopies) {
  auto mx = [](std::optional<mepi::Tensor> a, std::optional<mepi::Tensor> b) {
    mepi::Options options = scaled(std::move(a), std::move(b));
    options.blockScaling = true;
    options.arch = "sm_90a";
    return options;
  };
  // 300 x 200 x 1000: A's scales 384 rows x 32 blocks (of ceil(1000 / 32) = 32), B's 256 x 32.
  mepi::Tensor sa = tensor({384 * 32}, DType::UInt8), sb = tensor({256 * 32}, DType::UInt8);
  mepi::Matmul mm(tensor({300, 1000}), tensor({200, 1000}, DType::Float8E5M2), std::nullopt,
                  1.0f, std::nullopt, kTransposeB, mx(sa, sb));
  mepi::EpilogInputs inputs;
  inputs.bias = tensor({300}, DType::BFloat16);
  ASSERT_EQ(errorOf([&] { mm.plan(mepi::Epilog::GeluBias, inputs); }), "");
  std::string config = mm.kernelConfiguration();
  EXPECT_NE(config.find(", 64]"), std::string::npos) << config; // a 16-bit k-step of 64
  EXPECT_EQ(config.find("promote"), std::string::npos) << config;
  auto error = [&](mepi::Options options, DType result = DType::BFloat16) {
    options.resultType = result;
    return errorOf([&] {
      mepi::Matmul bad(tensor({300, 1000}), tensor({200, 1000}), std::nullopt, 1.0f,
                       std::nullopt, kTransposeB, options);
    });
  };
  EXPECT_EQ(error(mx(tensor({384 * 31}, DType::UInt8), sb)),
            "quantization scale a: expected 12288 contiguous bytes (cuBLASLt's interleaved "
            "layout of 300 rows x 32 blocks of 32 elements of K, padded to 128 x 4), got shape "
            "[11904]");
  EXPECT_EQ(error(mx(sa, tensor({256 * 32}, DType::Float32))),
            "quantization scale b: expected uint8 (e8m0) scales with block scaling, got f32");
  EXPECT_EQ(error(mx(sa, std::nullopt)),
            "quantization scale b: block scaling (MXFP8) needs the e8m0 scales of both A and B");
  EXPECT_EQ(error(mx(sa, sb), DType::Float8E4M3FN),
            "block scaling (MXFP8): expected D of 16 or 32 bits and no scale d (an 8-bit D's "
            "block scales are not produced yet)");
  mepi::Options offHopper = mx(sa, sb);
  offHopper.arch = "sm_80";
  mepi::Matmul elsewhere(tensor({300, 1000}), tensor({200, 1000}), std::nullopt, 1.0f,
                         std::nullopt, kTransposeB, offHopper);
  EXPECT_NE(errorOf([&] { elsewhere.plan(); })
                .find("plan: block scaling (MXFP8) runs emulated on sm_90a only"),
            std::string::npos);
}
