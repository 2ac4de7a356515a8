// The built-in epilog regions.
#include "mepi/Library/EpilogLibrary.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::mepi;

std::optional<BuiltinEpilog> mlir::mepi::parseBuiltinEpilog(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<BuiltinEpilog>>(name)
      .Case("DEFAULT", BuiltinEpilog::Default)
      .Case("BIAS", BuiltinEpilog::Bias)
      .Case("RELU", BuiltinEpilog::Relu)
      .Case("RELU_BIAS", BuiltinEpilog::ReluBias)
      .Case("GELU", BuiltinEpilog::Gelu)
      .Case("GELU_BIAS", BuiltinEpilog::GeluBias)
      .Case("SIGMOID", BuiltinEpilog::Sigmoid)
      .Case("TANH", BuiltinEpilog::Tanh)
      .Case("SILU", BuiltinEpilog::Silu)
      .Default(std::nullopt);
}

llvm::StringRef mlir::mepi::builtinEpilogName(BuiltinEpilog epilog) {
  switch (epilog) {
  case BuiltinEpilog::Default: return "DEFAULT";
  case BuiltinEpilog::Bias: return "BIAS";
  case BuiltinEpilog::Relu: return "RELU";
  case BuiltinEpilog::ReluBias: return "RELU_BIAS";
  case BuiltinEpilog::Gelu: return "GELU";
  case BuiltinEpilog::GeluBias: return "GELU_BIAS";
  case BuiltinEpilog::Sigmoid: return "SIGMOID";
  case BuiltinEpilog::Tanh: return "TANH";
  case BuiltinEpilog::Silu: return "SILU";
  }
  return "?";
}

bool mlir::mepi::builtinEpilogHasBias(BuiltinEpilog epilog) {
  return epilog == BuiltinEpilog::Bias || epilog == BuiltinEpilog::ReluBias ||
         epilog == BuiltinEpilog::GeluBias;
}

namespace {
Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}

/// x / y as div.approx.f32 (2 ulp; 0 once y passes 2^126, where x / y rounds to ~0 anyway),
/// for divisors 1 + exp(...) >= 1: the IEEE division is a dozen instructions and a slow path.
Value divApprox(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y, arith::FastMathFlags::afn);
}

/// gelu(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3): the tanh form cuBLASLt
/// uses, computed as x / (1 + exp(-2u)) (the same function: 0.5 (1 + tanh(u)) = sigmoid(2u)).
/// One exp (ex2.approx plus a few FMAs) instead of libdevice's tanhf, which measured 12% of the
/// GEMM at K = 4096 (bench/NOTES.md), and no cancellation in 1 + tanh(u) for negative x.
Value emitGelu(OpBuilder &b, Location loc, Value x) {
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value x3 = arith::MulFOp::create(b, loc, x2, x);
  Value inner = math::FmaOp::create(b, loc, f32Const(b, loc, 0.044715), x3, x);
  Value minusTwoU = arith::MulFOp::create(b, loc, f32Const(b, loc, -2 * 0.7978845608028654), inner);
  Value e = math::ExpOp::create(b, loc, minusTwoU);
  Value onePlus = arith::AddFOp::create(b, loc, f32Const(b, loc, 1.0), e);
  return divApprox(b, loc, x, onePlus);
}
/// sigmoid(x) = 1 / (1 + exp(-x)).
Value emitSigmoid(OpBuilder &b, Location loc, Value x) {
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value one = f32Const(b, loc, 1.0);
  return divApprox(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}
} // namespace

void mlir::mepi::buildBuiltinEpilog(OpBuilder &builder, MatmulOp op, BuiltinEpilog epilog) {
  OpBuilder::InsertionGuard guard(builder);
  Location loc = op.getLoc();
  SmallVector<Type> argTypes = {builder.getF32Type()};
  for (Value input : op.getEpilogInputs()) {
    Type type = input.getType();
    if (auto memref = dyn_cast<MemRefType>(type))
      type = memref.getElementType();
    argTypes.push_back(type);
  }
  argTypes.append({builder.getIndexType(), builder.getIndexType()});
  Block *body = builder.createBlock(&op.getEpilog(), {}, argTypes,
                                    SmallVector<Location>(argTypes.size(), loc));

  Value x = body->getArgument(0);
  if (builtinEpilogHasBias(epilog)) {
    Value bias = body->getArgument(1);
    if (!bias.getType().isF32())
      bias = arith::ExtFOp::create(builder, loc, builder.getF32Type(), bias);
    x = arith::AddFOp::create(builder, loc, x, bias);
  }
  if (epilog == BuiltinEpilog::Relu || epilog == BuiltinEpilog::ReluBias)
    x = arith::MaximumFOp::create(builder, loc, x, f32Const(builder, loc, 0.0));
  if (epilog == BuiltinEpilog::Gelu || epilog == BuiltinEpilog::GeluBias)
    x = emitGelu(builder, loc, x);
  if (epilog == BuiltinEpilog::Sigmoid)
    x = emitSigmoid(builder, loc, x);
  if (epilog == BuiltinEpilog::Tanh)
    x = math::TanhOp::create(builder, loc, x);
  if (epilog == BuiltinEpilog::Silu)
    x = arith::MulFOp::create(builder, loc, x, emitSigmoid(builder, loc, x));

  Type dElt = op.getD().getType().getElementType();
  if (dElt != x.getType())
    x = arith::TruncFOp::create(builder, loc, dElt, x);
  YieldOp::create(builder, loc, ValueRange{x});
}
