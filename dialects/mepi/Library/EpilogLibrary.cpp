// The built-in epilog regions.
#include "mepi/Library/EpilogLibrary.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
struct EpilogName {
  BuiltinEpilog epilog;
  llvm::StringLiteral name;
};
constexpr EpilogName kEpilogNames[] = {
    {BuiltinEpilog::Default, "DEFAULT"},        {BuiltinEpilog::Relu, "RELU"},
    {BuiltinEpilog::ReluAux, "RELU_AUX"},       {BuiltinEpilog::Bias, "BIAS"},
    {BuiltinEpilog::ReluBias, "RELU_BIAS"},     {BuiltinEpilog::ReluAuxBias, "RELU_AUX_BIAS"},
    {BuiltinEpilog::DRelu, "DRELU"},            {BuiltinEpilog::DReluBGrad, "DRELU_BGRAD"},
    {BuiltinEpilog::Gelu, "GELU"},              {BuiltinEpilog::GeluAux, "GELU_AUX"},
    {BuiltinEpilog::GeluBias, "GELU_BIAS"},     {BuiltinEpilog::GeluAuxBias, "GELU_AUX_BIAS"},
    {BuiltinEpilog::DGelu, "DGELU"},            {BuiltinEpilog::DGeluBGrad, "DGELU_BGRAD"},
    {BuiltinEpilog::BGradA, "BGRADA"},          {BuiltinEpilog::BGradB, "BGRADB"},
    {BuiltinEpilog::Sigmoid, "SIGMOID"},        {BuiltinEpilog::Tanh, "TANH"},
    {BuiltinEpilog::Silu, "SILU"}};
} // namespace

std::optional<BuiltinEpilog> mlir::mepi::parseBuiltinEpilog(llvm::StringRef name) {
  for (const EpilogName &entry : kEpilogNames)
    if (entry.name == name)
      return entry.epilog;
  return std::nullopt;
}

llvm::StringRef mlir::mepi::builtinEpilogName(BuiltinEpilog epilog) {
  for (const EpilogName &entry : kEpilogNames)
    if (entry.epilog == epilog)
      return entry.name;
  return "?";
}

std::string mlir::mepi::builtinEpilogNames() {
  std::string names;
  for (const EpilogName &entry : kEpilogNames)
    names += (names.empty() ? "" : ", ") + entry.name.str();
  return names;
}

EpilogSignature mlir::mepi::getBuiltinEpilogSignature(BuiltinEpilog epilog, bool grouped) {
  using E = BuiltinEpilog;
  EpilogSignature s;
  if (llvm::is_contained({E::Bias, E::ReluBias, E::ReluAuxBias, E::GeluBias, E::GeluAuxBias},
                         epilog))
    s.inputs.push_back({"bias", grouped ? BroadcastKind::Col : BroadcastKind::Row});
  if (epilog == E::DRelu || epilog == E::DReluBGrad)
    s.inputs.push_back({"relu_aux", BroadcastKind::Bitmask});
  if (epilog == E::DGelu || epilog == E::DGeluBGrad)
    s.inputs.push_back({"gelu_aux", BroadcastKind::Matrix});
  if (epilog == E::ReluAux || epilog == E::ReluAuxBias)
    s.aux.push_back({"relu_aux", BroadcastKind::Bitmask});
  if (epilog == E::GeluAux || epilog == E::GeluAuxBias)
    s.aux.push_back({"gelu_aux", BroadcastKind::Matrix});
  if (epilog == E::DReluBGrad)
    s.reductions.push_back({"drelu_bgrad", BroadcastKind::Row, Combiner::Add});
  if (epilog == E::DGeluBGrad)
    s.reductions.push_back({"dgelu_bgrad", BroadcastKind::Row, Combiner::Add});
  if (epilog == E::BGradA)
    s.operandSums.push_back({"bgrada", BroadcastKind::Row, Combiner::Add});
  if (epilog == E::BGradB)
    s.operandSums.push_back({"bgradb", BroadcastKind::Col, Combiner::Add});
  return s;
}

namespace {
Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}

/// x / y as one reciprocal and a multiply (div.approx.ftz.f32, 2 ulp; mepi-approximate-math),
/// for divisors 1 + 2^t >= 1: the IEEE division is a dozen instructions and a slow path.
Value divApprox(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y, arith::FastMathFlags::afn);
}

/// 2^t as one MUFU.EX2 (ex2.approx.ftz.f32; mepi-approximate-math). Callers fold log2(e) into
/// their constants: libdevice's expf spends ten instructions on range reduction and rounding
/// that a sigmoid's 1 / (1 + e) does not need (an e of 0 or infinity gives 1 or 0 there).
Value exp2Approx(OpBuilder &b, Location loc, Value t) {
  return math::Exp2Op::create(b, loc, t, arith::FastMathFlags::afn);
}

