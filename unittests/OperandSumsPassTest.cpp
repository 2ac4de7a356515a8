// The bias gradients of 8-bit operands (BGRADA, BGRADB), without a GPU: which problems take
// the pass, how it reads the operand and its scale, its parameters, and its module lowering
// to PTX for sm_90a with every scale form.
#include "Runtime/OperandSumsPass.h"
#include "Runtime/Planner.h"

#include <gtest/gtest.h>

#include <regex>

using namespace mepi::runtime;
using Scale = OperandSumsKernel::Scale;

namespace {
/// An fp8 problem m x n x k as the GEMM reads it: A [m, k], B [n, k] (transposed: K-major),
/// rows padded to 16 bytes at 16-byte aligned addresses (as staged for TMA), D bf16 [m, n].
MatmulProblem fp8Problem(int64_t m, int64_t n, int64_t k, const std::string &epilog) {
  MatmulProblem p;
  int64_t pitch = (k + 15) / 16 * 16;
  p.a = {ElementType::F8E4M3FN, {m, k}, {pitch, 1}};
  p.b = {ElementType::F8E5M2, {n, k}, {pitch, 1}};
  p.addressAlignment = 16;
  p.transposeB = true;
  p.d = {ElementType::BF16, {m, n}, {n, 1}};
  p.epilog = epilog;
  return p;
}

OperandSumsPlan planned(const MatmulProblem &p) {
  llvm::Expected<std::optional<OperandSumsPlan>> plan = planOperandSums(p, p);
  EXPECT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  EXPECT_TRUE(plan && plan->has_value());
  return plan && *plan ? **plan : OperandSumsPlan{};
}
} // namespace

TEST(OperandSumsPass, WhichProblems) {
  EXPECT_TRUE(sumsOperandsApart(fp8Problem(64, 32, 128, "BGRADA")));
  EXPECT_TRUE(sumsOperandsApart(fp8Problem(64, 32, 128, "BGRADB")));
  EXPECT_FALSE(sumsOperandsApart(fp8Problem(64, 32, 128, "DEFAULT")));
  MatmulProblem bf16 = fp8Problem(64, 32, 128, "BGRADA");
  bf16.a.type = bf16.b.type = ElementType::BF16;
  EXPECT_FALSE(sumsOperandsApart(bf16));
  llvm::Expected<std::optional<OperandSumsPlan>> none = planOperandSums(bf16, bf16);
  ASSERT_TRUE(bool(none));
  EXPECT_FALSE(none->has_value());
  // bgrada's place among the epilog's outputs: the kernel does not take it.
  EXPECT_EQ(sumsOutputApart(fp8Problem(64, 32, 128, "BGRADA")), std::optional<size_t>(0));
  EXPECT_EQ(sumsOutputApart(bf16), std::nullopt);
  // Grouped problems (no operand sums) and more than one batch dimension are refused.
  MatmulProblem batched = fp8Problem(64, 32, 128, "BGRADB");
  batched.a = {ElementType::F8E4M3FN, {2, 3, 64, 128}, {24576, 8192, 128, 1}};
  batched.b = {ElementType::F8E4M3FN, {2, 3, 32, 128}, {12288, 4096, 128, 1}};
  batched.d = {ElementType::BF16, {2, 3, 64, 32}, {6144, 2048, 32, 1}};
  llvm::Expected<std::optional<OperandSumsPlan>> refused = planOperandSums(batched, batched);
  ASSERT_FALSE(bool(refused));
  EXPECT_EQ(llvm::toString(refused.takeError()),
            "epilog BGRADB: the bias gradient of 8-bit A and B (their operand sums) takes at "
            "most one batch dimension, got D of rank 4");
  // Rows the pass cannot read 16 bytes at a time (the GEMM's TMA would have staged them).
  MatmulProblem unaligned = fp8Problem(64, 32, 1000, "BGRADA");
  unaligned.a.strides = {1000, 1};
  llvm::Expected<std::optional<OperandSumsPlan>> rows = planOperandSums(unaligned, unaligned);
  ASSERT_FALSE(bool(rows));
  EXPECT_EQ(llvm::toString(rows.takeError()),
            "epilog BGRADA: the summed 8-bit operand's rows are not 16-byte aligned (address "
            "alignment 16, row pitch 1000 bytes)");
}

