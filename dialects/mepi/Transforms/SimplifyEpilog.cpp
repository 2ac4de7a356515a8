// mepi-simplify-epilog: canonicalize epilog regions and drop epilog inputs they never read.
#include "mepi/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPISIMPLIFYEPILOG
#include "mepi/Transforms/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// Removes epilog inputs whose block argument is unused: the kernel would load them per element
/// for nothing.
void dropUnusedInputs(MatmulOp op) {
  SmallVector<Attribute> kinds(op.getInputKinds().begin(), op.getInputKinds().end());
  for (int i = static_cast<int>(op.getEpilogInputs().size()) - 1; i >= 0; --i) {
    if (!op.getInputArg(i).use_empty())
      continue;
    op.getEpilog().eraseArgument(1 + i);
    op.getEpilogInputsMutable().erase(i);
    kinds.erase(kinds.begin() + i);
  }
  op.setInputKindsAttr(ArrayAttr::get(op.getContext(), kinds));
}

struct SimplifyEpilogPass : mepi::impl::MepiSimplifyEpilogBase<SimplifyEpilogPass> {
  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet set(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(set);
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      name.getCanonicalizationPatterns(set, ctx);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](MatmulOp op) {
      // Converging is not required for correctness: a partially simplified epilog is valid.
      (void)applyPatternsGreedily(op.getEpilog(), patterns);
      dropUnusedInputs(op);
      return WalkResult::advance();
    });
    (void)result;
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
