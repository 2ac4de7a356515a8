// Planning through cubin without a GPU: a matrix of problems compiled for sm_90a, and the errors
// a bad problem gets.
#include "PlannerProblems.h"
#include "Runtime/Planner.h"
#include "mepi/IR/MepiDialect.h"
#include "mepi/Sm90/Sm90CostModel.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/MathExtras.h"

#include <gtest/gtest.h>

#include <array>

using namespace mepi::runtime;

namespace {
bool isElf(const std::vector<char> &image) {
  return image.size() > 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' &&
         image[3] == 'F';
}
} // namespace

TEST(Planner, PlansBiasAsPerRowInput) {
  llvm::Expected<std::string> ir = planModule(problem(ElementType::BF16, 17, 33, 65, "RELU_BIAS"));
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("mepi.matmul"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("as row : memref<17xbf16>"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("arith.maximumf"), std::string::npos) << *ir;
}

// A batch folded into the rows with one bias for all its elements (FoldBatch.h) reads the bias
// at the row within the element; a bias shorter than M is otherwise an error (below).
TEST(Planner, CyclicBiasIsACyclicRowInput) {
  MatmulProblem p = problem(ElementType::BF16, 3 * 20, 33, 65, "GELU_BIAS");
  p.builtinInputs = {{"bias", layout(ElementType::BF16, {20})}};
  p.cyclicBias = true;
  llvm::Expected<std::string> ir = planModule(p);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("as cyclic_row : memref<20xbf16>"), std::string::npos) << *ir;
  p.cyclicBias = false;
  EXPECT_NE(errorOf(p).find("expected epilog input 0 (row) to have shape [batch..., 60]"),
            std::string::npos)
      << errorOf(p);
}

// FP8 with C and the product's scales applied in the epilog: the op takes no C of its own (its
// acc is alpha A B), the epilog reads C and beta as its first inputs and adds beta * sC * C
// after sA and sB; with block scales alone (the main loop's) C stays the op's.
TEST(Planner, Fp8CAfterTheProductsScales) {
  MatmulProblem p = problem(ElementType::F8E4M3FN, 64, 32, 128, "DEFAULT", false, true);
  p.d = layout(ElementType::BF16, {64, 32});
  p.c = layout(ElementType::BF16, {64, 32});
  p.builtinInputs = {{"a_scale", layout(ElementType::F32, {})},
                     {"b_scale", layout(ElementType::F32, {32})},
                     {"c_scale", layout(ElementType::F32, {})}};
  llvm::Expected<std::string> ir = planModule(p);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_EQ(ir->find("beta("), std::string::npos) << *ir;
  EXPECT_NE(ir->find("inputs(%arg3 as matrix : memref<64x32xbf16>, %arg4 as scalar : f32, "
                     "%arg5 as scalar : memref<f32>, %arg6 as col : memref<32xf32>, %arg7 as "
                     "scalar : memref<f32>)"),
            std::string::npos)
      << *ir;
  // The region's arguments: acc, c, beta, sA, sB, sC, row, col.
  for (const char *line : {"%0 = arith.mulf %arg9, %arg12", "%1 = arith.mulf %0, %arg13",
                           "%2 = arith.extf %arg10 : bf16 to f32", "%3 = arith.mulf %arg11, %2",
                           "%4 = arith.mulf %3, %arg14", "%5 = arith.addf %1, %4"})
    EXPECT_NE(ir->find(line), std::string::npos) << line << "\n" << *ir;

  p.builtinInputs = {{"a_scale", layout(ElementType::F32, {64, 1})},
                     {"b_scale", layout(ElementType::F32, {1, 1})}};
  ir = planModule(p);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("block_scales("), std::string::npos) << *ir;
  EXPECT_EQ(ir->find("as matrix"), std::string::npos) << *ir;
}

/// A grouped problem (2-D x 3-D): T rows of A in S groups, B [S, K, N], group ends i32 [S].
MatmulProblem groupedProblem(int64_t t, int64_t n, int64_t k, int64_t s, std::string epilog) {
  MatmulProblem p;
  p.a = layout(ElementType::BF16, {t, k});
  p.b = layout(ElementType::BF16, {s, k, n});
  p.d = layout(ElementType::BF16, {t, n});
  p.epilog = epilog;
  GroupOperands groups;
  groups.bounds = layout(ElementType::I32, {s});
  p.groups = groups;
  return p;
}

