// The f32 math ops with fastmath<afn> that become one PTX instruction (ApproximateOps.h).
#include "mepi/Library/ApproximateOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace {
bool allowsApproximation(Operation *op, arith::FastMathFlags flags) {
  return op->getNumResults() == 1 && op->getResult(0).getType().isF32() &&
         arith::bitEnumContainsAll(flags, arith::FastMathFlags::afn);
}
} // namespace

std::optional<mepi::ApproximateInstruction> mepi::approximateInstruction(Operation *op) {
  if (auto tanh = dyn_cast<math::TanhOp>(op); tanh && allowsApproximation(op, tanh.getFastmath()))
    return ApproximateInstruction{"tanh.approx.f32 $0, $1;", "=f,f"};
  if (auto exp2 = dyn_cast<math::Exp2Op>(op); exp2 && allowsApproximation(op, exp2.getFastmath()))
    return ApproximateInstruction{"ex2.approx.ftz.f32 $0, $1;", "=f,f"};
  if (auto div = dyn_cast<arith::DivFOp>(op); div && allowsApproximation(op, div.getFastmath()))
    return ApproximateInstruction{"div.approx.ftz.f32 $0, $1, $2;", "=f,f,f"};
  return std::nullopt;
}
