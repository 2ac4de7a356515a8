// The built-in epilogs' aux outputs and reductions as the planner lays them out (nvmath's
// layouts, FP8 aux types with their scale and amax), the checks on them, and every built-in
// epilog compiled to a cubin; no GPU is needed.
#include "PlannerProblems.h"

#include <gtest/gtest.h>

using namespace mepi::runtime;

namespace {
/// An output's key and layout (type, shape and strides).
void expectOutput(const NamedLayout &out, const std::string &key, ElementType type,
                  const std::vector<int64_t> &shape, const std::vector<int64_t> &strides) {
  EXPECT_EQ(out.key, key);
  EXPECT_EQ(out.layout.type, type) << key;
  EXPECT_EQ(out.layout.shape, shape) << key;
  EXPECT_EQ(out.layout.strides, strides) << key;
}
} // namespace

TEST(Planner, AuxOutputsHaveNvmathLayouts) {
  // RELU_AUX: a bit per element, M = 100 -> 13 bytes per column, padded to 16.
  llvm::Expected<std::vector<NamedLayout>> relu =
      epilogOutputLayouts(problem(ElementType::BF16, 100, 30, 64, "RELU_AUX_BIAS"));
  ASSERT_TRUE(bool(relu)) << llvm::toString(relu.takeError());
  ASSERT_EQ(relu->size(), 1u);
  expectOutput((*relu)[0], "relu_aux", ElementType::U8, {16, 30}, colMajor(16));
  // GELU_AUX: D's type, M padded to 8.
  llvm::Expected<std::vector<NamedLayout>> gelu =
      epilogOutputLayouts(problem(ElementType::F16, 100, 30, 64, "GELU_AUX"));
  ASSERT_TRUE(bool(gelu)) << llvm::toString(gelu.takeError());
  EXPECT_EQ((*gelu)[0].layout.type, ElementType::F16);
  EXPECT_EQ((*gelu)[0].layout.shape, (std::vector<int64_t>{104, 30}));
  EXPECT_EQ((*gelu)[0].layout.strides, colMajor(104));
  // A larger column stride (options.auxLeadingDimension, in rows): bits of the mask, elements
  // of the GELU input; at least the smallest, in whole granules.
  MatmulProblem strided = problem(ElementType::BF16, 100, 30, 64, "RELU_AUX_BIAS");
  strided.auxLeadingDimension = 256;
  llvm::Expected<std::vector<NamedLayout>> wide = epilogOutputLayouts(strided);
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  EXPECT_EQ((*wide)[0].layout.shape, (std::vector<int64_t>{16, 30}));
  EXPECT_EQ((*wide)[0].layout.strides, colMajor(32));
  strided.auxLeadingDimension = 200;
  EXPECT_EQ(llvm::toString(epilogOutputLayouts(strided).takeError()),
            "options.auxLeadingDimension: expected a multiple of 128 of at least 128 (M = 100 "
            "rounded up) for the aux output 'relu_aux', got 200");
  strided = problem(ElementType::F16, 100, 30, 64, "GELU_AUX");
  strided.auxLeadingDimension = 112;
  wide = epilogOutputLayouts(strided);
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  EXPECT_EQ((*wide)[0].layout.strides, colMajor(112));
  strided.auxLeadingDimension = 96;
  EXPECT_EQ(llvm::toString(epilogOutputLayouts(strided).takeError()),
            "options.auxLeadingDimension: expected a multiple of 8 of at least 104 (M = 100 "
            "rounded up) for the aux output 'gelu_aux', got 96");
  // DGELU_BGRAD: the bias gradient in D's type, one per row; result_amax one f32 after it.
  MatmulProblem backward = problem(ElementType::BF16, 100, 30, 64, "DGELU_BGRAD");
  backward.resultAmax = true;
  llvm::Expected<std::vector<NamedLayout>> grads = epilogOutputLayouts(backward);
  ASSERT_TRUE(bool(grads)) << llvm::toString(grads.takeError());
  ASSERT_EQ(grads->size(), 2u);
  EXPECT_EQ((*grads)[0].key, "dgelu_bgrad");
  EXPECT_EQ((*grads)[0].layout.shape, (std::vector<int64_t>{100}));
  EXPECT_EQ((*grads)[1].key, "result_amax");
  EXPECT_EQ((*grads)[1].layout.type, ElementType::F32);
  EXPECT_TRUE((*grads)[1].layout.shape.empty());

  // BGRADA / BGRADB: one sum per row of op(A) (M) / column of op(B) (N), in D's type, after
  // the reductions.
  for (const char *name : {"BGRADA", "BGRADB"}) {
    MatmulProblem p = problem(ElementType::F16, 100, 30, 64, name, true, false);
    p.resultAmax = true;
    llvm::Expected<std::vector<NamedLayout>> sums = epilogOutputLayouts(p);
    ASSERT_TRUE(bool(sums)) << llvm::toString(sums.takeError());
    ASSERT_EQ(sums->size(), 2u);
    EXPECT_EQ((*sums)[0].key, "result_amax");
    EXPECT_EQ((*sums)[1].key, std::string(name) == "BGRADA" ? "bgrada" : "bgradb");
    EXPECT_EQ((*sums)[1].layout.type, ElementType::F16);
    EXPECT_EQ((*sums)[1].layout.shape,
              (std::vector<int64_t>{std::string(name) == "BGRADA" ? 100 : 30}));
  }
}

