// mepi-approximate-math: f32 math ops with fastmath<afn> as Hopper's approximate instructions.
#include "Target/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPIAPPROXIMATEMATH
#include "Target/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;

namespace {
bool allowsApproximation(Operation *op, arith::FastMathFlags flags) {
  return op->getResult(0).getType().isF32() &&
         arith::bitEnumContainsAll(flags, arith::FastMathFlags::afn);
}

/// Replaces `op` by one PTX instruction `asmText` over its operands. No side effects: CSE and
/// dead-code elimination treat it as arithmetic.
void replaceByInstruction(Operation *op, StringRef asmText, StringRef constraints) {
  OpBuilder b(op);
  auto approx = LLVM::InlineAsmOp::create(
      b, op->getLoc(), b.getF32Type(), op->getOperands(), asmText, constraints,
      /*has_side_effects=*/false, /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  op->getResult(0).replaceAllUsesWith(approx.getResult(0));
  op->erase();
}

struct ApproximateMathPass : mepi::impl::MepiApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (auto tanh = dyn_cast<math::TanhOp>(op);
          tanh && allowsApproximation(op, tanh.getFastmath()))
        replaceByInstruction(op, "tanh.approx.f32 $0, $1;", "=f,f");
      else if (auto exp2 = dyn_cast<math::Exp2Op>(op);
               exp2 && allowsApproximation(op, exp2.getFastmath()))
        replaceByInstruction(op, "ex2.approx.ftz.f32 $0, $1;", "=f,f");
      else if (auto div = dyn_cast<arith::DivFOp>(op);
               div && allowsApproximation(op, div.getFastmath()))
        replaceByInstruction(op, "div.approx.ftz.f32 $0, $1, $2;", "=f,f,f");
    });
  }
};
} // namespace
