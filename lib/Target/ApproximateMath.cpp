// mepi-approximate-math: f32 math.tanh with fastmath<afn> as tanh.approx.f32.
#include "Target/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPIAPPROXIMATEMATH
#include "Target/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;

namespace {
struct ApproximateMathPass : mepi::impl::MepiApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    getOperation().walk([](math::TanhOp tanh) {
      if (!tanh.getType().isF32() ||
          !arith::bitEnumContainsAll(tanh.getFastmath(), arith::FastMathFlags::afn))
        return;
      OpBuilder b(tanh);
      // No side effects: CSE and dead-code elimination treat it as arithmetic.
      auto approx = LLVM::InlineAsmOp::create(
          b, tanh.getLoc(), b.getF32Type(), ValueRange{tanh.getOperand()},
          "tanh.approx.f32 $0, $1;", "=f,f", /*has_side_effects=*/false,
          /*is_align_stack=*/false, LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
      tanh.replaceAllUsesWith(approx.getResult(0));
      tanh.erase();
    });
  }
};
} // namespace
