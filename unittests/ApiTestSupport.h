// What the API tests share: tensors at a fake device address (the tests never launch, so the
// pointer is never touched) and the message of the mepi::Error a call throws.
#ifndef MEPI_UNITTESTS_APITESTSUPPORT_H
#define MEPI_UNITTESTS_APITESTSUPPORT_H

#include "mepi/Matmul.h"

#include <cstdint>
#include <string>
#include <vector>

namespace apitest {
inline void *fakeDevicePointer(uintptr_t offset = 0) {
  return reinterpret_cast<void *>(uintptr_t(0x7f0000000000) + offset);
}

inline mepi::Tensor fakeTensor(std::vector<int64_t> shape, mepi::DType dtype,
                               uintptr_t offset = 0) {
  mepi::Tensor t;
  t.data = fakeDevicePointer(offset);
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

/// The message of the mepi::Error `f` throws, or "" when it throws none.
template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const mepi::Error &e) {
    return e.what();
  }
  return "";
}
} // namespace apitest

#endif // MEPI_UNITTESTS_APITESTSUPPORT_H