TEST(Planner, GroupedBiasIsPerColumnOfEachGroup) {
  MatmulProblem p = groupedProblem(1000, 96, 64, 6, "GELU_BIAS");
  p.builtinInputs.push_back({"bias", layout(ElementType::BF16, {6, 96})});
  llvm::Expected<std::string> ir = planModule(p);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("as col : memref<6x96xbf16>"), std::string::npos) << *ir;
  p.builtinInputs = {{"bias", layout(ElementType::BF16, {96})}}; // one for every group
  ir = planModule(p);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("as col : memref<96xbf16>"), std::string::npos) << *ir;
  p.builtinInputs = {{"bias", layout(ElementType::BF16, {1000})}}; // the dense form's length
  EXPECT_NE(errorOf(p), "");
  // The ReLU mask's bytes hold 8 rows, which two groups' tiles would both write.
  EXPECT_NE(errorOf(groupedProblem(1000, 96, 64, 6, "RELU_AUX")).find("no bitmask aux outputs"),
            std::string::npos);
}

struct CompileCase {
  ElementType type;
  int64_t m, n, k;
  const char *epilog;
  bool transA, transB;
};

class PlannerCompile : public ::testing::TestWithParam<CompileCase> {};

TEST_P(PlannerCompile, ProducesAnSm90aCubin) {
  const CompileCase &c = GetParam();
  llvm::Expected<CompiledKernel> kernel =
      compileProblem(problem(c.type, c.m, c.n, c.k, c.epilog, c.transA, c.transB), "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_TRUE(isElf(kernel->cubin));
  EXPECT_NE(kernel->ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(kernel->ptx.find(".entry " + kernel->kernelName), std::string::npos);
  EXPECT_EQ(kernel->ptx.find("__nv_"), std::string::npos) << "unresolved libdevice call";
  EXPECT_GT(kernel->tile[0] * kernel->tile[1], 0);
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, PlannerCompile,
    ::testing::Values(CompileCase{ElementType::F16, 1, 1, 1, "DEFAULT", false, false},
                      CompileCase{ElementType::BF16, 17, 33, 65, "BIAS", false, false},
                      CompileCase{ElementType::F32, 127, 129, 255, "RELU", true, false},
                      CompileCase{ElementType::F16, 127, 129, 255, "RELU_BIAS", false, true},
                      CompileCase{ElementType::BF16, 1000, 1000, 1000, "GELU", true, true},
                      CompileCase{ElementType::F32, 64, 48, 32, "GELU_BIAS", false, false}));

TEST(Planner, MismatchedKIsAClearError) {
  MatmulProblem p = problem(ElementType::F16, 8, 8, 16, "DEFAULT");
  p.b = layout(ElementType::F16, {12, 8});
  EXPECT_NE(errorOf(p).find("expected op(a) and op(b) to agree on K, got 16 and 12"),
            std::string::npos)
      << errorOf(p);
}

TEST(Planner, WrongBiasLengthNamesTheInput) {
  MatmulProblem p = problem(ElementType::F16, 8, 4, 16, "BIAS");
  p.builtinInputs = {{"bias", layout(ElementType::F16, {4})}};
  EXPECT_NE(errorOf(p).find("expected epilog input 0 (row) to have shape [batch..., 8]"),
            std::string::npos)
      << errorOf(p);
}

TEST(Planner, UnsupportedTypeCombination) {
  MatmulProblem p = problem(ElementType::F16, 8, 8, 8, "DEFAULT");
  p.b.type = ElementType::BF16;
  EXPECT_NE(errorOf(p).find("unsupported operand element types 'f16' x 'bf16'"),
            std::string::npos)
      << errorOf(p);
}

TEST(Planner, EpilogInputsMustMatchTheEpilog) {
  MatmulProblem missing = problem(ElementType::F32, 8, 8, 8, "BIAS");
  missing.builtinInputs.clear();
  EXPECT_EQ(errorOf(missing), "epilog BIAS expects epilog input 'bias'");
  MatmulProblem extra = problem(ElementType::F32, 8, 8, 8, "RELU");
  extra.builtinInputs = {{"bias", layout(ElementType::F32, {8})}};
  EXPECT_EQ(errorOf(extra), "epilog RELU takes no epilog input 'bias'");
  MatmulProblem wrongKey = problem(ElementType::F32, 8, 8, 8, "DRELU");
  wrongKey.builtinInputs = {{"gelu_aux", layout(ElementType::F32, {8, 8})}};
  EXPECT_EQ(errorOf(wrongKey), "epilog DRELU takes no epilog input 'gelu_aux', only 'relu_aux'");
  MatmulProblem unknown = problem(ElementType::F32, 8, 8, 8, "SWISH");
  EXPECT_NE(errorOf(unknown).find("unknown epilog 'SWISH'"), std::string::npos);
}

TEST(Planner, TF32IsAnOptInForF32OperandsOnly) {
  MatmulProblem f32 = problem(ElementType::F32, 8, 8, 8, "DEFAULT");
  f32.allowTF32 = true;
  llvm::Expected<std::string> ir = planModule(f32);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("compute = #mepi.compute<fast_tf32>"), std::string::npos) << *ir;
  MatmulProblem f16 = problem(ElementType::F16, 8, 8, 8, "DEFAULT");
  f16.allowTF32 = true;
  llvm::Expected<std::string> ir16 = planModule(f16);
  ASSERT_TRUE(bool(ir16)) << llvm::toString(ir16.takeError());
  EXPECT_EQ(ir16->find("compute"), std::string::npos) << *ir16;
  llvm::Expected<std::string> plain = planModule(problem(ElementType::F32, 8, 8, 8, "DEFAULT"));
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  EXPECT_EQ(plain->find("compute"), std::string::npos) << *plain;
}

namespace {
const char *kSiluMlir = R"mlir(
  func.func @sigmoid(%x: f32) -> f32 {
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %x : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %s = arith.divf %one, %den : f32
    return %s : f32
  }
  func.func @silu(%acc: f32, %row: index, %col: index) -> bf16 {
    %s = func.call @sigmoid(%acc) : (f32) -> f32
    %y = arith.mulf %acc, %s : f32
    %t = arith.truncf %y : f32 to bf16
    return %t : bf16
  }
)mlir";

MatmulProblem userProblem(const char *mlir, const char *function) {
  MatmulProblem p = problem(ElementType::BF16, 17, 33, 65, "DEFAULT");
  p.userEpilog = UserEpilogSource{mlir, function};
  return p;
}
} // namespace