// An 8-bit matmul's gelu_aux: bf16 by default with an 8-bit D; with an 8-bit auxType, M padded
// to 16 rows, the value times its scale, and max |aux| as gelu_aux_amax after result_amax.
TEST(Planner, Fp8GeluAuxHasItsOwnTypeScaleAndAmax) {
  MatmulProblem p = problem(ElementType::F8E4M3FN, 100, 32, 128, "GELU_AUX", false, true);
  llvm::Expected<std::vector<NamedLayout>> plain = epilogOutputLayouts(p);
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  EXPECT_EQ((*plain)[0].layout.type, ElementType::BF16);
  EXPECT_EQ((*plain)[0].layout.shape, (std::vector<int64_t>{104, 32}));

  p.auxType = ElementType::F8E4M3FN;
  p.auxAmax = p.resultAmax = true;
  p.builtinInputs = {{"aux_quantization_scale", layout(ElementType::F32, {})}};
  llvm::Expected<std::vector<NamedLayout>> outputs = epilogOutputLayouts(p);
  ASSERT_TRUE(bool(outputs)) << llvm::toString(outputs.takeError());
  ASSERT_EQ(outputs->size(), 3u);
  expectOutput((*outputs)[0], "gelu_aux", ElementType::F8E4M3FN, {112, 32}, colMajor(112));
  EXPECT_EQ((*outputs)[1].key, "result_amax");
  EXPECT_EQ((*outputs)[2].key, "gelu_aux_amax");
  EXPECT_EQ((*outputs)[2].layout.type, ElementType::F32);
  EXPECT_TRUE((*outputs)[2].layout.shape.empty());
  p.auxLeadingDimension = 120;
  EXPECT_EQ(llvm::toString(epilogOutputLayouts(p).takeError()),
            "options.auxLeadingDimension: expected a multiple of 16 of at least 112 (M = 100 "
            "rounded up) for the aux output 'gelu_aux', got 120");
  p.auxLeadingDimension = 128;
  p.addressAlignment = 16; // TMA may read A and B: the wgmma kernel
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE(kernel->config.find("<wgmma"), std::string::npos) << kernel->config;
  // The aux: z * scale rounded to e4m3 into a column-major block of 128 rows; two amaxes.
  const std::string &ir = kernel->plannedIR;
  EXPECT_NE(ir.find("memref<112x32xf8E4M3FN, strided<[1, 128]>>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.truncf %"), std::string::npos) << ir;
  EXPECT_NE(ir.find("to f8E4M3FN"), std::string::npos) << ir;
  size_t first = ir.find("math.absf"), second = ir.find("math.absf", first + 1);
  EXPECT_NE(second, std::string::npos) << ir;
  // Rows of D not 16-byte multiples: the aux's elements stored one by one (FP8 runs on the
  // wgmma kernels only).
  MatmulProblem odd = problem(ElementType::F8E4M3FN, 99, 30, 160, "GELU_AUX_BIAS", false, true);
  odd.builtinInputs = {{"bias", layout(ElementType::BF16, {99})},
                       {"aux_quantization_scale", layout(ElementType::F32, {})}};
  odd.auxType = ElementType::F8E5M2;
  odd.auxAmax = true;
  odd.addressAlignment = 16;
  llvm::Expected<CompiledKernel> oddKernel = compileProblem(odd, "sm_90a");
  ASSERT_TRUE(bool(oddKernel)) << llvm::toString(oddKernel.takeError());
  EXPECT_NE(oddKernel->config.find("<wgmma"), std::string::npos) << oddKernel->config;
  EXPECT_NE(oddKernel->plannedIR.find("memref<112x30xf8E5M2"), std::string::npos)
      << oddKernel->plannedIR;
}

