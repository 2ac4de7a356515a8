// Strict f32 through split operands (3xTF32), without a GPU: which problems split, the layouts
// the GEMM then reads, and the pre-pass kernel lowering to PTX for sm_90a.
#include "Runtime/Planner.h"
#include "Runtime/SplitOperand.h"

#include <gtest/gtest.h>

using namespace mepi::runtime;

namespace {
OperandLayout f32(std::vector<int64_t> shape) {
  return {ElementType::F32, shape, rowMajorStrides(shape)};
}

MatmulProblem f32Problem(std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t> d,
                         bool transA, bool transB, std::string epilog = "DEFAULT") {
  MatmulProblem p;
  p.a = f32(a);
  p.b = f32(b);
  p.d = f32(d);
  p.transposeA = transA;
  p.transposeB = transB;
  p.epilog = epilog;
  return p;
}
} // namespace

TEST(SplitOperand, SplitsStrictF32IntoKMajorParts) {
  // A [M, K] row-major, B [K, N] row-major (N-major): K = 1000 pads to 1024 per part.
  std::optional<SplitProblem> s =
      splitProblem(f32Problem({300, 1000}, {1000, 200}, {300, 200}, false, false));
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->a->kLast);
  EXPECT_FALSE(s->b->kLast);
  EXPECT_EQ(s->a->rows, 300);
  EXPECT_EQ(s->b->rows, 200);
  EXPECT_EQ(s->a->paddedK, 1024);
  EXPECT_EQ(s->planned.a.shape, (std::vector<int64_t>{300, 3072}));
  EXPECT_EQ(s->planned.b.shape, (std::vector<int64_t>{200, 3072}));
  EXPECT_FALSE(s->planned.transposeA);
  EXPECT_TRUE(s->planned.transposeB);
  EXPECT_TRUE(s->planned.allowTF32);
  EXPECT_EQ(s->a->loPart, 0);
  EXPECT_EQ(s->b->loPart, 1);
  EXPECT_EQ(s->a->grid(), (std::array<unsigned, 3>{32, 10, 1}));
}

TEST(SplitOperand, KeepsBatchesAndBroadcastOperands) {
  // A [3, M, K] against one B [N, K] (transposed): A' batched, B' 2-D.
  std::optional<SplitProblem> s =
      splitProblem(f32Problem({3, 65, 40}, {33, 40}, {3, 65, 33}, false, true));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->a->batch, 3);
  EXPECT_EQ(s->a->batchStride, 65 * 40);
  EXPECT_EQ(s->planned.a.shape, (std::vector<int64_t>{3, 65, 192}));
  EXPECT_EQ(s->planned.b.shape, (std::vector<int64_t>{33, 192}));
  EXPECT_EQ(s->b->batch, 1);
}

TEST(SplitOperand, LeavesOtherProblemsAlone) {
  MatmulProblem tf32 = f32Problem({64, 64}, {64, 64}, {64, 64}, false, false);
  tf32.allowTF32 = true;
  EXPECT_FALSE(splitProblem(tf32).has_value());
  MatmulProblem bf16 = f32Problem({64, 64}, {64, 64}, {64, 64}, false, false);
  bf16.a.type = bf16.b.type = ElementType::BF16;
  EXPECT_FALSE(splitProblem(bf16).has_value());
  // Bias gradients of A are sums over A's elements, not over its split parts.
  EXPECT_FALSE(
      splitProblem(f32Problem({64, 64}, {64, 64}, {64, 64}, true, false, "BGRADA")).has_value());
  EXPECT_FALSE(
      splitProblem(f32Problem({2, 2, 8, 8}, {8, 8}, {2, 2, 8, 8}, false, false)).has_value());
}

TEST(SplitOperand, PrePassLowersToPtx) {
  // Both load orders: K last (A) and K first (an N-major B), with a batch.
  std::optional<SplitProblem> s =
      splitProblem(f32Problem({2, 70, 45}, {2, 45, 33}, {2, 70, 33}, false, false));
  ASSERT_TRUE(s.has_value());
  for (const SplitPlan *plan : {&*s->a, &*s->b}) {
    llvm::Expected<CompiledModule> compiled = compileKernelModule(splitKernelIR(*plan), "sm_90a");
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError()) << "\n"
                                << splitKernelIR(*plan);
    EXPECT_NE(compiled->ptx.find(".entry mepi_split_tf32"), std::string::npos);
    EXPECT_FALSE(compiled->cubin.empty());
  }
  EXPECT_NE(splitKernelIR(*s->a).find("[%bz, %r, %k] : memref<2x70x45xf32, strided<[3150, 45, "
                                     "1]>>"),
            std::string::npos);
  EXPECT_NE(splitKernelIR(*s->b).find("[%bz, %k, %r] : memref<2x45x33xf32, strided<[1485, 33, "
                                     "1]>>"),
            std::string::npos);
}

