// mepi-inline-epilog-calls: user epilog functions become straight-line code in the epilog.
//
// Fusion happens in MLIR, by inlining: a kernel made by LLVM 22 cannot become LTO-IR for
// nvJitLink, so a call left in the kernel would stay a real CALL in SASS.
#include "mepi/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPIINLINEEPILOGCALLS
#include "mepi/Transforms/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// Calls nested deeper than this are taken for recursion.
constexpr int kMaxInlineDepth = 16;
/// The most operations the epilogs may hold once inlined: calls fanning out (each function
/// calling the next many times) would otherwise multiply a small text into billions.
constexpr int64_t kMaxInlinedOps = 100000;

int64_t countOps(Operation *root) {
  int64_t count = 0;
  root->walk([&](Operation *) { ++count; });
  return count;
}

/// Whether `call` goes to external device code (a declaration: PTX or LTO-IR linked by nvJitLink).
bool isExternalCall(func::CallOp call, SymbolTableCollection &symbols) {
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && callee.isExternal();
}

LogicalResult inlineCall(func::CallOp call, SymbolTableCollection &symbols) {
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  if (!callee)
    return call.emitOpError() << "expected the epilog's callee @" << call.getCallee()
                              << " to be a func.func of this module, got no such symbol";
  if (!callee.getBody().hasOneBlock())
    return call.emitOpError() << "expected the epilog's callee @" << call.getCallee()
                              << " to have a single block (use scf for control flow), got "
                              << callee.getBody().getBlocks().size() << " blocks";
  Block &body = callee.getBody().front();
  IRMapping mapping;
  mapping.map(body.getArguments(), call.getOperands());
  OpBuilder builder(call);
  for (Operation &op : body.without_terminator())
    builder.clone(op, mapping);
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(value));
  call.erase();
  return success();
}

struct InlineEpilogCallsPass : mepi::impl::MepiInlineEpilogCallsBase<InlineEpilogCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    llvm::SmallPtrSet<Operation *, 4> callees;
    int64_t inlined = 0;
    module.walk([&](MatmulOp op) { inlined += countOps(op); });
    for (int depth = 0;; ++depth) {
      SmallVector<func::CallOp> calls;
      module.walk([&](MatmulOp op) {
        op.getEpilog().walk([&](func::CallOp c) {
          if (!isExternalCall(c, symbols)) // external device code stays a call
            calls.push_back(c);
        });
      });
      if (calls.empty())
        break;
      if (depth == kMaxInlineDepth) {
        calls.front().emitOpError() << "expected epilog calls to end within "
                                    << kMaxInlineDepth << " levels, got deeper (recursion?)";
        return signalPassFailure();
      }
      // Sized before any is cloned: this level's copies must keep the epilogs in bounds.
      for (func::CallOp call : calls)
        if (auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr()))
          inlined += countOps(callee);
      if (inlined > kMaxInlinedOps) {
        calls.front().emitOpError() << "expected the epilog to inline to at most "
                                    << kMaxInlinedOps << " operations, got more at call depth "
                                    << depth + 1 << " (calls fan out)";
        return signalPassFailure();
      }
      for (func::CallOp call : calls) {
        if (auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr()))
          callees.insert(callee);
        if (failed(inlineCall(call, symbols)))
          return signalPassFailure();
      }
    }
    // Private callees that nothing calls any more are gone with the calls.
    SymbolTable table(module);
    for (Operation *op : callees) {
      auto fn = cast<func::FuncOp>(op);
      if (fn.isPrivate() && SymbolTable::symbolKnownUseEmpty(fn, module))
        fn.erase();
    }
  }
};
} // namespace
