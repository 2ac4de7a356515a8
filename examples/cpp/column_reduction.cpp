// A user epilog in MLIR text with a reduction of its own: D = gelu(acc + bias[col]) in bf16,
// and "col_sum", the sum of each column of D (in f32, before D is rounded), computed inside the
// matmul. The function returns D's element, then one f32 per declared reduction.
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

static const char *kEpilog = R"mlir(
  func.func @bias_gelu_colsum(%acc: f32, %bias: bf16, %row: index, %col: index) -> (bf16, f32) {
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.constant 0.7978845608 : f32
    %c3 = arith.constant 0.044715 : f32
    %b = arith.extf %bias : bf16 to f32
    %x = arith.addf %acc, %b : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %in = math.fma %x3, %c3, %x : f32
    %arg = arith.mulf %in, %c : f32
    %t = math.tanh %arg : f32
    %s = arith.addf %one, %t : f32
    %hx = arith.mulf %x, %half : f32
    %y = arith.mulf %hx, %s : f32
    %d = arith.truncf %y : f32 to bf16
    return %d, %y : bf16, f32
  }
)mlir";

static uint16_t toBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
static double fromBF16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int main() {
  const int64_t m = 513, n = 200, k = 96;
  CUdevice device;
  CUcontext context;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(m * k), b(k * n), bias(n), d(m * n);
  std::vector<float> colSum(n);
  for (uint16_t &x : a) x = toBF16(dist(rng));
  for (uint16_t &x : b) x = toBF16(dist(rng));
  for (uint16_t &x : bias) x = toBF16(dist(rng));
  CUdeviceptr dA, dB, dBias;
  CHECK(cuMemAlloc(&dA, a.size() * 2));
  CHECK(cuMemAlloc(&dB, b.size() * 2));
  CHECK(cuMemAlloc(&dBias, bias.size() * 2));
  CHECK(cuMemcpyHtoD(dA, a.data(), a.size() * 2));
  CHECK(cuMemcpyHtoD(dB, b.data(), b.size() * 2));
  CHECK(cuMemcpyHtoD(dBias, bias.data(), bias.size() * 2));

  auto tensor = [](CUdeviceptr p, std::vector<int64_t> shape) {
    mepi::Tensor t;
    t.data = reinterpret_cast<void *>(p);
    t.dtype = mepi::DType::BFloat16;
    t.shape = std::move(shape);
    return t;
  };
  try {
    mepi::Matmul mm(tensor(dA, {m, k}), tensor(dB, {k, n}));
    mepi::UserEpilog epilog{kEpilog, "bias_gelu_colsum"};
    epilog.outputs = {{"col_sum", mepi::UserEpilogOutput::Kind::ColReduction}};
    mm.plan(epilog, {{tensor(dBias, {n}), mepi::InputKind::Col}});
    mepi::Tensor result = mm.execute();
    const mepi::Tensor &sums = mm.auxOutputs().at("col_sum");
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(d.data(), reinterpret_cast<CUdeviceptr>(result.data), d.size() * 2));
    CHECK(cuMemcpyDtoH(colSum.data(), reinterpret_cast<CUdeviceptr>(sums.data), n * 4));
  } catch (const mepi::Error &e) {
    std::fprintf(stderr, "mepi: %s\n", e.what());
    return 1;
  }

  std::vector<double> refSum(n, 0.0);
  double num = 0, den = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double x = fromBF16(bias[j]);
      for (int64_t kk = 0; kk < k; ++kk)
        x += fromBF16(a[i * k + kk]) * fromBF16(b[kk * n + j]);
      double y = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      refSum[j] += y;
      double out = fromBF16(d[i * n + j]);
      num += (out - y) * (out - y);
      den += y * y;
    }
  double err = std::sqrt(num / den), sumNum = 0, sumDen = 0;
  for (int64_t j = 0; j < n; ++j) {
    sumNum += (colSum[j] - refSum[j]) * (colSum[j] - refSum[j]);
    sumDen += refSum[j] * refSum[j];
  }
  double sumErr = std::sqrt(sumNum / sumDen);
  bool ok = err <= 1e-2 && sumErr <= 1e-4;
  std::printf("column_reduction: %ldx%ldx%ld bf16, gelu(acc + bias[col]) with a user column sum: "
              "D relative error %.2e, col_sum relative error %.2e: %s\n",
              m, n, k, err, sumErr, ok ? "OK" : "FAILED");
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dBias);
  return ok ? 0 : 1;
}
