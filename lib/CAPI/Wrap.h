// What the C API's source files share: the handle behind MepiMatmul, conversions of C
// descriptors, and the guard that turns exceptions into MepiError objects.
#ifndef MEPI_CAPI_WRAP_H
#define MEPI_CAPI_WRAP_H

#include "mepi-c/Matmul.h"
#include "mepi/GroupedMatmul.h"
#include "mepi/Matmul.h"

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mepi::capi {
struct CMatmul {
  mepi::Matmul matmul;
  std::vector<int64_t> resultShape, resultStrides; // of the last tensor handed out
  std::string text; // the last string handed out (the kernel configuration)

  /// A grouped matmul (mepi::GroupedMatmul's problem) behind a MepiMatmul handle.
  static CMatmul *grouped(const mepi::Tensor &a, const mepi::Tensor &b,
                          const mepi::Groups &groups, float alpha, mepi::Qualifiers qualifiers,
                          mepi::Options options) {
    return new CMatmul{mepi::Matmul(a, b, groups, alpha, qualifiers, std::move(options)), {}, {}};
  }
  void resetGroupedOperands(const mepi::Tensor &a, const mepi::Tensor &b,
                            const mepi::Groups &groups, const mepi::EpilogInputs &inputs) {
    matmul.resetGroupedOperands(a, b, groups, inputs);
  }
};

inline CMatmul *unwrap(MepiMatmul m) { return static_cast<CMatmul *>(m.ptr); }

/// What a MepiError points to.
struct CError {
  std::string message;
  MepiStatus status;
};

inline void setError(MepiError *error, const std::string &message,
                     MepiStatus status = MEPI_STATUS_INVALID_VALUE) {
  if (error)
    error->ptr = new CError{message, status};
}

inline void setError(MepiError *error, const mepi::Error &e) {
  setError(error, e.what(), static_cast<MepiStatus>(e.status()));
}

/// The value a C caller stored in an enum argument or field, as an int: C lets an enum hold any
/// int, while a C++ load of an enum type outside its enumerators' range is undefined (UBSan
/// stops there). Every enum from the C side is read through this before it is checked.
template <typename E> int rawValue(const E &value) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int));
  int raw;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

inline mepi::DType dtypeOf(MepiDType dtype) {
  switch (rawValue(dtype)) {
  case MEPI_DTYPE_F16: return mepi::DType::Float16;
  case MEPI_DTYPE_BF16: return mepi::DType::BFloat16;
  case MEPI_DTYPE_F32: return mepi::DType::Float32;
  case MEPI_DTYPE_U8: return mepi::DType::UInt8;
  case MEPI_DTYPE_I32: return mepi::DType::Int32;
  case MEPI_DTYPE_I64: return mepi::DType::Int64;
  case MEPI_DTYPE_F8E4M3FN: return mepi::DType::Float8E4M3FN;
  case MEPI_DTYPE_F8E5M2: return mepi::DType::Float8E5M2;
  }
  throw mepi::Error("unknown dtype " + std::to_string(rawValue(dtype)));
}

inline std::optional<mepi::Tensor> tensorOf(const MepiTensor *t, const char *name) {
  if (!t)
    return std::nullopt;
  if (t->rank < 0 || (t->rank > 0 && !t->shape))
    throw mepi::Error(std::string("operand ") + name + ": expected a shape array of rank " +
                      std::to_string(t->rank) + ", got " + (t->shape ? "a negative rank" : "NULL"));
  mepi::Tensor tensor;
  tensor.data = t->data;
  tensor.device = t->device;
  tensor.dtype = dtypeOf(t->dtype);
  tensor.shape.assign(t->shape, t->shape + t->rank);
  if (t->strides)
    tensor.strides.assign(t->strides, t->strides + t->rank);
  return tensor;
}

/// The C++ epilog of a C one (an error for an unknown value).
mepi::Epilog epilogOf(MepiEpilog epilog);

/// The built-in epilog inputs of `inputs` (none for NULL).
mepi::EpilogInputs inputsOf(const MepiEpilogInputs *inputs);
/// A user epilog and its inputs from the C API's arrays (mepiMatmulPlanUserEpilogWithOutputs);
/// throws on NULL arrays, negative counts and unknown kinds.
std::pair<mepi::UserEpilog, std::vector<mepi::UserEpilogInput>>
userEpilogOf(MepiStringRef mlir, MepiStringRef function, const MepiTensor *inputs,
             const MepiInputKind *kinds, int numInputs, const MepiDeviceCode *code, int numCode,
             const MepiUserEpilogOutput *outputs, int numOutputs, const void *userData);
/// Describes `t` in `out`; its shape and strides live in `shape` and `strides` (the handle's)
/// until the next call.
void describe(const mepi::Tensor &t, std::vector<int64_t> &shape, std::vector<int64_t> &strides,
              MepiTensor *out);
/// Aux output `index` of `outputs` in key order (the C API's numbering), or an error naming
/// how many there are.
inline std::map<std::string, mepi::Tensor>::const_iterator
auxOutputAt(const std::map<std::string, mepi::Tensor> &outputs, int index) {
  if (index < 0 || index >= static_cast<int>(outputs.size()))
    throw mepi::Error("aux output " + std::to_string(index) + ": expected an index below " +
                      std::to_string(outputs.size()) + " (the outputs exist after execute)");
  return std::next(outputs.begin(), index);
}

inline void describe(CMatmul &m, const mepi::Tensor &t, MepiTensor *out) {
  describe(t, m.resultShape, m.resultStrides, out);
}
/// The C++ options of `options` (the defaults for NULL).
mepi::Options optionsOf(const MepiMatmulOptions *options);

/// Runs `f`, turning an exception into a failure with an error object (no exception crosses
/// the C API).
template <typename F> MepiLogicalResult guardedCall(MepiError *error, F &&f) {
  if (error)
    error->ptr = nullptr;
  try {
    f();
    return {1};
  } catch (const mepi::Error &e) {
    setError(error, e);
  } catch (const std::exception &e) {
    setError(error, std::string("internal error: ") + e.what(), MEPI_STATUS_INTERNAL);
  }
  return {0};
}

/// guardedCall of `f` on the matmul behind `m` (a null handle is an error).
template <typename F> MepiLogicalResult guarded(MepiMatmul m, MepiError *error, F &&f) {
  return guardedCall(error, [&] {
    if (!m.ptr)
      throw mepi::Error("null MepiMatmul handle");
    f(*unwrap(m));
  });
}

/// Both operands given: `what` names the call ("resetOperands: " or "").
inline void expectOperands(const MepiTensor *a, const MepiTensor *b, const char *aName,
                           const char *bName, const std::string &what = "") {
  if (!a || !b)
    throw mepi::Error(what + "operand " + (!a ? aName : bName) + ": expected a tensor, got NULL");
}
} // namespace mepi::capi

#endif // MEPI_CAPI_WRAP_H