TEST(PlannerUserEpilog, MlirTextIsInlinedNoCallInPTX) {
  llvm::Expected<CompiledKernel> kernel = compileProblem(userProblem(kSiluMlir, "silu"), "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE(kernel->plannedIR.find("func.call @silu"), std::string::npos) << kernel->plannedIR;
  EXPECT_EQ(kernel->ptx.find("call"), std::string::npos) << "the user epilog must be inlined";
  EXPECT_NE(kernel->ptx.find("ex2.approx"), std::string::npos) << "exp of the sigmoid";
  EXPECT_TRUE(isElf(kernel->cubin));
}

TEST(PlannerUserEpilog, InputsAreTypedByTheirElements) {
  const char *mlir = R"mlir(
    func.func @scale_add(%acc: f32, %scale: f32, %res: bf16, %row: index, %col: index) -> bf16 {
      %r = arith.extf %res : bf16 to f32
      %y = math.fma %acc, %scale, %r : f32
      %t = arith.truncf %y : f32 to bf16
      return %t : bf16
    }
  )mlir";
  MatmulProblem p = userProblem(mlir, "scale_add");
  p.userInputs = {{{ElementType::F32, {17}, {1}}, InputKind::Row},
                  {{ElementType::BF16, {17, 33}, {33, 1}}, InputKind::Matrix}};
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE(kernel->plannedIR.find("as row : memref<17xf32>"), std::string::npos);
  EXPECT_NE(kernel->plannedIR.find("as matrix : memref<17x33xbf16>"), std::string::npos);
  // No promise about the matrix input's address: its argument carries none.
  EXPECT_EQ(kernel->plannedIR.find("%arg4: memref<17x33xbf16> {mepi.alignment"),
            std::string::npos)
      << kernel->plannedIR;
  // A promised address (Matmul: what the tensor's pointer allows) goes on its argument, so that
  // the wgmma epilog loads its element pairs at once.
  p.userInputs[1].alignment = 16;
  llvm::Expected<std::string> ir = planModule(p);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("%arg4: memref<17x33xbf16> {mepi.alignment = 16 : i64}"), std::string::npos)
      << *ir;
}