/// gelu(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3): the tanh form cuBLASLt
/// uses, computed as x / (1 + exp(-2u)) (the same function: 0.5 (1 + tanh(u)) = sigmoid(2u)),
/// so 1 + tanh(u) does not cancel for negative x. With -2u log2(e) = x (c1 + c2 x^2): seven
/// instructions (two MUFU) per element, where libdevice's expf and the subnormal-safe division
/// added 24 to the kernel (ncu; bench/NOTES.md, The epilog's cost).
Value emitGelu(OpBuilder &b, Location loc, Value x) {
  constexpr double kC1 = -2 * 0.7978845608028654 * 1.4426950408889634, kC2 = kC1 * 0.044715;
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value slope = math::FmaOp::create(b, loc, f32Const(b, loc, kC2), x2, f32Const(b, loc, kC1));
  Value e = exp2Approx(b, loc, arith::MulFOp::create(b, loc, x, slope));
  Value onePlus = arith::AddFOp::create(b, loc, f32Const(b, loc, 1.0), e);
  return divApprox(b, loc, x, onePlus);
}
/// sigmoid(x) = 1 / (1 + exp(-x)) = 1 / (1 + 2^(-x log2(e))).
Value emitSigmoid(OpBuilder &b, Location loc, Value x) {
  Value t = arith::MulFOp::create(b, loc, x, f32Const(b, loc, -1.4426950408889634));
  Value one = f32Const(b, loc, 1.0);
  return divApprox(b, loc, one, arith::AddFOp::create(b, loc, one, exp2Approx(b, loc, t)));
}

/// gelu'(z) for the tanh form: with s = sigmoid(2u) = 0.5 (1 + tanh(u)) and
/// 1 - tanh(u)^2 = 4 s (1 - s), gelu'(z) = s + 2 z s (1 - s) sqrt(2/pi) (1 + 3 * 0.044715 z^2).
Value emitGeluDerivative(OpBuilder &b, Location loc, Value z) {
  constexpr double kC = 0.7978845608028654, kA = 0.044715;
  Value z2 = arith::MulFOp::create(b, loc, z, z);
  Value z3 = arith::MulFOp::create(b, loc, z2, z);
  Value u = arith::MulFOp::create(b, loc, f32Const(b, loc, kC),
                                  math::FmaOp::create(b, loc, f32Const(b, loc, kA), z3, z));
  Value s = emitSigmoid(b, loc, arith::MulFOp::create(b, loc, f32Const(b, loc, 2.0), u));
  Value oneMinusS = arith::SubFOp::create(b, loc, f32Const(b, loc, 1.0), s);
  Value slope = math::FmaOp::create(b, loc, f32Const(b, loc, 3 * kA * kC), z2,
                                    f32Const(b, loc, kC));
  Value t = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, z, s),
                                  arith::MulFOp::create(b, loc, oneMinusS, slope));
  return math::FmaOp::create(b, loc, f32Const(b, loc, 2.0), t, s);
}
} // namespace

EpilogSignature mlir::mepi::withScaleInputs(EpilogSignature signature, ArrayRef<bool> given,
                                            ArrayRef<BroadcastKind> kinds) {
  for (auto [i, key] : llvm::enumerate(kScaleKeys))
    if (given[i])
      signature.inputs.push_back({key, kinds[i]});
  return signature;
}

EpilogSignature mlir::mepi::withEpilogC(EpilogSignature signature) {
  signature.inputs.insert(signature.inputs.begin(), {kEpilogC, kEpilogBeta});
  return signature;
}

namespace {
/// The region being built: the builder and its block arguments by key.
struct EpilogRegion {
  OpBuilder &b;
  Location loc;
  Block *body;
  const EpilogSignature &signature;

