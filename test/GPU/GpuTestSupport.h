// Shared pieces of the GPU test programs: host tensors in the device's element types, device
// copies, and the fp64 helpers the references use.
#ifndef MEPI_TEST_GPU_GPUTESTSUPPORT_H
#define MEPI_TEST_GPU_GPUTESTSUPPORT_H

#include "Runtime/CudaDriver.h"
#include "Runtime/Problem.h"
#include "mepi/Matmul.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gputest {
using namespace mepi::runtime;

// Host conversions to the device element types (round to nearest even).
inline uint16_t toBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
inline float fromBF16(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t toF16(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
inline float fromF16(uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return static_cast<float>(h);
}

// 8-bit floats: e4m3fn (bias 7, no infinities, S.1111.111 is NaN) and e5m2 (bias 15, IEEE-like).
inline double fromFp8(uint8_t v, bool e4m3) {
  int manBits = e4m3 ? 3 : 2, expBits = e4m3 ? 4 : 5, bias = e4m3 ? 7 : 15;
  int e = (v >> manBits) & ((1 << expBits) - 1), m = v & ((1 << manBits) - 1);
  double sign = (v & 0x80) ? -1.0 : 1.0;
  if (e4m3 && e == 15 && m == 7)
    return NAN;
  if (!e4m3 && e == 31)
    return m ? NAN : sign * INFINITY;
  double magnitude = e == 0 ? std::ldexp(m, 1 - bias - manBits)
                            : std::ldexp((1 << manBits) + m, e - bias - manBits);
  return sign * magnitude;
}
/// Rounded to nearest (ties to the even code) and saturated to the largest finite value, as
/// cvt.rn.satfinite does.
inline uint8_t toFp8(double x, bool e4m3) {
  if (std::isnan(x))
    return 0x7F;
  uint8_t maxCode = e4m3 ? 0x7E : 0x7B, best = 0;
  double magnitude = std::fabs(x), bestError = INFINITY;
  if (magnitude >= fromFp8(maxCode, e4m3)) {
    best = maxCode;
  } else {
    for (int code = 0; code <= maxCode; ++code) {
      double error = std::fabs(fromFp8(code, e4m3) - magnitude);
      if (error < bestError || (error == bestError && code % 2 == 0)) {
        bestError = error;
        best = code;
      }
    }
  }
  return best | (x < 0 ? 0x80 : 0);
}
inline bool isFp8(ElementType t) {
  return t == ElementType::F8E4M3FN || t == ElementType::F8E5M2;
}
/// `x` as an output of `type` holds it: rounded and saturated for 8-bit floats (a rare tie
/// flips one code), unchanged for others (their rounding is within the tolerances).
inline double roundedAs(double x, ElementType type) {
  bool e4m3 = type == ElementType::F8E4M3FN;
  return isFp8(type) ? fromFp8(toFp8(x, e4m3), e4m3) : x;
}

/// A host tensor: the values as the device sees them (already rounded) and their bytes.
struct HostTensor {
  OperandLayout layout;
  std::vector<double> values; // indexed by the layout's strides (same storage as bytes)
  std::vector<uint8_t> bytes;
};

inline int64_t storageSize(const OperandLayout &l) {
  int64_t size = 1;
  for (size_t i = 0; i < l.shape.size(); ++i)
    size += (l.shape[i] - 1) * l.strides[i];
  return size;
}

inline HostTensor randomTensor(ElementType type, std::vector<int64_t> shape, std::mt19937 &rng,
                        bool columnMajor = false) {
  HostTensor t;
  t.layout.type = type;
  t.layout.shape = shape;
  t.layout.strides = rowMajorStrides(shape);
  if (columnMajor) // a column-major matrix: rows are adjacent in memory
    t.layout.strides = {1, shape[0]};
  int64_t n = storageSize(t.layout);
  unsigned bytesPer = elementTypeBytes(type);
  t.values.resize(n);
  t.bytes.resize(n * bytesPer);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    float f = dist(rng);
    if (type == ElementType::BF16) {
      uint16_t h = toBF16(f);
      std::memcpy(&t.bytes[i * 2], &h, 2);
      t.values[i] = fromBF16(h);
    } else if (type == ElementType::F16) {
      uint16_t h = toF16(f);
      std::memcpy(&t.bytes[i * 2], &h, 2);
      t.values[i] = fromF16(h);
    } else if (isFp8(type)) {
      bool e4m3 = type == ElementType::F8E4M3FN;
      t.bytes[i] = toFp8(f, e4m3);
      t.values[i] = fromFp8(t.bytes[i], e4m3);
    } else {
      std::memcpy(&t.bytes[i * 4], &f, 4);
      t.values[i] = f;
    }
  }
  return t;
}

/// f32 values drawn from [lo, hi] (scales), of `shape` (rank 0: one value).
inline HostTensor uniformF32(std::vector<int64_t> shape, double lo, double hi, std::mt19937 &rng) {
  HostTensor t = randomTensor(ElementType::F32, std::move(shape), rng);
  std::uniform_real_distribution<float> dist(static_cast<float>(lo), static_cast<float>(hi));
  for (size_t i = 0; i < t.values.size(); ++i) {
    float f = dist(rng);
    std::memcpy(&t.bytes[i * 4], &f, 4);
    t.values[i] = f;
  }
  return t;
}

inline double readDevice(const std::vector<uint8_t> &bytes, ElementType type, int64_t i) {
  if (type == ElementType::F32) {
    float f;
    std::memcpy(&f, &bytes[i * 4], 4);
    return f;
  }
  if (isFp8(type))
    return fromFp8(bytes[i], type == ElementType::F8E4M3FN);
  uint16_t h;
  std::memcpy(&h, &bytes[i * 2], 2);
  return type == ElementType::BF16 ? fromBF16(h) : fromF16(h);
}

/// Element (batch b of D, row i, col j) of a [batch..., R, C] tensor with numpy broadcasting.
inline int64_t offsetOf(const OperandLayout &l, const std::vector<int64_t> &dBatch, int64_t i,
                 int64_t j) {
  size_t r = l.shape.size();
  int64_t off = i * l.strides[r - 2] + j * l.strides[r - 1];
  size_t nb = r - 2;
  for (size_t k = 0; k < nb; ++k) {
    int64_t idx = dBatch[dBatch.size() - nb + k];
    if (l.shape[k] != 1)
      off += idx * l.strides[k];
  }
  return off;
}

struct Device {
  const CudaDriver *d;
  CUcontext ctx;
};

inline double geluRef(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/// d gelu(z) / dz of the tanh form, for the DGELU epilogs' reference.
inline double geluDerivativeRef(double z) {
  constexpr double c = 0.7978845608028654, a = 0.044715;
  double t = std::tanh(c * (z + a * z * z * z));
  return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * a * z * z);
}

inline void cu(CUresult r, const char *what) {
  if (llvm::Error e = checkCuda(r, what))
    throw mepi::Error(llvm::toString(std::move(e)));
}

inline mepi::DType apiDType(ElementType type) {
  switch (type) {
  case ElementType::F16: return mepi::DType::Float16;
  case ElementType::BF16: return mepi::DType::BFloat16;
  case ElementType::U8: return mepi::DType::UInt8;
  case ElementType::F8E4M3FN: return mepi::DType::Float8E4M3FN;
  case ElementType::F8E5M2: return mepi::DType::Float8E5M2;
  default: return mepi::DType::Float32;
  }
}

/// The built-in epilog of nvmath's name; an unknown name is the case's own error.
inline mepi::Epilog apiEpilog(const std::string &name) {
  if (std::optional<mepi::Epilog> epilog = mepi::epilogNamed(name))
    return *epilog;
  throw std::invalid_argument("test case: unknown epilog '" + name + "'");
}

/// Device copies of host tensors for one case, freed together when the case ends.
class DeviceArena {
public:
  explicit DeviceArena(const CudaDriver &driver) : driver(driver) {}
  DeviceArena(const DeviceArena &) = delete;
  ~DeviceArena() {
    for (CUdeviceptr ptr : allocations)
      driver.cuMemFree(ptr);
  }
  /// Uploads `t` and describes it as an API tensor, `offsetBytes` past an allocation's start
  /// (an offset that is not a multiple of 16 gives an address TMA cannot read).
  mepi::Tensor toDevice(const HostTensor &t, size_t offsetBytes = 0) {
    CUdeviceptr base = 0;
    cu(driver.cuMemAlloc(&base, std::max<size_t>(t.bytes.size() + offsetBytes, 1)), "cuMemAlloc");
    allocations.push_back(base);
    CUdeviceptr ptr = base + offsetBytes;
    cu(driver.cuMemcpyHtoD(ptr, t.bytes.data(), t.bytes.size()), "cuMemcpyHtoD");
    mepi::Tensor tensor;
    tensor.data = reinterpret_cast<void *>(ptr);
    tensor.dtype = apiDType(t.layout.type);
    tensor.shape = t.layout.shape;
    tensor.strides = t.layout.strides;
    return tensor;
  }
  /// Takes ownership of memory allocated elsewhere (the function form's D).
  void adopt(void *ptr) { allocations.push_back(reinterpret_cast<CUdeviceptr>(ptr)); }

private:
  const CudaDriver &driver;
  std::vector<CUdeviceptr> allocations;
};

/// A B^T in fp64 for row-major A [m, k] and B [n, k].
inline std::vector<double> referenceTN(const HostTensor &a, const HostTensor &b, int64_t m,
                                       int64_t n, int64_t k) {
  std::vector<double> acc(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += a.values[i * k + kk] * b.values[j * k + kk];
      acc[i * n + j] = sum;
    }
  return acc;
}

inline std::vector<uint8_t> fetch(const Device &dev, const mepi::Tensor &t) {
  int64_t elements = 1;
  for (size_t i = 0; i < t.shape.size(); ++i)
    elements += (t.shape[i] - 1) * (t.strides.empty() ? 1 : t.strides[i]);
  bool byte = t.dtype == mepi::DType::UInt8 || t.dtype == mepi::DType::Float8E4M3FN ||
              t.dtype == mepi::DType::Float8E5M2;
  size_t bytes = elements * (t.dtype == mepi::DType::Float32 ? 4 : byte ? 1 : 2);
  std::vector<uint8_t> out(bytes);
  cu(dev.d->cuCtxSynchronize(), "synchronize");
  cu(dev.d->cuMemcpyDtoH(out.data(), reinterpret_cast<CUdeviceptr>(t.data), bytes), "DtoH");
  return out;
}

/// Runs `mm` twice with D and every aux output poisoned in between (so that each must be
/// written in full by the second run).
inline mepi::Tensor executeTwice(const Device &dev, mepi::Matmul &mm) {
  mepi::Tensor d = mm.execute();
  cu(dev.d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(d.data), 0xFF, fetch(dev, d).size()),
     "poison D");
  for (const auto &[key, t] : mm.auxOutputs())
    cu(dev.d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(t.data), 0xFF, fetch(dev, t).size()),
       "poison aux");
  return mm.execute();
}

