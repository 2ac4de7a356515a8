// What planning (Planner.cpp) and compiling (Compile.cpp) share: the planned module, the
// MLIR context it lives in, and the collector of diagnostics.
#ifndef MEPI_RUNTIME_PLANNERDETAIL_H
#define MEPI_RUNTIME_PLANNERDETAIL_H

#include "Runtime/ErrorCodes.h"
#include "Runtime/Planner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mepi::runtime::detail {
using mlir::Diagnostic;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OwningOpRef;
using mlir::ScopedDiagnosticHandler;
using llvm::StringRef;

struct PlannedModule {
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
};

/// A context with mepi's dialects loaded (threading off: compilations run side by side).
std::unique_ptr<MLIRContext> makeContext();
/// The problem as a verified mepi module (one function, one mepi.matmul), before lowering.
llvm::Expected<PlannedModule> plan(const MatmulProblem &problem);
/// The module's text.
std::string printModule(ModuleOp module);

/// Collects the diagnostics emitted while `fn` runs into one error message.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(messages);
          if (!messages.empty())
            os << "\n";
          os << diag;
          for (Diagnostic &note : diag.getNotes())
            if (!StringRef(note.str()).contains("see current operation"))
              os << "\n  note: " << note;
          return mlir::success();
        }) {}
  /// ": <diagnostics>" when any were collected.
  std::string messagesSuffix() const { return messages.empty() ? "" : ": " + messages; }
  llvm::Error error(llvm::StringRef what) const {
    return llvm::createStringError(what + (messages.empty() ? "" : ": " + messages));
  }

private:
  std::string messages;
  ScopedDiagnosticHandler handler;
};

} // namespace mepi::runtime::detail

#endif // MEPI_RUNTIME_PLANNERDETAIL_H
