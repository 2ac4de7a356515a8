// Sigmoid divisions on the FMA pipe (FmaReciprocal.h).
#include "FmaReciprocal.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {
bool allowsApproximation(arith::FastMathFlags flags) {
  return arith::bitEnumContainsAll(flags, arith::FastMathFlags::afn);
}

/// 1 + 2^t with 2^t from math.exp2 afn: at least 1, infinite or NaN; never 0 or subnormal.
bool isSigmoidDenominator(Value divisor) {
  auto add = divisor.getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  auto onePlusExp2 = [](Value one, Value other) {
    FloatAttr c;
    auto exp2 = other.getDefiningOp<math::Exp2Op>();
    return matchPattern(one, m_Constant(&c)) && c.getValueAsDouble() == 1.0 && exp2 &&
           allowsApproximation(exp2.getFastmath());
  };
  return onePlusExp2(add.getLhs(), add.getRhs()) || onePlusExp2(add.getRhs(), add.getLhs());
}
} // namespace

SmallVector<arith::DivFOp> mepi::divisionsForFmaPipe(Operation *root, unsigned every) {
  SmallVector<arith::DivFOp> chosen;
  if (every == 0)
    return chosen;
  unsigned seen = 0;
  root->walk([&](arith::DivFOp division) {
    if (division.getType().isF32() && allowsApproximation(division.getFastmath()) &&
        isSigmoidDenominator(division.getRhs()) && ++seen % every == 0)
      chosen.push_back(division);
  });
  return chosen;
}

void mepi::expandOnFmaPipe(arith::DivFOp division) {
  OpBuilder b(division);
  Location loc = division.getLoc();
  auto f32 = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
  };
  // Below 2^126 the seed's exponent stays normal; 1 / 2^126 stands for 0 (an absolute error
  // under 2^-126 |x|, as div.approx.ftz's flushed results).
  Value y = arith::MinNumFOp::create(b, loc, division.getRhs(), f32(0x1p126));
  // The seed 0x7ef311c3 - bits(y) is within 10.1 % of 1 / y; each step squares the error.
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), y);
  Value magic = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x7ef311c3));
  Value r = arith::BitcastOp::create(b, loc, b.getF32Type(),
                                     arith::SubIOp::create(b, loc, magic, bits));
  Value negY = arith::NegFOp::create(b, loc, y);
  for (int step = 0; step < 3; ++step) {
    Value error = math::FmaOp::create(b, loc, negY, r, f32(1.0));
    r = math::FmaOp::create(b, loc, r, error, r);
  }
  division.replaceAllUsesWith(arith::MulFOp::create(b, loc, division.getLhs(), r).getResult());
  division.erase();
}
