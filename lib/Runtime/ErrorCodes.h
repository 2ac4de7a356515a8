// The kinds of the runtime's llvm::Errors, as std::error_codes the API turns into
// mepi::Status: CUDA results (cudaCategory) and mepi's own (mepiCategory).
#ifndef MEPI_RUNTIME_ERRORCODES_H
#define MEPI_RUNTIME_ERRORCODES_H

#include "llvm/Support/Error.h"

#include <system_error>

namespace mepi::runtime {

/// mepi's own error kinds (the values of mepi::Status that are not CUDA's).
enum class ErrorKind { NotSupported = 2, CompileFailed = 4, Internal = 7 };

/// CUresult values.
const std::error_category &cudaCategory();
/// ErrorKind values.
const std::error_category &mepiCategory();

/// `error` with its messages, under the code of `kind` (for the API's status).
llvm::Error withKind(llvm::Error error, ErrorKind kind);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_ERRORCODES_H
