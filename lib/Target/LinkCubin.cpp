// mepi-link-cubin: the module's PTX plus user objects, linked by nvJitLink into a cubin file.
#include "Target/JitLink.h"
#include "Target/Passes.h"
#include "Target/Pipeline.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPILINKCUBIN
#include "Target/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

namespace {
std::optional<DeviceObject::Kind> kindFromExtension(StringRef path) {
  StringRef ext = llvm::sys::path::extension(path);
  if (ext == ".ptx")
    return DeviceObject::Kind::PTX;
  if (ext == ".ltoir")
    return DeviceObject::Kind::LTOIR;
  if (ext == ".cubin")
    return DeviceObject::Kind::Cubin;
  if (ext == ".fatbin")
    return DeviceObject::Kind::Fatbin;
  return std::nullopt;
}

struct LinkCubinPass : mepi::impl::MepiLinkCubinBase<LinkCubinPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::string> ptx = extractPTX(module);
    if (failed(ptx)) {
      module.emitError()
          << "expected gpu.binary objects in PTX form (run gpu-module-to-binary{format=isa})";
      return signalPassFailure();
    }
    std::vector<DeviceObject> userObjects;
    for (const std::string &path : objects) {
      std::optional<DeviceObject::Kind> kind = kindFromExtension(path);
      if (!kind) {
        module.emitError() << "unknown device object kind for '" << path
                           << "': expected .ptx, .ltoir, .cubin or .fatbin";
        return signalPassFailure();
      }
      auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
      if (!buffer) {
        module.emitError() << "cannot read device object '" << path
                           << "': " << buffer.getError().message();
        return signalPassFailure();
      }
      StringRef bytes = (*buffer)->getBuffer();
      userObjects.push_back({*kind, path, std::vector<char>(bytes.begin(), bytes.end())});
    }
    llvm::Expected<LinkedCubin> linked = linkCubin(*ptx, userObjects, arch, verbose);
    if (!linked) {
      module.emitError() << llvm::toString(linked.takeError());
      return signalPassFailure();
    }
    if (verbose)
      llvm::errs() << linked->infoLog << "\n";
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      module.emitError() << "cannot write cubin to '" << output << "': " << error;
      return signalPassFailure();
    }
    file->os().write(linked->cubin.data(), linked->cubin.size());
    file->keep();
  }
};
} // namespace
