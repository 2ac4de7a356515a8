// DistUserEpilog: the wrapper that gives a user epilog this rank's indices, and the inputs of
// each GEMM's block. The wrapped epilog is planned for sm_90a without a GPU, so the wrapper
// text must parse, verify and inline into a kernel.
#include "Distributed/DistUserEpilog.h"

#include "mepi/Errors.h"

#include <gtest/gtest.h>

using namespace mepi;
using namespace mepi::dist::detail;
namespace plan = mepi::dist::plan;

namespace {
const char *kEpilog = R"(
func.func @shifted(%acc: f32, %bias: bf16, %scale: f32, %row: index, %col: index) -> bf16 {
  %b = arith.extf %bias : bf16 to f32
  %s = arith.mulf %acc, %scale : f32
  %t = arith.addf %s, %b : f32
  %ri = arith.index_cast %row : index to i32
  %rf = arith.sitofp %ri : i32 to f32
  %y = arith.addf %t, %rf : f32
  %r = arith.truncf %y : f32 to bf16
  return %r : bf16
}
)";

Tensor fake(DType dtype, std::vector<int64_t> shape, uintptr_t at = 0x7f0000000000) {
  Tensor t;
  t.data = reinterpret_cast<void *>(at);
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

/// A GEMM writing a block of 400 x 256 plans `epilog` for sm_90a (no GPU): the wrapper's text
/// parses, verifies and inlines.
void expectPlansFor400Rows(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs) {
  Options options;
  options.arch = "sm_90a";
  Matmul mm(fake(DType::BFloat16, {400, 128}), fake(DType::BFloat16, {256, 128}), std::nullopt,
            1.0f, std::nullopt, {false, true}, options);
  EXPECT_NO_THROW(mm.plan(epilog, inputs));
}

DistUserEpilog epilog() {
  return {UserEpilog{kEpilog, "shifted"},
          {{fake(DType::BFloat16, {1000}), InputKind::Row},
           {fake(DType::Float32, {256}), InputKind::Col}}};
}
} // namespace

TEST(DistUserEpilog, TheWrapperOffsetsTheIndicesAndPlans) {
  plan::View block{plan::Buffer::D, 0, 600, 0, 400, 256, 256};
  UserEpilog wrapped = epilog().forBlock(block, DType::BFloat16);
  EXPECT_EQ(wrapped.function, "__mepi_dist_shifted");
  EXPECT_NE(wrapped.mlir.find("%row0 = arith.constant 600 : index"), std::string::npos)
      << wrapped.mlir;
  EXPECT_NE(wrapped.mlir.find("%v:1 = func.call @shifted(%acc, %in0, %in1, %r, %c) : (f32, "
                              "bf16, f32, index, index) -> (bf16)"),
            std::string::npos)
      << wrapped.mlir;
  std::vector<UserEpilogInput> inputs = epilog().inputsForBlock(block);
  ASSERT_EQ(inputs.size(), 2u);
  // The row input from the block's first row (bf16: 2 bytes each); the column input as given.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(inputs[0].tensor.data), 0x7f0000000000u + 600 * 2);
  EXPECT_EQ(inputs[0].tensor.shape, (std::vector<int64_t>{400}));
  EXPECT_EQ(inputs[1].tensor.data, epilog().inputs[1].tensor.data);
  expectPlansFor400Rows(wrapped, inputs);
}