/// `values` as f32 bytes (the form compare reads for ElementType::F32).
inline std::vector<uint8_t> packFloats(const std::vector<double> &values) {
  std::vector<uint8_t> packed(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    float f = float(values[i]);
    std::memcpy(&packed[i * 4], &f, 4);
  }
  return packed;
}

/// Relative L2 error of `got` (device bytes of `type`) against `want`; "" or why it failed.
inline std::string compare(const char *what, const std::vector<uint8_t> &got, ElementType type,
                    const std::vector<double> &want, double tolerance, double &err) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double o = readDevice(got, type, i);
    if (!std::isfinite(o))
      return std::string(what) + ": non-finite value at " + std::to_string(i);
    num += (o - want[i]) * (o - want[i]);
    den += want[i] * want[i];
  }
  double e = std::sqrt(num / std::max(den, 1e-30));
  err = std::max(err, e);
  if (!(e <= tolerance)) {
    char line[160];
    std::snprintf(line, sizeof line, "%s: relative error %.2e above %.0e", what, e, tolerance);
    return line;
  }
  return "";
}

/// Runs one case (`run` returns "" or why it failed, and sets its error and configuration),
/// counts it in `passed` or `failed` and prints its PASS / FAIL line; a mepi::Error fails it.
inline void reportCase(const std::string &line,
                       const std::function<std::string(double &, std::string &)> &run,
                       int &passed, int &failed) {
  double err = 0;
  std::string config, why;
  try {
    why = run(err, config);
  } catch (const mepi::Error &e) {
    why = e.what();
  }
  bool ok = why.empty();
  (ok ? passed : failed)++;
  std::printf("%s %s %s relerr=%.2e%s%s\n", ok ? "PASS" : "FAIL", line.c_str(), config.c_str(),
              err, ok ? "" : "  ", why.c_str());
  std::fflush(stdout);
}

} // namespace gputest

#endif // MEPI_TEST_GPU_GPUTESTSUPPORT_H
