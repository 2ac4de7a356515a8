// mepi's C++ exception: what went wrong, in words that name the operand and the expected and
// actual values (and, for CUDA/nvJitLink failures, their codes and logs).
#ifndef MEPI_ERRORS_H
#define MEPI_ERRORS_H

#include <stdexcept>
#include <string>

namespace mepi {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace mepi

#endif // MEPI_ERRORS_H