TEST(Planner, AuxPreferencesAreCheckedAgainstTheEpilogAndTheTypes) {
  MatmulProblem p = problem(ElementType::F8E4M3FN, 64, 32, 128, "GELU_AUX", false, true);
  p.auxType = ElementType::F8E5M2;
  EXPECT_EQ(errorOf(p), "options.auxType f8e5m2: an 8-bit gelu_aux needs the epilog input "
                        "'aux_quantization_scale' (f32, one value)");
  p.builtinInputs = {{"aux_quantization_scale", layout(ElementType::F32, {2})}};
  EXPECT_EQ(errorOf(p), "epilog input 'aux_quantization_scale': expected f32 of shape [] or "
                        "[1], got f32 of rank 1");
  p.auxType = ElementType::F16;
  p.builtinInputs = {{"aux_quantization_scale", layout(ElementType::F32, {})}};
  EXPECT_EQ(errorOf(p), "epilog input 'aux_quantization_scale': expected only with an 8-bit "
                        "options.auxType, got gelu_aux of type f16");
  p.builtinInputs.clear();
  p.auxAmax = true;
  EXPECT_EQ(errorOf(p), "options.auxAmax: expected an 8-bit options.auxType (the amax of a "
                        "quantized gelu_aux), got gelu_aux of type f16");
  p.auxAmax = false;
  EXPECT_EQ(errorOf(p), ""); // an f16 aux beside an 8-bit D
  p.epilog = "RELU_AUX";
  EXPECT_EQ(errorOf(p), "options.auxType, options.auxAmax and the epilog input "
                        "'aux_quantization_scale' are for the gelu_aux that GELU_AUX and "
                        "GELU_AUX_BIAS write; epilog RELU_AUX writes none");
  MatmulProblem bf16 = problem(ElementType::BF16, 64, 32, 128, "GELU_AUX");
  bf16.auxType = ElementType::F8E4M3FN;
  EXPECT_EQ(errorOf(bf16), "options.auxType: expected D's type bf16 (other aux types need 8-bit "
                           "A and B), got f8e4m3fn");
  MatmulProblem backward = problem(ElementType::F8E4M3FN, 64, 32, 128, "DGELU", false, true);
  backward.builtinInputs = {{"gelu_aux", {ElementType::BF16, {64, 32}, colMajor(64)}}};
  EXPECT_EQ(errorOf(backward), ""); // the bf16 aux GELU_AUX writes beside an 8-bit D
  // The bias gradient beside an 8-bit D: bf16.
  backward.epilog = "DGELU_BGRAD";
  llvm::Expected<std::vector<NamedLayout>> outputs = epilogOutputLayouts(backward);
  ASSERT_TRUE(bool(outputs)) << llvm::toString(outputs.takeError());
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ((*outputs)[0].key, "dgelu_bgrad");
  EXPECT_EQ((*outputs)[0].layout.type, ElementType::BF16);
  EXPECT_EQ((*outputs)[0].layout.shape, (std::vector<int64_t>{64}));
  EXPECT_EQ(errorOf(backward), "");
}