TEST(PlannerUserEpilog, SignatureMustMatchTheProblem) {
  MatmulProblem p = userProblem(kSiluMlir, "silu");
  p.userInputs = {{{ElementType::F32, {17}, {1}}, InputKind::Row}};
  EXPECT_EQ(errorOf(p), "user epilog @silu: expected type (f32, f32, index, index) -> bf16 for "
                        "this problem, got (f32, index, index) -> bf16");
}

TEST(PlannerUserEpilog, ParseErrorsAndMissingFunctions) {
  std::string e = errorOf(userProblem("func.func @f(", "f"));
  EXPECT_NE(e.find("user epilog: cannot parse the MLIR text:"), std::string::npos) << e;
  EXPECT_EQ(errorOf(userProblem(kSiluMlir, "swish")),
            "user epilog: expected a func.func @swish with a body in the MLIR text, got none");
  EXPECT_EQ(errorOf(userProblem("func.func @mepi_matmul(%a: f32) { return }\n"
                                "func.func @f(%acc: f32, %r: index, %c: index) -> bf16 {\n"
                                "  %t = arith.truncf %acc : f32 to bf16\n  return %t : bf16\n}",
                                "f")),
            "user epilog: the symbol @mepi_matmul is reserved");
}

// User MLIR holds element-wise code only (func, arith, math, scf.if, the llvm reads of user
// data), and a bounded amount of it: anything else is named with its location.
TEST(PlannerUserEpilog, OnlyElementWiseOperationsAndABoundedAmount) {
  std::string e = errorOf(userProblem(
      "func.func @f(%acc: f32, %r: index, %c: index) -> bf16 {\n"
      "  %m = memref.alloc() : memref<4xf32>\n"
      "  %t = arith.truncf %acc : f32 to bf16\n  return %t : bf16\n}",
      "f"));
  EXPECT_NE(e.find("user epilog: 'memref.alloc' at line 2:8 is not"), std::string::npos) << e;
  EXPECT_NE(e.find("is not element-wise epilog code"), std::string::npos) << e;
  std::string withModule = "gpu.module @m {}\n" + std::string(kSiluMlir);
  EXPECT_NE(errorOf(userProblem(withModule.c_str(), "silu")).find("'gpu.module'"),
            std::string::npos);
  std::string big = "func.func @f(%acc: f32, %r: index, %c: index) -> bf16 {\n";
  for (int i = 0; i < 10001; ++i)
    big += "  %x" + std::to_string(i) + " = arith.addf %acc, %acc : f32\n";
  big += "  %t = arith.truncf %acc : f32 to bf16\n  return %t : bf16\n}";
  EXPECT_EQ(errorOf(userProblem(big.c_str(), "f")),
            "user epilog: more than 10000 operations, the most an epilog may inline");
}

TEST(Planner, ActivationEpilogsBeyondNvmath) {
  for (const char *name : {"SIGMOID", "TANH", "SILU"}) {
    llvm::Expected<CompiledKernel> kernel =
        compileProblem(problem(ElementType::F16, 17, 33, 65, name), "sm_90a");
    ASSERT_TRUE(bool(kernel)) << name << ": " << llvm::toString(kernel.takeError());
    EXPECT_NE(kernel->plannedIR.find(std::string(name) == "TANH" ? "math.tanh" : "math.exp"),
              std::string::npos)
        << kernel->plannedIR;
    EXPECT_EQ(kernel->ptx.find("__nv_"), std::string::npos) << "libdevice must be linked";
  }
}