TEST(SplitOperand, CandidatesBoundWhatOneAccumulatorSums) {
  // 3 x 16384 products of each output: 1536 k-steps. Each candidate promotes its accumulators
  // every kSplitPromoteKSteps k-steps (those come first), or, where it cannot hold the second
  // set (a 64-row slice of more than 128 columns), has at most 96 a unit: 16 splits or more.
  std::optional<SplitProblem> s =
      splitProblem(f32Problem({2048, 16384}, {2048, 16384}, {2048, 2048}, false, true));
  ASSERT_TRUE(s.has_value());
  llvm::Expected<std::vector<std::string>> ranked =
      rankedKernelConfigs(s->planned, "sm_90a", kSplitMaxUnitKSteps);
  ASSERT_TRUE(bool(ranked)) << llvm::toString(ranked.takeError());
  ASSERT_FALSE(ranked->empty());
  std::string promoted = "promote = " + std::to_string(kSplitPromoteKSteps);
  EXPECT_NE(ranked->front().find(promoted), std::string::npos) << ranked->front();
  bool splitSeen = false;
  for (const std::string &config : *ranked) {
    if (config.find(promoted) != std::string::npos) {
      EXPECT_FALSE(splitSeen) << "a promoted candidate after a split one: " << config;
      continue;
    }
    splitSeen = true;
    size_t at = config.find("splits = ");
    ASSERT_NE(at, std::string::npos) << config;
    EXPECT_GE(std::stoi(config.substr(at + 9)), 16) << config;
    EXPECT_EQ(config.find("cluster = 2"), std::string::npos) << config;
    EXPECT_EQ(config.find("pingpong = true"), std::string::npos) << config;
  }
  EXPECT_TRUE(splitSeen) << "no 128 x 256 candidate split instead";
  // Without the bound the heuristic's own choice accumulates all of K in one unit.
  llvm::Expected<std::vector<std::string>> unbounded = rankedKernelConfigs(s->planned, "sm_90a");
  ASSERT_TRUE(bool(unbounded));
  EXPECT_EQ(unbounded->front().find("splits"), std::string::npos) << unbounded->front();
}

TEST(SplitOperand, CopiesMnMajorFp8OperandsKMajor) {
  // A given as [K, M] and B as [K, N] (e4m3): both copied K-major, rows padded to 32 bytes.
  MatmulProblem p = f32Problem({1000, 300}, {1000, 200}, {300, 200}, true, false);
  p.a.type = p.b.type = ElementType::F8E4M3FN;
  p.d.type = ElementType::BF16;
  EXPECT_FALSE(splitProblem(p).has_value());
  std::optional<SplitProblem> s = kMajorProblem(p);
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE(s->a && s->b);
  EXPECT_EQ(s->a->parts, 1);
  EXPECT_EQ(s->a->rows, 300);
  EXPECT_EQ(s->a->paddedK, 1024);
  EXPECT_EQ(s->planned.a.shape, (std::vector<int64_t>{300, 1000}));
  EXPECT_EQ(s->planned.a.strides, (std::vector<int64_t>{1024, 1}));
  EXPECT_EQ(s->planned.a.type, ElementType::F8E4M3FN);
  EXPECT_EQ(s->planned.b.shape, (std::vector<int64_t>{200, 1000}));
  EXPECT_FALSE(s->planned.transposeA);
  EXPECT_TRUE(s->planned.transposeB);
  EXPECT_FALSE(s->planned.allowTF32);
  // Only the MN-major one is copied; K-major pairs are left alone.
  p.transposeA = false;
  p.a.shape = {300, 1000};
  p.a.strides = rowMajorStrides(p.a.shape);
  s = kMajorProblem(p);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->a.has_value());
  EXPECT_TRUE(s->b.has_value());
  p.transposeB = true;
  p.b.shape = {200, 1000};
  p.b.strides = rowMajorStrides(p.b.shape);
  EXPECT_FALSE(kMajorProblem(p).has_value());
  // A column-major A [M, K] (strides [1, M]) is MN-major too.
  p.a.strides = {1, 300};
  s = kMajorProblem(p);
  ASSERT_TRUE(s && s->a && !s->b);
  EXPECT_EQ(s->planned.a.strides, (std::vector<int64_t>{1024, 1}));
  // 16-bit operands are not copied (wgmma reads them MN-major).
  MatmulProblem bf16 = f32Problem({64, 64}, {64, 64}, {64, 64}, true, false);
  bf16.a.type = bf16.b.type = ElementType::BF16;
  EXPECT_FALSE(kMajorProblem(bf16).has_value());
}

