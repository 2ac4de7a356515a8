// The C++ API's errors from the runtime's (see ApiErrors.h).
#include "Runtime/ApiErrors.h"
#include "Runtime/ErrorCodes.h"

#include <cuda.h>

using namespace mepi;
using namespace mepi::runtime;

const char *mepi::statusName(Status status) {
  switch (status) {
  case Status::InvalidValue: return "invalid value";
  case Status::NotSupported: return "not supported";
  case Status::AllocationFailed: return "allocation failed";
  case Status::CompileFailed: return "compile failed";
  case Status::LaunchFailed: return "launch failed";
  case Status::CudaError: return "CUDA error";
  case Status::Internal: return "internal error";
  }
  return "unknown status";
}

Status mepi::runtime::statusOf(const llvm::ErrorInfoBase &error, Status otherwise) {
  std::error_code code = error.convertToErrorCode();
  if (code.category() == cudaCategory()) {
    if (code.value() == CUDA_ERROR_OUT_OF_MEMORY)
      return Status::AllocationFailed;
    if (error.message().find("cuLaunchKernel") != std::string::npos)
      return Status::LaunchFailed;
    return Status::CudaError;
  }
  if (code.category() == mepiCategory())
    return static_cast<Status>(code.value());
  return otherwise;
}

void mepi::runtime::throwAsApiError(llvm::Error error, const std::string &context,
                                    Status otherwise) {
  Status status = otherwise;
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &info) {
    status = statusOf(info, otherwise);
    message += (message.empty() ? "" : "\n") + info.message();
  });
  throw Error(context + ": " + message, status);
}