TEST(OperandSumsPass, ScalesAndLayouts) {
  // No scale: A's rows, bf16 sums of M values.
  MatmulProblem p = fp8Problem(300, 40, 1000, "BGRADA");
  OperandSumsPlan plan = planned(p);
  EXPECT_TRUE(plan.ofA);
  EXPECT_EQ(plan.outputKey, "bgrada");
  EXPECT_EQ(plan.kernel.scale, Scale::None);
  EXPECT_EQ(plan.kernel.operand, ElementType::F8E4M3FN);
  EXPECT_EQ(plan.kernel.out, ElementType::BF16);
  EXPECT_EQ(plan.out.shape, std::vector<int64_t>{300});
  EXPECT_EQ(plan.grid(), 300u); // a block per row
  EXPECT_EQ(plan.parameters(0x1000, 0, 0x9000),
            (std::vector<int64_t>{0x1000, 0x1000, 0, 1, 300, 1000, 0, 1008, 1, 0x9000, 0x9000,
                                  0, 300, 1}));
  // A's scale: one value, one per row, one per row and block of 128 elements of K.
  p.builtinInputs = {{"a_scale", {ElementType::F32, {}, {}}}};
  EXPECT_EQ(planned(p).kernel.scale, Scale::Tensor);
  p.builtinInputs = {{"a_scale", {ElementType::F32, {300}, {1}}}};
  plan = planned(p);
  EXPECT_EQ(plan.kernel.scale, Scale::Row);
  EXPECT_EQ(plan.scaleInput, std::optional<size_t>(0));
  EXPECT_EQ(plan.scales.shape, (std::vector<int64_t>{300, 1}));
  p.builtinInputs = {{"b_scale", {ElementType::F32, {}, {}}},
                     {"a_scale", {ElementType::F32, {300, 8}, {8, 1}}}};
  plan = planned(p);
  EXPECT_EQ(plan.kernel.scale, Scale::BlockRow);
  EXPECT_EQ(plan.scaleInput, std::optional<size_t>(1));
  EXPECT_EQ(plan.parameters(0x1000, 0x5000, 0x9000),
            (std::vector<int64_t>{0x1000, 0x1000, 0, 1, 300, 1000, 0, 1008, 1, 0x5000, 0x5000, 0,
                                  300, 8, 8, 1, 0x9000, 0x9000, 0, 300, 1}));
  // B's rows (D's columns): its e5m2 values, its 128 x 128 blocks' scales.
  MatmulProblem q = fp8Problem(300, 40, 1000, "BGRADB");
  q.builtinInputs = {{"a_scale", {ElementType::F32, {300, 8}, {8, 1}}},
                     {"b_scale", {ElementType::F32, {1, 8}, {8, 1}}}};
  plan = planned(q);
  EXPECT_FALSE(plan.ofA);
  EXPECT_EQ(plan.outputKey, "bgradb");
  EXPECT_EQ(plan.kernel.operand, ElementType::F8E5M2);
  EXPECT_EQ(plan.kernel.scale, Scale::Block128);
  EXPECT_EQ(plan.operand.shape, (std::vector<int64_t>{1, 40, 1000}));
}

TEST(OperandSumsPass, BatchedRows) {
  // One batch dimension: a block per row of every element, the rows' scales shared by the
  // elements; B given once for all of them (broadcast: batch stride 0), A per element.
  MatmulProblem p = fp8Problem(300, 40, 1000, "BGRADB");
  p.a = {ElementType::F8E4M3FN, {3, 300, 1000}, {300 * 1008, 1008, 1}};
  p.d = {ElementType::BF16, {3, 300, 40}, {12000, 40, 1}};
  p.builtinInputs = {{"b_scale", {ElementType::F32, {40}, {1}}}};
  OperandSumsPlan plan = planned(p);
  EXPECT_EQ(plan.operand.shape, (std::vector<int64_t>{3, 40, 1000}));
  EXPECT_EQ(plan.operand.strides, (std::vector<int64_t>{0, 1008, 1}));
  EXPECT_EQ(plan.out.shape, std::vector<int64_t>{120}); // [3, 40] in order
  EXPECT_EQ(plan.grid(), 120u);
  EXPECT_EQ(plan.kernel.scale, Scale::Row);
  p.epilog = "BGRADA";
  p.builtinInputs = {{"a_scale", {ElementType::F32, {}, {}}}};
  plan = planned(p);
  EXPECT_EQ(plan.operand.strides, (std::vector<int64_t>{300 * 1008, 1008, 1}));
  EXPECT_EQ(plan.parameters(0x1000, 0x5000, 0x9000),
            (std::vector<int64_t>{0x1000, 0x1000, 0, 3, 300, 1000, 300 * 1008, 1008, 1, 0x5000,
                                  0x5000, 0, 1, 1, 1, 1, 0x9000, 0x9000, 0, 900, 1}));
  // A batch element's rows must start on 16 bytes too.
  p.a.strides = {300 * 1008 + 8, 1008, 1};
  llvm::Expected<std::optional<OperandSumsPlan>> misaligned = planOperandSums(p, p);
  ASSERT_FALSE(bool(misaligned));
  EXPECT_NE(llvm::toString(misaligned.takeError()).find("rows are not 16-byte aligned"),
            std::string::npos);
}

TEST(OperandSumsPass, LowersToPtx) {
  // Every scale form, both 8-bit types (hardware conversions), f32 or rounded stores.
  for (Scale scale : {Scale::None, Scale::Tensor, Scale::Row, Scale::BlockRow, Scale::Block128})
    for (ElementType operand : {ElementType::F8E4M3FN, ElementType::F8E5M2}) {
      OperandSumsKernel kernel{operand, scale, ElementType::BF16};
      if (scale == Scale::Row)
        kernel.out = ElementType::F32;
      std::string ir = operandSumsKernelIR(kernel);
      llvm::Expected<CompiledModule> compiled = compileKernelModule(ir, "sm_90a");
      ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError()) << "\n" << ir;
      const std::string &ptx = compiled->ptx;
      EXPECT_NE(ptx.find(".entry mepi_operand_sums("), std::string::npos);
      // 16 bytes a lane at once in the whole steps.
      EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(ld\.global(\.nc)?\.v4\.[bu]32)"))) << ptx;
      std::string cvt = operand == ElementType::F8E4M3FN ? "e4m3x2" : "e5m2x2";
      EXPECT_NE(ptx.find("cvt.rn.f16x2." + cvt), std::string::npos) << ptx;
      EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(shfl\.sync\.bfly)"))) << ptx;
      EXPECT_EQ(std::regex_search(ptx, std::regex(R"(mul\.(rn\.)?f32)")), scale != Scale::None);
      EXPECT_EQ(ptx.find("cvt.rn.bf16.f32") != std::string::npos, kernel.out == ElementType::BF16);
      // Past the whole steps, a block at a time: 4 byte loads a lane, 32 apart.
      std::regex byteLoad(R"(ld\.global(\.nc)?\.[bu]8)");
      auto loads = std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), byteLoad),
                                 std::sregex_iterator());
      EXPECT_EQ(loads, 4) << ptx;
      EXPECT_FALSE(compiled->cubin.empty());
    }
}
