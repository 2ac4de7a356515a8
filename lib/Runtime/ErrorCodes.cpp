// Error categories of the runtime (see ErrorCodes.h).
#include "Runtime/ErrorCodes.h"

using namespace mepi::runtime;

namespace {
struct CudaCategory : std::error_category {
  const char *name() const noexcept override { return "cuda"; }
  std::string message(int code) const override {
    return "CUDA error " + std::to_string(code);
  }
};
struct MepiCategory : std::error_category {
  const char *name() const noexcept override { return "mepi"; }
  std::string message(int code) const override {
    switch (static_cast<ErrorKind>(code)) {
    case ErrorKind::NotSupported: return "not supported";
    case ErrorKind::CompileFailed: return "compile failed";
    case ErrorKind::Internal: return "internal error";
    }
    return "mepi error";
  }
};
} // namespace

const std::error_category &mepi::runtime::cudaCategory() {
  static const CudaCategory category;
  return category;
}

const std::error_category &mepi::runtime::mepiCategory() {
  static const MepiCategory category;
  return category;
}

llvm::Error mepi::runtime::withKind(llvm::Error error, ErrorKind kind) {
  if (!error)
    return error;
  return llvm::createStringError(std::error_code(static_cast<int>(kind), mepiCategory()),
                                 llvm::toString(std::move(error)));
}
