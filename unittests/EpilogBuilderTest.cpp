// The epilog builder without a GPU: the MLIR it prints, plans compiled to sm_90a cubins through
// libmepi, and a clear error for each misuse.
#include "ApiTestSupport.h"
#include "mepi/EpilogBuilder.h"

#include <gtest/gtest.h>

namespace {
using mepi::DType;
using mepi::EpilogBuilder;
using mepi::EpilogValue;
using mepi::InputKind;
using Combiner = mepi::UserEpilogOutput::Combiner;

using apitest::errorOf;

mepi::Tensor tensor(std::vector<int64_t> shape, DType dtype = DType::BFloat16) {
  return apitest::fakeTensor(std::move(shape), dtype);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The clamp-and-scale quantizing epilog: q = clamp(round(acc * scale[col]), -127, 127), with
/// the amax of each row of the scaled value as a second output.
EpilogBuilder quantize() {
  EpilogBuilder e;
  EpilogValue scaled = e.mul(e.accumulator(), e.input("scale", InputKind::Col));
  e.store(e.clamp(e.round(scaled), e.constant(-127), e.constant(127)));
  e.reduction("row_amax", e.abs(scaled), mepi::ReductionKind::Row, Combiner::Max);
  return e;
}
} // namespace

TEST(EpilogBuilder, PrintsOneFunctionOfTheProblem) {
  mepi::UserEpilog epilog = quantize().toUserEpilog(DType::Float16, {DType::Float32});
  EXPECT_EQ(epilog.function, "mepi_builder_epilog");
  const std::string &text = epilog.mlir;
  EXPECT_TRUE(contains(text, "func.func @mepi_builder_epilog(%acc: f32, %in0: f32, %row: index, "
                             "%col: index) -> (f16, f32)"))
      << text;
  EXPECT_TRUE(contains(text, "math.roundeven")) << text;
  EXPECT_TRUE(contains(text, "arith.constant 0xC2FE0000 : f32")) << "-127 by its bits\n" << text;
  EXPECT_TRUE(contains(text, "arith.truncf")) << text;
  ASSERT_EQ(epilog.outputs.size(), 1u);
  EXPECT_EQ(epilog.outputs[0].key, "row_amax");
  EXPECT_EQ(epilog.outputs[0].kind, mepi::UserEpilogOutput::Kind::RowReduction);
}

TEST(EpilogBuilder, PlansAndCompilesThroughTheLibrary) {
  mepi::Matmul mm(tensor({33, 64}), tensor({64, 47}), std::nullopt, 1.0f, std::nullopt, {},
                  {DType::Float16});
  mm.plan(quantize(), {{"scale", tensor({47}, DType::Float32)}});
  EXPECT_TRUE(contains(mm.kernelConfiguration(), "#mepi.kernel_config<"));
}

// Every node kind and every output kind, through parsing, verification, inlining and ptxas.
TEST(EpilogBuilder, EveryNodeCompiles) {
  EpilogBuilder e;
  EpilogValue acc = e.accumulator(), x = acc;
  for (auto op : {mepi::UnaryOp::Neg, mepi::UnaryOp::Abs, mepi::UnaryOp::Exp,
                  mepi::UnaryOp::Log, mepi::UnaryOp::Sqrt, mepi::UnaryOp::Rsqrt,
                  mepi::UnaryOp::Tanh, mepi::UnaryOp::Erf, mepi::UnaryOp::Floor,
                  mepi::UnaryOp::Ceil, mepi::UnaryOp::Round})
    x = e.add(x, e.unary(op, acc));
  for (auto op : {mepi::BinaryOp::Add, mepi::BinaryOp::Sub, mepi::BinaryOp::Mul,
                  mepi::BinaryOp::Div, mepi::BinaryOp::Min, mepi::BinaryOp::Max,
                  mepi::BinaryOp::Pow})
    x = e.binary(op, x, e.input("bias", InputKind::Row));
  EpilogValue mixed = e.binary(mepi::BinaryOp::Max, e.row(), e.indexConstant(3));
  EpilogValue diag = e.compare(mepi::Predicate::Le, mixed, e.col());
  EpilogValue both = e.binary(mepi::BinaryOp::And, diag,
                              e.compare(mepi::Predicate::Ne, x, e.constant(0.5)));
  x = e.select(e.binary(mepi::BinaryOp::Or, both, diag), x, e.cast(e.col(), DType::Float32));
  x = e.fma(x, e.input("s", InputKind::Scalar), e.cast(both, DType::Float32));
  x = e.add(x, e.cast(e.input("res", InputKind::Matrix), DType::BFloat16));
  e.store(x);
  e.auxOutput("pre", acc, DType::BFloat16);
  e.auxOutput("mask", e.compare(mepi::Predicate::Gt, acc, e.constant(0)));
  e.reduction("col_sum", x, mepi::ReductionKind::Col);
  e.reduction("amax", e.abs(x), mepi::ReductionKind::Scalar, Combiner::Max);
  e.reduction("row_sum", x, mepi::ReductionKind::Row, Combiner::Add, DType::BFloat16);

  mepi::Matmul mm(tensor({100, 64}), tensor({64, 30}));
  mm.plan(e, {{"bias", tensor({100})},
              {"s", tensor({}, DType::Float32)},
              {"res", tensor({100, 30}, DType::Float16)}});
  EXPECT_TRUE(contains(mm.kernelConfiguration(), "#mepi.kernel_config<"));
}

TEST(EpilogBuilder, ReadsCAsAMatrixInput) {
  EpilogBuilder e;
  e.store(e.add(e.accumulator(), e.mul(e.c(), e.constant(2))));
  EXPECT_TRUE(e.readsC());
  mepi::Matmul noC(tensor({16, 32}), tensor({32, 16}));
  EXPECT_EQ(errorOf([&] { noC.plan(e); }),
            "plan: the epilog builder reads C, but this Matmul has no operand c");
  mepi::Matmul withC(tensor({16, 32}), tensor({32, 16}), tensor({16, 16}), 1.0f, 0.0f);
  withC.plan(e);
}

TEST(EpilogBuilder, MisuseIsAClearError) {
  EpilogBuilder e, other;
  EpilogValue acc = e.accumulator();
  EXPECT_EQ(errorOf([&] { e.add(acc, e.row()); }),
            "epilog builder: add: expected operands of one type, got f32 and index");
  EXPECT_EQ(errorOf([&] { e.div(e.row(), e.col()); }),
            "epilog builder: div: not defined on index values");
  EXPECT_EQ(errorOf([&] { e.add(acc, other.accumulator()); }),
            "epilog builder: add: an operand is not a value of this builder");
  EXPECT_EQ(errorOf([&] { e.exp(e.row()); }),
            "epilog builder: math.exp: expected an f32 operand, got index");
  EXPECT_EQ(errorOf([&] { e.select(acc, acc, acc); }),
            "epilog builder: select: expected a bool condition, got f32");
  EXPECT_EQ(errorOf([&] { e.cast(e.row(), DType::Float16); }),
            "epilog builder: cast: index values convert to f32 only, not f16");
  EXPECT_EQ(errorOf([&] { e.input("x", InputKind::Row), e.input("x", InputKind::Col); }),
            "epilog builder: input 'x': read before with another kind");
  EXPECT_EQ(errorOf([&] { e.store(e.row()); }),
            "epilog builder: store: expected an f32 value, got index");
  EXPECT_EQ(errorOf([&] { e.toUserEpilog(DType::Float16, {DType::Float16}); }),
            "epilog builder: no value is stored to D: call store()");
  e.store(acc);
  EXPECT_EQ(errorOf([&] { e.store(acc); }),
            "epilog builder: store: D is stored once; store() was called before");
  e.reduction("r", acc, mepi::ReductionKind::Row);
  EXPECT_EQ(errorOf([&] { e.auxOutput("r", acc); }), "epilog builder: output 'r': declared twice");
  EXPECT_EQ(errorOf([&] { e.auxOutput("idx", e.col()); }),
            "epilog builder: auxOutput 'idx': expected an f32 or bool value, got index");
}

TEST(EpilogBuilder, InputsMustMatchWhatItReads) {
  mepi::Matmul mm(tensor({16, 32}), tensor({32, 16}));
  EXPECT_EQ(errorOf([&] { mm.plan(quantize()); }),
            "plan: epilog input 'scale' is read by the epilog builder but not given");
  EXPECT_EQ(errorOf([&] {
              mm.plan(quantize(), {{"scale", tensor({16})}, {"bias", tensor({16})}});
            }),
            "plan: epilog input 'bias' is given but the epilog builder does not read it (it "
            "reads 'scale')");
  EXPECT_EQ(errorOf([&] { mm.plan(quantize(), {{"scale", tensor({15})}}); }),
            "plan: epilog input 'scale' (col): expected shape [batch..., 16] (N of D), got [15]");
}

TEST(EpilogBuilder, FastMathMarksTheNodesAfterIt) {
  EpilogBuilder e;
  EpilogValue accurate = e.tanh(e.accumulator());
  e.setFastMath(true);
  EpilogValue fast = e.tanh(accurate);
  e.store(e.div(fast, e.exp(accurate)));
  std::string text = e.toUserEpilog(DType::BFloat16, {}).mlir;
  EXPECT_TRUE(contains(text, "math.tanh %acc : f32")) << text;
  EXPECT_TRUE(contains(text, "math.tanh %v1 fastmath<afn> : f32")) << text;
  EXPECT_TRUE(contains(text, "math.exp %v1 fastmath<afn> : f32")) << text;
  EXPECT_TRUE(contains(text, "arith.divf %v2, %v3 fastmath<afn> : f32")) << text;
}

TEST(EpilogBuilder, FastMathLetsProductsAndSumsContract) {
  EpilogBuilder e;
  EpilogValue x = e.accumulator();
  EpilogValue exact = e.add(e.mul(x, x), x);
  e.setFastMath(true);
  e.store(e.sub(e.mul(exact, x), x));
  std::string text = e.toUserEpilog(DType::BFloat16, {}).mlir;
  EXPECT_TRUE(contains(text, "arith.mulf %acc, %acc : f32")) << text;
  EXPECT_TRUE(contains(text, "arith.addf %v1, %acc : f32")) << text;
  EXPECT_TRUE(contains(text, "arith.mulf %v2, %acc fastmath<contract> : f32")) << text;
  EXPECT_TRUE(contains(text, "arith.subf %v3, %acc fastmath<contract> : f32")) << text;
}
