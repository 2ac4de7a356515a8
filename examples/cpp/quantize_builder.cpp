// A quantizing epilog built with the epilog builder and fused by mepi:
//   D[i, j]        = clamp(round(acc * scale[j]), -127, 127)   (integers, stored as f16)
//   row_amax[i]    = max_j |acc * scale[j]|                     (to choose the next scales)
// The builder prints the expression as an MLIR function, which is inlined into the kernel.
#include <mepi/EpilogBuilder.h>

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    CUresult r = (call);                                                                       \
    if (r != CUDA_SUCCESS) {                                                                   \
      std::fprintf(stderr, "%s failed: %d\n", #call, int(r));                                  \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

static uint16_t toF16(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
static double fromF16(uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return static_cast<double>(h);
}

int main() {
  const int64_t m = 300, n = 257, k = 160;
  CUdevice device;
  CUcontext context;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(m * k), b(k * n), d(m * n);
  std::vector<float> scale(n), rowAmax(m);
  for (uint16_t &x : a) x = toF16(dist(rng));
  for (uint16_t &x : b) x = toF16(dist(rng));
  for (float &s : scale) s = 30.0f + 20.0f * dist(rng); // some values reach past the clamp
  CUdeviceptr dA, dB, dScale;
  CHECK(cuMemAlloc(&dA, a.size() * 2));
  CHECK(cuMemAlloc(&dB, b.size() * 2));
  CHECK(cuMemAlloc(&dScale, scale.size() * 4));
  CHECK(cuMemcpyHtoD(dA, a.data(), a.size() * 2));
  CHECK(cuMemcpyHtoD(dB, b.data(), b.size() * 2));
  CHECK(cuMemcpyHtoD(dScale, scale.data(), scale.size() * 4));

  auto tensor = [](CUdeviceptr p, mepi::DType dtype, std::vector<int64_t> shape) {
    mepi::Tensor t;
    t.data = reinterpret_cast<void *>(p);
    t.dtype = dtype;
    t.shape = std::move(shape);
    return t;
  };
  try {
    mepi::EpilogBuilder e;
    mepi::EpilogValue scaled = e.mul(e.accumulator(), e.input("scale", mepi::InputKind::Col));
    e.store(e.clamp(e.round(scaled), e.constant(-127), e.constant(127)));
    e.reduction("row_amax", e.abs(scaled), mepi::ReductionKind::Row,
                mepi::UserEpilogOutput::Combiner::Max);

    mepi::Matmul mm(tensor(dA, mepi::DType::Float16, {m, k}),
                    tensor(dB, mepi::DType::Float16, {k, n}));
    mm.plan(e, {{"scale", tensor(dScale, mepi::DType::Float32, {n})}});
    mepi::Tensor result = mm.execute();
    const mepi::Tensor &amax = mm.auxOutputs().at("row_amax");
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(d.data(), reinterpret_cast<CUdeviceptr>(result.data), d.size() * 2));
    CHECK(cuMemcpyDtoH(rowAmax.data(), reinterpret_cast<CUdeviceptr>(amax.data), m * 4));
  } catch (const mepi::Error &e) {
    std::fprintf(stderr, "mepi: %s\n", e.what());
    return 1;
  }

  // fp64 reference. A value within f32 rounding of x.5 may round either way: allow one step
  // there, and nowhere else.
  int64_t wrong = 0;
  double amaxErr = 0;
  for (int64_t i = 0; i < m; ++i) {
    double refAmax = 0;
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += fromF16(a[i * k + kk]) * fromF16(b[kk * n + j]);
      double v = acc * scale[j];
      refAmax = std::max(refAmax, std::abs(v));
      double q = std::clamp(std::nearbyint(v), -127.0, 127.0);
      double diff = std::abs(fromF16(d[i * n + j]) - q);
      bool nearHalf = std::abs(std::abs(v - std::floor(v)) - 0.5) < 1e-3;
      wrong += diff > 1.0 || (diff == 1.0 && !nearHalf);
    }
    amaxErr = std::max(amaxErr, std::abs(rowAmax[i] - refAmax) / refAmax);
  }
  bool ok = wrong == 0 && amaxErr <= 1e-5;
  std::printf("quantize_builder: %ldx%ldx%ld f16, clamp(round(acc*scale[col])) by the epilog "
              "builder: %ld wrong elements, row amax relative error %.2e: %s\n",
              m, n, k, wrong, amaxErr, ok ? "OK" : "FAILED");
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dScale);
  return ok ? 0 : 1;
}