TEST(Planner, BackwardInputsMustHaveTheForwardLayout) {
  MatmulProblem p = problem(ElementType::BF16, 100, 30, 64, "DRELU_BGRAD");
  p.builtinInputs = {{"relu_aux", {ElementType::U8, {13, 30}, colMajor(13)}}};
  EXPECT_EQ(errorOf(p), "epilog input 'relu_aux': expected u8 shape [16, 30] strides [1, 16] "
                        "(the layout the forward epilog writes; a column stride of at least "
                        "16), got u8 shape [13, 30] strides [1, 13]");
  // A block of rows of a larger mask (a larger column stride) is read where it lies; a
  // smaller stride or rows not contiguous are refused.
  p.builtinInputs = {{"relu_aux", {ElementType::U8, {16, 30}, colMajor(48)}}};
  EXPECT_EQ(errorOf(p), "");
  llvm::Expected<CompiledKernel> strided = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(strided)) << llvm::toString(strided.takeError());
  p.builtinInputs = {{"relu_aux", {ElementType::U8, {16, 30}, colMajor(8)}}};
  EXPECT_NE(errorOf(p).find("got u8 shape [16, 30] strides [1, 8]"), std::string::npos);
  p.builtinInputs = {{"relu_aux", {ElementType::U8, {16, 30}, {2, 64}}}};
  EXPECT_NE(errorOf(p).find("got u8 shape [16, 30] strides [2, 64]"), std::string::npos);
  MatmulProblem g = problem(ElementType::BF16, 100, 30, 64, "DGELU");
  g.builtinInputs = {{"gelu_aux", layout(ElementType::BF16, {104, 30})}};
  EXPECT_NE(errorOf(g).find("expected bf16 shape [104, 30] strides [1, 104]"), std::string::npos)
      << errorOf(g);
}

/// Every built-in epilog plans, verifies and compiles to a cubin (the planned IR declares its
/// aux outputs and reductions), on the simt family (A column-major) and on the wgmma family
/// (B row-major or B^T: the bitmask packing and the reductions of its staged epilog).
class EveryEpilog : public ::testing::TestWithParam<const char *> {};
TEST_P(EveryEpilog, Compiles) {
  std::string name = GetParam();
  for (int variant : {0, 1, 2}) {
    bool simt = variant == 0, kMajorB = variant == 2;
    SCOPED_TRACE(simt ? "simt" : kMajorB ? "wgmma B^T" : "wgmma B");
    MatmulProblem p = problem(ElementType::BF16, 100, 30, 64, name, false, kMajorB);
    if (simt)
      p.a.strides = colMajor(100);
    if (name.rfind("DRELU", 0) == 0)
      p.builtinInputs = {{"relu_aux", {ElementType::U8, {16, 30}, colMajor(16)}}};
    if (name.rfind("DGELU", 0) == 0)
      p.builtinInputs = {{"gelu_aux", {ElementType::BF16, {104, 30}, colMajor(104)}}};
    p.resultAmax = true;
    llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_FALSE(kernel->cubin.empty());
    EXPECT_NE(kernel->plannedIR.find("reduce("), std::string::npos) << kernel->plannedIR;
    EXPECT_NE(kernel->config.find(simt ? "<simt" : "<wgmma"), std::string::npos)
        << kernel->config;
    EXPECT_GT(kernel->workspaceBytes, 0); // the amax completes across blocks
    if (name.rfind("BGRAD", 0) == 0) { // BGRADA / BGRADB: the op's a_sums / b_sums
      EXPECT_NE(kernel->plannedIR.find(name == "BGRADA" ? "a_sums(" : "b_sums("),
                std::string::npos)
          << kernel->plannedIR;
    }
    if (name.find("_AUX") != std::string::npos) {
      EXPECT_NE(kernel->plannedIR.find("aux("), std::string::npos) << kernel->plannedIR;
    }
  }
}
INSTANTIATE_TEST_SUITE_P(Catalog, EveryEpilog,
                         ::testing::Values("RELU_AUX", "RELU_AUX_BIAS", "GELU_AUX",
                                           "GELU_AUX_BIAS", "DRELU", "DRELU_BGRAD", "DGELU",
                                           "DGELU_BGRAD", "BGRADA", "BGRADB"));