TEST(Planner, GeluIsOneExpNotTanh) {
  // 0.5 x (1 + tanh(u)) computed as x / (1 + exp(-2u)): no libdevice tanhf in the kernel.
  llvm::Expected<CompiledKernel> kernel =
      compileProblem(problem(ElementType::BF16, 17, 33, 65, "GELU"), "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE(kernel->plannedIR.find("math.exp"), std::string::npos) << kernel->plannedIR;
  EXPECT_EQ(kernel->plannedIR.find("math.tanh"), std::string::npos) << kernel->plannedIR;
}

// 16-bit K-major operands at 16-byte aligned addresses get the wgmma family on sm_90a, with the
// launch the runtime needs (persistent 384-thread blocks in clusters of 2, dynamic shared
// memory, TMA descriptors for a and b, B's box half the tile: each block of the cluster loads
// half, and one for D's TMA stores); without the alignment promise they get the SIMT kernel.
TEST(Planner, WgmmaLaunchShapeAndTensorMaps) {
  MatmulProblem p = problem(ElementType::BF16, 4096, 4096, 8192, "GELU_BIAS", false, true);
  p.addressAlignment = 16;
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->config, "#mepi.kernel_config<wgmma, tile = [128, 256, 64], "
                            "mainloop = <stages = 4, cluster = 2>, "
                            "epilogue = <store = tma>>");
  EXPECT_TRUE(kernel->persistent);
  EXPECT_EQ(kernel->cluster, 2);
  EXPECT_EQ(kernel->block, (std::array<int64_t, 3>{384, 1, 1}));
  EXPECT_GT(kernel->sharedBytes, 4 * (128 + 256) * 128);
  ASSERT_EQ(kernel->tensorMaps.size(), 3u);
  EXPECT_EQ(kernel->tensorMaps[0].argument, 0u);
  EXPECT_EQ(kernel->tensorMaps[0].box, (std::array<int64_t, 2>{64, 128}));
  EXPECT_EQ(kernel->tensorMaps[1].argument, 1u);
  EXPECT_EQ(kernel->tensorMaps[1].box, (std::array<int64_t, 2>{64, 128}));
  EXPECT_EQ(kernel->tensorMaps[1].swizzle, 128);
  // D's, for the TMA stores: argument 4 (after a, b, alpha and the bias), 64 columns by 64 rows.
  EXPECT_EQ(kernel->tensorMaps[2].argument, 4u);
  EXPECT_EQ(kernel->tensorMaps[2].box, (std::array<int64_t, 2>{64, 64}));
  EXPECT_EQ(kernel->tensorMaps[2].swizzle, 128);
  EXPECT_TRUE(isElf(kernel->cubin));

  // K = 4096 or less (over 16 k-steps): 256 x 128 tiles, 4 stages, no cluster; ping-pong 128 x
  // 128 tiles, 6 stages, when the epilog has special ops (GELU: an exp and a division per
  // element).
  MatmulProblem shortK = problem(ElementType::BF16, 4096, 4096, 2048, "BIAS", false, true);
  shortK.addressAlignment = 16;
  llvm::Expected<CompiledKernel> tall = compileProblem(shortK, "sm_90a");
  ASSERT_TRUE(bool(tall)) << llvm::toString(tall.takeError());
  EXPECT_EQ(tall->config, "#mepi.kernel_config<wgmma, tile = [256, 128, 64], "
                          "mainloop = <stages = 4>, "
                          "epilogue = <store = tma>>");
  EXPECT_EQ(tall->block, (std::array<int64_t, 3>{384, 1, 1}));
  EXPECT_EQ(tall->cluster, 1);
  shortK.epilog = "GELU_BIAS";
  llvm::Expected<CompiledKernel> tallGelu = compileProblem(shortK, "sm_90a");
  ASSERT_TRUE(bool(tallGelu)) << llvm::toString(tallGelu.takeError());
  EXPECT_EQ(tallGelu->config, "#mepi.kernel_config<wgmma, tile = [128, 128, 64], "
                              "mainloop = <stages = 6, pingpong = true>, "
                              "epilogue = <store = tma>>");
  EXPECT_EQ(tallGelu->block, (std::array<int64_t, 3>{384, 1, 1}));

  // Addresses aligned to 8 bytes only: the producer loads with ordinary loads, no descriptors.
  p.addressAlignment = 8;
  llvm::Expected<CompiledKernel> loads = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(loads)) << llvm::toString(loads.takeError());
  EXPECT_EQ(loads->config, "#mepi.kernel_config<wgmma, tile = [128, 256, 64], "
                           "mainloop = <stages = 4, tma = false>, "
                           "epilogue = <store = registers>>");
  EXPECT_TRUE(loads->persistent);
  EXPECT_TRUE(loads->tensorMaps.empty());

  // f32 B given as [K, N]: wgmma reads 32-bit operands K-major only (SplitOperandTest: K-major).
  MatmulProblem f32 = problem(ElementType::F32, 256, 256, 256, "DEFAULT", false, false);
  f32.addressAlignment = 16;
  llvm::Expected<CompiledKernel> simt = compileProblem(f32, "sm_90a");
  ASSERT_TRUE(bool(simt)) << llvm::toString(simt.takeError());
  EXPECT_EQ(simt->config.rfind("#mepi.kernel_config<simt", 0), 0u) << simt->config;
  EXPECT_FALSE(simt->persistent);
}

