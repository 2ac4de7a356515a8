// The C++ API's errors from the runtime's: a mepi::Error with the status the runtime's error
// code gives (ErrorCodes.h).
#ifndef MEPI_RUNTIME_APIERRORS_H
#define MEPI_RUNTIME_APIERRORS_H

#include "mepi/Errors.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mepi::runtime {

/// The status of a runtime error: CUDA's out-of-memory is AllocationFailed, a failed
/// cuLaunchKernel LaunchFailed, any other CUDA result CudaError; mepi's kinds are theirs; an
/// error without a code is `otherwise`.
Status statusOf(const llvm::ErrorInfoBase &error, Status otherwise);

/// Throws `error` (which must be a failure) as a mepi::Error "context: message".
[[noreturn]] void throwAsApiError(llvm::Error error, const std::string &context,
                                  Status otherwise = Status::InvalidValue);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_APIERRORS_H
