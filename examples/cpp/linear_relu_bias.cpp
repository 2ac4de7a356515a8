// A linear layer's forward pass with mepi's C++ API: D = relu(A·B + bias[:, None]), fused.
// Runs on the GPU, checks D against a host reference and prints the relative error.
#include <mepi/Matmul.h>

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    CUresult r = (call);                                                                       \
    if (r != CUDA_SUCCESS) {                                                                   \
      const char *name = "";                                                                   \
      cuGetErrorName(r, &name);                                                                \
      std::fprintf(stderr, "%s failed: %s\n", #call, name);                                    \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

int main() {
  const int64_t m = 300, n = 257, k = 129; // odd sizes on purpose
  CHECK(cuInit(0));
  CUdevice device;
  CUcontext context;
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(k * n), bias(m);
  for (float &x : a) x = dist(rng);
  for (float &x : b) x = dist(rng);
  for (float &x : bias) x = dist(rng);

  CUdeviceptr dA, dB, dBias;
  CHECK(cuMemAlloc(&dA, a.size() * 4));
  CHECK(cuMemAlloc(&dB, b.size() * 4));
  CHECK(cuMemAlloc(&dBias, bias.size() * 4));
  CHECK(cuMemcpyHtoD(dA, a.data(), a.size() * 4));
  CHECK(cuMemcpyHtoD(dB, b.data(), b.size() * 4));
  CHECK(cuMemcpyHtoD(dBias, bias.data(), bias.size() * 4));

  auto tensor = [](CUdeviceptr p, std::vector<int64_t> shape) {
    mepi::Tensor t;
    t.data = reinterpret_cast<void *>(p);
    t.dtype = mepi::DType::Float32;
    t.shape = std::move(shape);
    return t;
  };
  std::vector<float> d(m * n);
  try {
    mepi::Matmul mm(tensor(dA, {m, k}), tensor(dB, {k, n}));
    mm.plan(mepi::Epilog::ReluBias, {tensor(dBias, {m})});
    mepi::Tensor result = mm.execute();
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(d.data(), reinterpret_cast<CUdeviceptr>(result.data), d.size() * 4));
  } catch (const mepi::Error &e) {
    std::fprintf(stderr, "mepi: %s\n", e.what());
    return 1;
  }

  double num = 0, den = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = bias[i];
      for (int64_t kk = 0; kk < k; ++kk)
        ref += double(a[i * k + kk]) * b[kk * n + j];
      ref = std::max(ref, 0.0);
      num += (d[i * n + j] - ref) * (d[i * n + j] - ref);
      den += ref * ref;
    }
  double err = std::sqrt(num / den);
  std::printf("linear_relu_bias: %ldx%ldx%ld f32 RELU_BIAS, relative error %.2e: %s\n", m, n, k,
              err, err <= 1e-5 ? "OK" : "FAILED");
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dBias);
  return err <= 1e-5 ? 0 : 1;
}
