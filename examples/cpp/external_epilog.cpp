// An epilog that calls device code written in CUDA C++ (examples/cuda/user_gelu.cu, compiled to
// LTO-IR by nvcc): mepi declares it in the epilog's MLIR and nvJitLink links it into the kernel.
//   external_epilog [path/to/user_gelu.ltoir]   (default: beside the executable)
#include <mepi/Matmul.h>

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
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
  func.func private @user_gelu(f32) -> f32
  func.func @epilog(%acc: f32, %bias: f32, %row: index, %col: index) -> f32 {
    %x = arith.addf %acc, %bias : f32
    %g = func.call @user_gelu(%x) : (f32) -> f32
    return %g : f32
  }
)mlir";

int main(int argc, char **argv) {
  std::string path;
  if (argc > 1) {
    path = argv[1];
  } else {
    char self[4096] = {0};
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string exe(self, len > 0 ? size_t(len) : 0);
    path = exe.substr(0, exe.rfind('/') + 1) + "user_gelu.ltoir";
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<char> ltoir((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (ltoir.empty()) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }

  const int64_t m = 150, n = 97, k = 64;
  CUdevice device;
  CUcontext context;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(k * n), bias(m), d(m * n);
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
  try {
    mepi::Matmul mm(tensor(dA, {m, k}), tensor(dB, {k, n}));
    mm.plan(mepi::UserEpilog{kEpilog, "epilog",
                             {{mepi::DeviceCode::Kind::LTOIR, "user_gelu.ltoir", ltoir}}},
            {{tensor(dBias, {m}), mepi::InputKind::Row}});
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
      double x = bias[i];
      for (int64_t kk = 0; kk < k; ++kk)
        x += double(a[i * k + kk]) * b[kk * n + j];
      double ref = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      num += (d[i * n + j] - ref) * (d[i * n + j] - ref);
      den += ref * ref;
    }
  double err = std::sqrt(num / den);
  std::printf("external_epilog: %ldx%ldx%ld f32, bias + GELU from CUDA C++ LTO-IR, relative "
              "error %.2e: %s\n",
              m, n, k, err, err <= 1e-5 ? "OK" : "FAILED");
  return err <= 1e-5 ? 0 : 1;
}
