// mepi-lower-tensor-map-params: TMA descriptors become by-value grid-constant kernel parameters.
#include "Conversion/Passes.h"
#include "KernelGenerator.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPILOWERTENSORMAPPARAMS
#include "Conversion/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

namespace {
constexpr int64_t kTensorMapBytes = 128, kTensorMapAlignment = 64; // sizeof/alignof CUtensorMap

struct LowerTensorMapParamsPass
    : mepi::impl::MepiLowerTensorMapParamsBase<LowerTensorMapParamsPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](LLVM::LLVMFuncOp fn) {
      auto count = fn->getAttrOfType<IntegerAttr>(kTensorMapParamsAttr);
      if (!count)
        return WalkResult::advance();
      fn->removeAttr(kTensorMapParamsAttr);
      Builder b(fn.getContext());
      auto bytes = LLVM::LLVMArrayType::get(b.getI8Type(), kTensorMapBytes);
      for (int64_t i = 0; i < count.getInt(); ++i) {
        if (i >= fn.getNumArguments() || !isa<LLVM::LLVMPointerType>(fn.getArgumentTypes()[i])) {
          fn.emitOpError() << "expected argument " << i << " to be a tensor map pointer";
          return WalkResult::interrupt();
        }
        fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(bytes));
        fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(kTensorMapAlignment));
        fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