TEST(DistUserEpilog, MatrixInputsKeepTheirRowPitchAndModulesTakeTheWrapper) {
  // A row-major [1000, 256] matrix input given without strides: the block from row 600 starts
  // 600 rows of 256 in, and keeps that pitch.
  DistUserEpilog user{UserEpilog{std::string("module {") + kEpilog + "}", "shifted"},
                      {{fake(DType::BFloat16, {1000, 256}), InputKind::Matrix},
                       {fake(DType::Float32, {}), InputKind::Scalar}}};
  plan::View block{plan::Buffer::D, 0, 600, 0, 400, 256, 256};
  std::vector<UserEpilogInput> inputs = user.inputsForBlock(block);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(inputs[0].tensor.data), 0x7f0000000000u + 600 * 256 * 2);
  EXPECT_EQ(inputs[0].tensor.shape, (std::vector<int64_t>{400, 256}));
  EXPECT_EQ(inputs[0].tensor.strides, (std::vector<int64_t>{256, 1}));
  EXPECT_EQ(inputs[1].tensor.shape, std::vector<int64_t>{});
  // The wrapper goes inside the module, before its closing brace.
  UserEpilog wrapped = user.forBlock(block, DType::BFloat16);
  size_t at = wrapped.mlir.find("func.func @__mepi_dist_shifted");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(wrapped.mlir.find('}', wrapped.mlir.rfind("func.return")), wrapped.mlir.size() - 3)
      << wrapped.mlir;
  expectPlansFor400Rows(wrapped, inputs);
}

TEST(DistUserEpilog, ChecksNameTheInputAndDeclareTheOutputs) {
  DistUserEpilog user = epilog();
  EXPECT_NO_THROW(user.check(1000, 256));
  try {
    user.check(999, 256);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("user epilog input 0 (row): expected [999]"),
              std::string::npos)
        << e.what();
  }
  user.epilog.outputs.push_back({"aux", UserEpilogOutput::Kind::Matrix});
  EXPECT_NO_THROW(user.check(1000, 256));
  user.epilog.outputs.push_back({"colsum", UserEpilogOutput::Kind::ColReduction});
  EXPECT_NO_THROW(user.check(1000, 256));
  // Column and scalar reductions are combined from the GEMMs' partials, the others assembled.
  DistAux aux;
  aux.reset(1000, 256, 2, false);
  DistReductions reductions;
  reductions.reset(256, 2, false);
  user.declareOutputs(aux, reductions);
  EXPECT_FALSE(reductions.empty());
  UserEpilog widened = reductions.widened(user.epilog);
  EXPECT_EQ(widened.outputs[0].dtype, user.epilog.outputs[0].dtype); // the matrix as given
  EXPECT_EQ(widened.outputs[1].dtype, DType::Float32);                // partials in f32
  // Ranks compare fingerprints: the text, the inputs' kinds and dtypes and the outputs count.
  DistUserEpilog other = epilog();
  EXPECT_EQ(other.fingerprint(), epilog().fingerprint());
  other.inputs[1].kind = InputKind::Row;
  EXPECT_NE(other.fingerprint(), epilog().fingerprint());
  DistUserEpilog withOutput = epilog();
  withOutput.epilog.outputs.push_back({"aux", UserEpilogOutput::Kind::Matrix});
  EXPECT_NE(withOutput.fingerprint(), epilog().fingerprint());
}

TEST(DistUserEpilog, TheWrapperReturnsTheOutputsAndPlans) {
  const char *text = R"(
func.func @outs(%acc: f32, %row: index, %col: index) -> (bf16, f32, i1, f32) {
  %d = arith.truncf %acc : f32 to bf16
  %z = arith.constant 0.0 : f32
  %m = arith.cmpf oge, %acc, %z : f32
  return %d, %acc, %m, %acc : bf16, f32, i1, f32
}
)";
  using Kind = UserEpilogOutput::Kind;
  UserEpilog e{text, "outs"};
  e.outputs = {{"pre", Kind::Matrix, DType::Float32},
               {"mask", Kind::Bitmask},
               {"rowsum", Kind::RowReduction, DType::Float32}};
  DistUserEpilog user{e, {}};
  EXPECT_TRUE(user.writesBitmask());
  UserEpilog wrapped = user.forBlock({plan::Buffer::D, 0, 512, 0, 400, 256, 256}, DType::BFloat16);
  EXPECT_NE(wrapped.mlir.find("%v:4 = func.call @outs(%acc, %r, %c) : (f32, index, index) -> "
                              "(bf16, f32, i1, f32)"),
            std::string::npos)
      << wrapped.mlir;
  EXPECT_NE(wrapped.mlir.find("func.return %v#0, %v#1, %v#2, %v#3 : bf16, f32, i1, f32"),
            std::string::npos)
      << wrapped.mlir;
  expectPlansFor400Rows(wrapped, {});
}