// Mirrors: the last arguments (after a, b, alpha, bias, D: 5, 6), tensor maps like D's.
TEST(Planner, MirrorsTakeTheLastArgumentsAndTensorMapsLikeD) {
  MatmulProblem p = problem(ElementType::BF16, 4096, 4096, 8192, "GELU_BIAS", false, true);
  p.addressAlignment = 16;
  p.mirrors = 2;
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE(kernel->plannedIR.find("mirrors(%arg5, %arg6 : "), std::string::npos);
  ASSERT_EQ(kernel->tensorMaps.size(), 5u) << kernel->config;
  for (unsigned i : {2u, 3u, 4u})
    EXPECT_EQ(kernel->tensorMaps[i].argument, i + 2);
}

TEST(Planner, StagedOperandsGiveTmaTheirRows) {
  // K = 4099: an 8198-byte pitch, no multiple of 16; staged rows are padded to 4104 elements.
  OperandLayout odd = layout(ElementType::BF16, {4095, 4099});
  alignas(16) static char memory[32];
  EXPECT_TRUE(needsTmaStaging(odd, memory));
  OperandLayout staged = stagedLayout(odd);
  EXPECT_EQ(staged.shape, odd.shape);
  EXPECT_EQ(staged.strides, (std::vector<int64_t>{4104, 1}));
  EXPECT_FALSE(needsTmaStaging(staged, memory));
  // An aligned pitch at an address 2 bytes past 16: staged, with the pitch kept.
  OperandLayout even = layout(ElementType::F16, {300, 256});
  EXPECT_TRUE(needsTmaStaging(even, memory + 2));
  EXPECT_FALSE(needsTmaStaging(even, memory));
  EXPECT_EQ(stagedLayout(even).strides, even.strides);
  // Only 16-bit operands with contiguous rows (what the tensor-core kernels read).
  EXPECT_FALSE(needsTmaStaging(layout(ElementType::F32, {33, 33}), memory));
  OperandLayout columnMajor{ElementType::BF16, {33, 33}, {1, 33}};
  EXPECT_FALSE(needsTmaStaging(columnMajor, memory));
  EXPECT_FALSE(needsTmaStaging(layout(ElementType::BF16, {2, 33, 33}), memory));

  // The staged problem plans TMA loads with the padded pitch.
  MatmulProblem p = problem(ElementType::BF16, 4095, 4097, 4099, "GELU_BIAS", false, true);
  p.a = stagedLayout(p.a);
  p.b = stagedLayout(p.b);
  p.addressAlignment = 16;
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->tensorMaps.size(), 2u) << kernel->config;
  EXPECT_EQ(kernel->config.find("tma = false"), std::string::npos) << kernel->config;
}

TEST(Planner, SplitKForFewTilesWithLongK) {
  // 128 x 4096 x 14336: 64 tiles of 64 x 128, 224 k-steps: 2 splits; B (112 MiB) is larger
  // than half of L2, so the two tile rows pair up in clusters of 2 sharing B's tile: 64 work
  // units of a pair each. The workspace holds 64 counters (one a block, padded to 256 bytes)
  // and 64 x 2 partial tiles of f32.
  MatmulProblem p = problem(ElementType::BF16, 128, 4096, 14336, "DEFAULT", false, true);
  p.addressAlignment = 16;
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->config, "#mepi.kernel_config<wgmma, tile = [64, 128, 64], "
                            "mainloop = <stages = 8, cluster = 2>, "
                            "scheduler = <split_k, splits = 2>>");
  EXPECT_EQ(kernel->workUnits, 64);
  EXPECT_EQ(kernel->workspaceBytes, 256 + 64 * 2 * 64 * 128 * 4);
  EXPECT_EQ(kernel->tensorMaps.size(), 2u);

  // On a device of 114 multiprocessors the 64 tiles already fill more than half of them: no
  // split (TargetInfo from the device, not the reference part's 132); whole units of one
  // consumer store D through TMA (oneConsumerTmaStores).
  MatmulProblem smaller = p;
  smaller.multiprocessors = 114;
  llvm::Expected<CompiledKernel> unsplit = compileProblem(smaller, "sm_90a");
  ASSERT_TRUE(bool(unsplit)) << llvm::toString(unsplit.takeError());
  EXPECT_EQ(unsplit->config, "#mepi.kernel_config<wgmma, tile = [64, 128, 64], "
                             "mainloop = <stages = 8>, epilogue = <store = tma>>");
  EXPECT_EQ(unsplit->workUnits, 64);
  EXPECT_EQ(unsplit->workspaceBytes, 0);

  // Enough tiles: no split, no workspace.
  MatmulProblem big = problem(ElementType::BF16, 4096, 4096, 1024, "DEFAULT", false, true);
  big.addressAlignment = 16;
  llvm::Expected<CompiledKernel> whole = compileProblem(big, "sm_90a");
  ASSERT_TRUE(bool(whole)) << llvm::toString(whole.takeError());
  // One work unit per tile (per cluster's pair of tiles).
  EXPECT_EQ(whole->workUnits * whole->cluster * whole->tile[0] * whole->tile[1], 4096 * 4096)
      << whole->config;
  EXPECT_EQ(whole->workspaceBytes, 0);
}

