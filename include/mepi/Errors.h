// mepi's C++ exception: what went wrong, in words that name the operand and the expected and
// actual values (and, for CUDA/nvJitLink failures, their codes and logs), and its kind.
#ifndef MEPI_ERRORS_H
#define MEPI_ERRORS_H

#include <stdexcept>
#include <string>

namespace mepi {

/// What kind of failure an Error is (the C API's MepiStatus has the same values).
enum class Status {
  InvalidValue = 1,     ///< an operand, option or call the API refuses (or calls out of order)
  NotSupported = 2,     ///< valid, but not something mepi does (yet)
  AllocationFailed = 3, ///< device memory could not be allocated
  CompileFailed = 4,    ///< lowering to PTX or linking with nvJitLink failed
  LaunchFailed = 5,     ///< the kernel launch failed
  CudaError = 6,        ///< another CUDA driver call failed (no driver, no device, ...)
  Internal = 7,         ///< a bug in mepi
};

/// "invalid value", "not supported", "allocation failed", ...
const char *statusName(Status status);

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message, Status status = Status::InvalidValue)
      : std::runtime_error(message), kind(status) {}
  Status status() const { return kind; }

private:
  Status kind;
};

} // namespace mepi

#endif // MEPI_ERRORS_H
