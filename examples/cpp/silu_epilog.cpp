// A user epilog written in MLIR and fused by mepi: D = silu(A·B) = x * sigmoid(x), in bf16.
// The function is parsed, checked against the problem and inlined into the kernel.
#include <mepi/Matmul.h>

#include <cuda.h>

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

static const char *kSilu = R"mlir(
  func.func @silu(%acc: f32, %row: index, %col: index) -> bf16 {
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %acc : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %y = arith.divf %acc, %den : f32
    %t = arith.truncf %y : f32 to bf16
    return %t : bf16
  }
)mlir";

static uint16_t toBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
static float fromBF16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int main() {
  const int64_t m = 200, n = 301, k = 96;
  CUdevice device;
  CUcontext context;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(m * k), b(k * n), d(m * n);
  for (uint16_t &x : a) x = toBF16(dist(rng));
  for (uint16_t &x : b) x = toBF16(dist(rng));
  CUdeviceptr dA, dB;
  CHECK(cuMemAlloc(&dA, a.size() * 2));
  CHECK(cuMemAlloc(&dB, b.size() * 2));
  CHECK(cuMemcpyHtoD(dA, a.data(), a.size() * 2));
  CHECK(cuMemcpyHtoD(dB, b.data(), b.size() * 2));

  auto tensor = [](CUdeviceptr p, std::vector<int64_t> shape) {
    mepi::Tensor t;
    t.data = reinterpret_cast<void *>(p);
    t.dtype = mepi::DType::BFloat16;
    t.shape = std::move(shape);
    return t;
  };
  try {
    mepi::Matmul mm(tensor(dA, {m, k}), tensor(dB, {k, n}));
    mm.plan(mepi::UserEpilog{kSilu, "silu"});
    mepi::Tensor result = mm.execute();
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(d.data(), reinterpret_cast<CUdeviceptr>(result.data), d.size() * 2));
  } catch (const mepi::Error &e) {
    std::fprintf(stderr, "mepi: %s\n", e.what());
    return 1;
  }
  double num = 0, den = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += double(fromBF16(a[i * k + kk])) * fromBF16(b[kk * n + j]);
      double ref = acc / (1.0 + std::exp(-acc));
      double out = fromBF16(d[i * n + j]);
      num += (out - ref) * (out - ref);
      den += ref * ref;
    }
  double err = std::sqrt(num / den);
  std::printf("silu_epilog: %ldx%ldx%ld bf16, SiLU epilog from MLIR text, relative error %.2e: "
              "%s\n",
              m, n, k, err, err <= 1e-2 ? "OK" : "FAILED");
  cuMemFree(dA);
  cuMemFree(dB);
  return err <= 1e-2 ? 0 : 1;
}