TEST(Planner, ForcedKernelConfig) {
  MatmulProblem p = problem(ElementType::F16, 300, 500, 200, "DEFAULT", false, true);
  p.addressAlignment = 16;
  p.kernelConfig = "#mepi.kernel_config<wgmma, tile = [64, 64, 64], "
                   "mainloop = <stages = 8>>";
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->config, p.kernelConfig);
  EXPECT_EQ(kernel->block[0], 256); // one producer and one consumer warpgroup

  p.kernelConfig = "wgmma please";
  EXPECT_NE(errorOf(p).find("options.kernelConfig: expected a #mepi.kernel_config<...>, got "
                            "'wgmma please'"),
            std::string::npos)
      << errorOf(p);
  // A configuration the problem cannot use fails to plan, with the reason.
  p.kernelConfig = "#mepi.kernel_config<wgmma, tile = [64, 64, 64], "
                   "mainloop = <stages = 8>>";
  p.transposeB = false;
  p.b = {ElementType::F16, {200, 500}, {1, 200}}; // column-major: no contiguous rows
  llvm::Expected<CompiledKernel> wrong = compileProblem(p, "sm_90a");
  ASSERT_FALSE(bool(wrong));
  std::string why = llvm::toString(wrong.takeError());
  EXPECT_NE(why.find("wgmma kernels need A and B with contiguous rows"), std::string::npos)
      << why;
}

/// Column-major [rows, cols] strides.
// Outputs are returned in declared order; the op takes the aux outputs first, then reductions.
TEST(PlannerUserEpilog, OutputsBesidesD) {
  const char *mlir = R"mlir(
    func.func @f(%acc: f32, %row: index, %col: index) -> (bf16, f32, bf16, i1) {
      %zero = arith.constant 0.0 : f32
      %t = arith.truncf %acc : f32 to bf16
      %pos = arith.cmpf ogt, %acc, %zero : f32
      return %t, %acc, %t, %pos : bf16, f32, bf16, i1
    }
  )mlir";
  MatmulProblem p = userProblem(mlir, "f");
  p.userEpilog->outputs = {{"row_sum", OutputKind::RowReduction, ElementType::F32},
                           {"pre", OutputKind::Matrix, ElementType::BF16},
                           {"mask", OutputKind::Bitmask, ElementType::U8}};
  llvm::Expected<std::vector<NamedLayout>> outputs = epilogOutputLayouts(p);
  ASSERT_TRUE(bool(outputs)) << llvm::toString(outputs.takeError());
  ASSERT_EQ(outputs->size(), 3u);
  EXPECT_EQ((*outputs)[0].key, "pre");
  EXPECT_EQ((*outputs)[0].layout.shape, (std::vector<int64_t>{17, 33}));
  EXPECT_EQ((*outputs)[1].key, "mask");
  EXPECT_EQ((*outputs)[1].layout.shape, (std::vector<int64_t>{16, 33})) << "cuBLASLt's mask";
  EXPECT_EQ((*outputs)[2].key, "row_sum");
  EXPECT_EQ((*outputs)[2].layout.shape, (std::vector<int64_t>{17}));
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE(kernel->plannedIR.find("aux(%arg4 as matrix : memref<17x33xbf16>, %arg5 as bitmask"),
            std::string::npos)
      << kernel->plannedIR;
  EXPECT_NE(kernel->plannedIR.find("reduce(%arg6 as row add : memref<17xf32>)"),
            std::string::npos)
      << kernel->plannedIR;

  p.userEpilog->outputs.pop_back();
  EXPECT_EQ(errorOf(p), "user epilog @f: expected type (f32, index, index) -> (bf16, f32, bf16) "
                        "for this problem, got (f32, index, index) -> (bf16, f32, bf16, i1)");
  p.userEpilog->outputs.push_back({"pre", OutputKind::Matrix, ElementType::BF16});
  EXPECT_EQ(errorOf(p), "user epilog output 'pre' declared twice");
  p.userEpilog->outputs.back() = {"pre8", OutputKind::Matrix, ElementType::U8};
  EXPECT_EQ(errorOf(p), "user epilog output 'pre8': expected type f16, bf16 or f32, got u8");
}