  /// The block argument of input `key`, or null where the signature has none.
  Value input(StringRef key) const {
    for (auto [i, operand] : llvm::enumerate(signature.inputs))
      if (operand.key == key)
        return body->getArgument(1 + i);
    return {};
  }
  Value toF32(Value v) const {
    return v.getType().isF32() ? v : arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  }
};

/// The epilog's function of x (its bias added): the activation or its gradient, appending to
/// `aux` the value it writes where the signature has an aux output (the ReLU's mask bit, the
/// GELU's input as `geluAux` stores it). `zero` is an f32 0.
Value emitActivation(const EpilogRegion &r, BuiltinEpilog epilog, Value x, Value zero,
                     function_ref<Value(Value)> geluAux, SmallVectorImpl<Value> &aux) {
  using E = BuiltinEpilog;
  OpBuilder &b = r.b;
  Location loc = r.loc;
  bool writesAux = !r.signature.aux.empty();
  switch (epilog) {
  case E::Relu: case E::ReluBias: case E::ReluAux: case E::ReluAuxBias:
    // The mask bit: x >= 0, as cuBLASLt sets it (mepi-cublaslt-interop compares them bit for
    // bit on integer inputs, where x is often exactly 0): the gradient passes at 0.
    if (writesAux)
      aux.push_back(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, zero));
    return arith::MaximumFOp::create(b, loc, x, zero);
  case E::Gelu: case E::GeluBias: case E::GeluAux: case E::GeluAuxBias:
    if (writesAux) // the GELU's input, for DGELU
      aux.push_back(geluAux(x));
    return emitGelu(b, loc, x);
  case E::DRelu: case E::DReluBGrad:
    return arith::SelectOp::create(b, loc, r.input("relu_aux"), x, zero);
  case E::DGelu: case E::DGeluBGrad:
    return arith::MulFOp::create(b, loc, x,
                                 emitGeluDerivative(b, loc, r.toF32(r.input("gelu_aux"))));
  case E::Sigmoid: return emitSigmoid(b, loc, x);
  case E::Tanh: return math::TanhOp::create(b, loc, x);
  case E::Silu: return arith::MulFOp::create(b, loc, x, emitSigmoid(b, loc, x));
  case E::Default: case E::Bias: case E::BGradA: case E::BGradB: return x;
  }
  return x;
}
} // namespace

void mlir::mepi::buildBuiltinEpilog(OpBuilder &builder, MatmulOp op, BuiltinEpilog epilog,
                                    const EpilogSignature &signature, bool resultAmax,
                                    bool auxAmax) {
  OpBuilder::InsertionGuard guard(builder);
  OpBuilder &b = builder;
  Location loc = op.getLoc();
  SmallVector<Type> argTypes = {b.getF32Type()};
  for (unsigned i = 0; i < op.getEpilogInputs().size(); ++i)
    argTypes.push_back(op.getInputElementType(i));
  argTypes.append({b.getIndexType(), b.getIndexType()});
  if (op.isGrouped()) // the row's group, which no built-in epilog reads
    argTypes.push_back(b.getIndexType());
  Block *body =
      b.createBlock(&op.getEpilog(), {}, argTypes, SmallVector<Location>(argTypes.size(), loc));
  EpilogRegion r{b, loc, body, signature};
  Value zero = f32Const(b, loc, 0.0);
  Type dElt = op.getD().getType().getElementType();
  SmallVector<Value> aux, reductions;
  Value auxAbs; // |gelu_aux| before its scale, for gelu_aux_amax
  // The GELU's input z as its aux matrix holds it: times its scale where it has one (FP8).
  auto geluAux = [&](Value z) -> Value {
    Type auxElt = cast<MemRefType>(op.getAux().front().getType()).getElementType();
    if (auxAmax)
      auxAbs = math::AbsFOp::create(b, loc, z);
    if (Value scale = r.input("aux_quantization_scale"))
      z = arith::MulFOp::create(b, loc, z, scale);
    return z.getType() == auxElt ? z : arith::TruncFOp::create(b, loc, auxElt, z).getResult();
  };

  Value x = body->getArgument(0);
  for (StringRef key : {"a_scale", "b_scale"})
    if (Value scale = r.input(key))
      x = arith::MulFOp::create(b, loc, x, scale);
  if (Value c = r.input(kEpilogC.key)) { // after the scales of the product only
    Value term = arith::MulFOp::create(b, loc, r.input(kEpilogBeta.key), r.toF32(c));
    if (Value scale = r.input("c_scale"))
      term = arith::MulFOp::create(b, loc, term, scale);
    x = arith::AddFOp::create(b, loc, x, term, arith::FastMathFlags::contract);
  }
  // contract: the addition may fuse with alpha's product before it (emitEpilogValues).
  if (Value bias = r.input("bias"))
    x = arith::AddFOp::create(b, loc, x, r.toF32(bias), arith::FastMathFlags::contract);
  x = emitActivation(r, epilog, x, zero, geluAux, aux);
  if (!signature.reductions.empty()) // the bias gradient: the sum of D's row
    reductions.push_back(x);
  if (resultAmax)
    reductions.push_back(math::AbsFOp::create(b, loc, x));
  if (auxAbs)
    reductions.push_back(auxAbs);
  if (Value scale = r.input("d_scale"))
    x = arith::MulFOp::create(b, loc, x, scale);

  SmallVector<Value> yielded = {dElt != x.getType()
                                    ? arith::TruncFOp::create(b, loc, dElt, x).getResult()
                                    : x};
  llvm::append_range(yielded, aux);
  llvm::append_range(yielded, reductions);
  YieldOp::create(b, loc, yielded);
}
