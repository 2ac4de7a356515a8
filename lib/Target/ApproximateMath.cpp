// mepi-approximate-math: f32 math ops with fastmath<afn> as Hopper's approximate instructions
// (which ops and instructions: mepi/Library/ApproximateOps.h).
#include "Target/Passes.h"
#include "mepi/Library/ApproximateOps.h"

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
      if (std::optional<mepi::ApproximateInstruction> approx = mepi::approximateInstruction(op))
        replaceByInstruction(op, approx->asmText, approx->constraints);
    });
  }
};
} // namespace