// User data: one more i64 argument after the inputs, read here through the LLVM dialect (the
// address of two f32 parameters) and inlined like the rest of the epilog.
TEST(PlannerUserEpilog, UserDataIsAnI64Argument) {
  const char *mlir = R"mlir(
    func.func @affine(%acc: f32, %user: i64, %row: index, %col: index) -> bf16 {
      %p = llvm.inttoptr %user : i64 to !llvm.ptr<1>
      %scale = llvm.load %p invariant : !llvm.ptr<1> -> f32
      %q = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      %shift = llvm.load %q invariant : !llvm.ptr<1> -> f32
      %y = math.fma %acc, %scale, %shift : f32
      %t = arith.truncf %y : f32 to bf16
      return %t : bf16
    }
  )mlir";
  MatmulProblem p = userProblem(mlir, "affine");
  p.userEpilog->userData = true;
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_NE(kernel->plannedIR.find("as scalar : i64"), std::string::npos) << kernel->plannedIR;
  EXPECT_EQ(kernel->ptx.find("call"), std::string::npos);
  p.userEpilog->userData = false;
  EXPECT_EQ(errorOf(p), "user epilog @affine: expected type (f32, index, index) -> bf16 for this "
                        "problem, got (f32, i64, index, index) -> bf16");
}

// Sizes past 32 bits (issue 24): D of more than 2^31 elements and 65536 batch elements compile
// to wgmma kernels (D's offsets are 64-bit); a dimension past the kernels' 32-bit indices (TMA
// coordinates) is an error that names the limit.
TEST(Planner, SizesPastThirtyTwoBits) {
  llvm::Expected<CompiledKernel> wide =
      compileProblem(problem(ElementType::BF16, 65536, 65536, 64, "DEFAULT"), "sm_90a");
  ASSERT_TRUE(bool(wide)) << llvm::toString(wide.takeError());
  EXPECT_NE(wide->config.find("wgmma"), std::string::npos) << wide->config;
  EXPECT_EQ(wide->workUnits, (65536 / wide->tile[0]) * (65536 / wide->tile[1])) << wide->config;

  MatmulProblem batched = problem(ElementType::BF16, 64, 64, 64, "DEFAULT");
  batched.addressAlignment = 16; // TMA may read them (batched wgmma kernels need it)
  for (OperandLayout *l : {&batched.a, &batched.b, &batched.d}) {
    l->shape.insert(l->shape.begin(), 65536);
    l->strides = rowMajorStrides(l->shape);
  }
  llvm::Expected<CompiledKernel> many = compileProblem(batched, "sm_90a");
  ASSERT_TRUE(bool(many)) << llvm::toString(many.takeError());
  EXPECT_EQ(many->workUnits,
            65536 * llvm::divideCeil(64, many->tile[0]) * llvm::divideCeil(64, many->tile[1]))
      << many->config;

  llvm::Expected<CompiledKernel> tall = compileProblem(
      problem(ElementType::BF16, (int64_t(1) << 31) + 64, 64, 64, "DEFAULT"), "sm_90a");
  ASSERT_FALSE(bool(tall));
  EXPECT_NE(llvm::toString(tall.takeError())
                .find("wgmma kernels take M, N and K of at most 2^31 - 1 (32-bit TMA "
                      "coordinates and indices), got 2147483712 x 64 x 64"),
            std::string::npos);
}