TEST(SplitOperand, KMajorCopyLowersToPtx) {
  MatmulProblem p = f32Problem({2, 45, 70}, {45, 33}, {2, 70, 33}, true, false);
  p.a.type = p.b.type = ElementType::F8E5M2;
  std::optional<SplitProblem> s = kMajorProblem(p);
  ASSERT_TRUE(s && s->a && s->b);
  for (const SplitPlan *plan : {&*s->a, &*s->b}) {
    std::string ir = splitKernelIR(*plan);
    EXPECT_EQ(ir.find("%hi"), std::string::npos) << ir; // a copy, no TF32 split
    llvm::Expected<CompiledModule> compiled = compileKernelModule(ir, "sm_90a");
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError()) << "\n" << ir;
    EXPECT_NE(compiled->ptx.find(".entry mepi_kmajor_copy"), std::string::npos);
  }
  EXPECT_NE(splitKernelIR(*s->a).find("[%bz, %k, %r] : memref<2x45x70xi8, strided<[3150, 70, "
                                      "1]>>"),
            std::string::npos);
  EXPECT_NE(splitKernelIR(*s->a).find("memref<2x70x64xi8>"), std::string::npos);
}

TEST(SplitOperand, FewRowsKMajorInPlaceSplitInTheKernel) {
  alignas(16) static float buffer[8];
  const void *aligned = buffer, *offset = buffer + 1;
  // 16 rows, A [M, K] and B [N, K] with K contiguous, rows of 4096 f32, 16-byte aligned.
  MatmulProblem p = f32Problem({16, 4096}, {8192, 4096}, {16, 8192}, false, true);
  EXPECT_TRUE(splitsInKernel(p, aligned, aligned));
  // More rows than the 64-row kernels' short-M form: the pre-pass.
  EXPECT_FALSE(splitsInKernel(f32Problem({129, 4096}, {8192, 4096}, {129, 8192}, false, true),
                              aligned, aligned));
  // B given as [K, N], A given as [K, M], or B off 16 bytes: TMA cannot read them K-major in
  // place.
  EXPECT_FALSE(splitsInKernel(f32Problem({16, 4096}, {4096, 8192}, {16, 8192}, false, false),
                              aligned, aligned));
  EXPECT_FALSE(splitsInKernel(f32Problem({4096, 16}, {8192, 4096}, {16, 8192}, true, true),
                              aligned, aligned));
  EXPECT_FALSE(splitsInKernel(p, aligned, offset));
  // Rows of 4098 f32 (8 bytes past a multiple of 16), TF32 allowed, operand sums.
  EXPECT_FALSE(splitsInKernel(f32Problem({16, 4098}, {8192, 4098}, {16, 8192}, false, true),
                              aligned, aligned));
  MatmulProblem tf32 = p;
  tf32.allowTF32 = true;
  EXPECT_FALSE(splitsInKernel(tf32, aligned, aligned));
  EXPECT_FALSE(splitsInKernel(f32Problem({16, 4096}, {8192, 4096}, {16, 8192}, false, true,
                                         "BGRADB"),
                              aligned, aligned));
}

// Strict f32, K-major, planned as it is (the in-kernel split): the wgmma kernel of 64-row
// tiles, one consumer, whose stages the kernel splits into TF32 parts.
TEST(SplitOperand, InKernelSplitPlansOneConsumerTiles) {
  MatmulProblem p = f32Problem({16, 4096}, {8192, 4096}, {16, 8192}, false, true);
  p.addressAlignment = 16;
  llvm::Expected<CompiledKernel> kernel = compileProblem(p, "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->config.rfind("#mepi.kernel_config<wgmma, tile = [64, ", 0), 0u)
      << kernel->config;
  EXPECT_TRUE(kernel->persistent);
}
