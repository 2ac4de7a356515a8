// mepi-write-ptx and extractPTX: the PTX text held by gpu.binary objects.
#include "Target/Passes.h"
#include "Target/Pipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPIWRITEPTX
#include "Target/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

FailureOr<std::string> mlir::mepi::extractPTX(ModuleOp module) {
  std::string ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getFormat() == gpu::CompilationTarget::Assembly)
        ptx += object.getObject().getValue().str();
    }
  });
  if (ptx.empty())
    return failure();
  return ptx;
}

namespace {
struct WritePTXPass : mepi::impl::MepiWritePTXBase<WritePTXPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<std::string> ptx = extractPTX(getOperation());
    if (failed(ptx)) {
      getOperation().emitError()
          << "expected gpu.binary objects in PTX form (run gpu-module-to-binary{format=isa})";
      return signalPassFailure();
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "cannot write PTX to '" << output << "': " << error;
      return signalPassFailure();
    }
    file->os() << *ptx;
    file->keep();
  }
};
} // namespace
