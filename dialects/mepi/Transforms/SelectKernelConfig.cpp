// mepi-select-kernel-config: attach a kernel configuration to each mepi.matmul.
#include "mepi/Transforms/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPISELECTKERNELCONFIG
#include "mepi/Transforms/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// SIMT heuristic: 256 threads per block, threadIdx.x along N so that loads of B and stores of D
/// are coalesced; narrow outputs give their unused columns to rows instead of idling threads.
KernelConfigAttr chooseSimtConfig(MatmulOp op, int64_t forcedM, int64_t forcedN) {
  constexpr int64_t kThreads = 256, kDefaultTileN = 16;
  int64_t n = op.getD().getType().getShape().back();
  int64_t tileN = kDefaultTileN;
  if (!ShapedType::isDynamic(n) && n < kDefaultTileN)
    tileN = static_cast<int64_t>(llvm::PowerOf2Ceil(static_cast<uint64_t>(std::max<int64_t>(n, 1))));
  if (forcedN > 0)
    tileN = forcedN;
  int64_t tileM = forcedM > 0 ? forcedM : std::max<int64_t>(1, kThreads / tileN);
  return KernelConfigAttr::get(op.getContext(), KernelStrategy::Simt, tileM, tileN, 1);
}

struct SelectKernelConfigPass : mepi::impl::MepiSelectKernelConfigBase<SelectKernelConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](MatmulOp op) {
      if (op.getConfig())
        return WalkResult::advance();
      KernelConfigAttr config = chooseSimtConfig(op, tileM, tileN);
      if (config.getTileM() * config.getTileN() > 1024) {
        op.emitOpError() << "expected at most 1024 threads per simt block, got "
                         << config.getTileM() * config.getTileN();
        return WalkResult::interrupt();
      }
      op.setConfigAttr(config);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
