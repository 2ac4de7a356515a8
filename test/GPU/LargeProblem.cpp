// The benchmark's largest problem: fp16 A [65536, 8192], B [16384, 8192] (K-major), RELU_BIAS,
// D [65536, 16384] = 2 GiB, so that any 32-bit byte offset of D, A or the tile walk overflows.
// Operands come from a counter-based hash (filled on the host by all cores), and 4096 sampled
// elements, among them the corners and the last rows and columns, are checked against fp64.
#include "LargeProblem.h"

#include <thread>

namespace gputest {
namespace {
/// A value in [-1, 1) from (seed, i), rounded to fp16: the same on host and device.
uint16_t hashedF16(uint64_t seed, uint64_t i) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
  x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 27;
  return toF16(static_cast<float>((x >> 40) & 0xFFFFFF) / 16777216.0f * 2.0f - 1.0f);
}

std::vector<uint16_t> hashedBuffer(uint64_t seed, size_t count) {
  std::vector<uint16_t> out(count);
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (size_t i = t; i < count; i += threads)
        out[i] = hashedF16(seed, i);
    });
  for (std::thread &t : pool)
    t.join();
  return out;
}

std::string runCase(const Device &dev, double &err, std::string &config) {
  const int64_t m = 65536, n = 16384, k = 8192;
  const CudaDriver &d = *dev.d;
  std::vector<uint16_t> a = hashedBuffer(1, size_t(m * k)), b = hashedBuffer(2, size_t(n * k)),
                        bias = hashedBuffer(3, size_t(m));
  CUdeviceptr dA = 0, dB = 0, dBias = 0;
  auto release = [&] {
    for (CUdeviceptr p : {dA, dB, dBias})
      if (p)
        d.cuMemFree(p);
  };
  std::string why;
  try {
    for (auto [ptr, host] : {std::pair{&dA, &a}, std::pair{&dB, &b}, std::pair{&dBias, &bias}}) {
      cu(d.cuMemAlloc(ptr, host->size() * 2), "cuMemAlloc");
      cu(d.cuMemcpyHtoD(*ptr, host->data(), host->size() * 2), "cuMemcpyHtoD");
    }
    auto tensor = [](CUdeviceptr p, std::vector<int64_t> shape) {
      mepi::Tensor t;
      t.data = reinterpret_cast<void *>(p);
      t.dtype = mepi::DType::Float16;
      t.shape = std::move(shape);
      return t;
    };
    mepi::Matmul mm(tensor(dA, {m, k}), tensor(dB, {n, k}), std::nullopt, 1.0f, std::nullopt,
                    {false, true});
    mepi::EpilogInputs inputs;
    inputs.bias = tensor(dBias, {m});
    mm.plan(mepi::Epilog::ReluBias, inputs);
    config = mm.kernelConfiguration();
    mepi::Tensor out = mm.execute();
    cu(d.cuCtxSynchronize(), "synchronize");
    // Sampled elements: the four corners, the last row and column, and random ones.
    std::vector<std::pair<int64_t, int64_t>> samples = {
        {0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
    std::mt19937_64 rng(7);
    for (int s = 0; s < 4092; ++s) {
      int64_t i = s % 4 == 0 ? m - 1 - int64_t(rng() % 128) : int64_t(rng() % m);
      int64_t j = s % 4 == 1 ? n - 1 - int64_t(rng() % 256) : int64_t(rng() % n);
      samples.push_back({i, j});
    }
    double num = 0, den = 0;
    for (auto [i, j] : samples) {
      double acc = fromF16(bias[i]);
      for (int64_t kk = 0; kk < k; ++kk)
        acc += double(fromF16(a[i * k + kk])) * fromF16(b[j * k + kk]);
      double want = std::max(acc, 0.0);
      uint16_t got16;
      cu(d.cuMemcpyDtoH(&got16, reinterpret_cast<CUdeviceptr>(out.data) + 2 * (i * n + j), 2),
         "DtoH");
      double got = fromF16(got16);
      if (!std::isfinite(got))
        throw mepi::Error("D[" + std::to_string(i) + ", " + std::to_string(j) + "] is not finite");
      num += (got - want) * (got - want);
      den += want * want;
    }
    err = std::sqrt(num / den);
    if (!(err <= 1e-2))
      why = "relative error above 1e-2 on the sampled elements";
  } catch (const mepi::Error &e) {
    why = std::string("error: ") + e.what();
  }
  release();
  return why;
}
} // namespace

int runLargeProblem(const Device &dev, const std::function<bool(const std::string &)> &selected,
                    int &passed, int &failed) {
  std::string line = "large fp16 RELU_BIAS 65536x16384x8192 (D 2 GiB), 4096 sampled elements";
  if (!selected(line))
    return failed;
  double err = 0;
  std::string config;
  std::string why = runCase(dev, err, config);
  (why.empty() ? passed : failed)++;
  std::printf("%s %s %s relerr=%.2e%s%s\n", why.empty() ? "PASS" : "FAIL", line.c_str(),
              config.c_str(), err, why.empty() ? "" : "  ", why.c_str());
  std::fflush(stdout);
  return failed;
}

} // namespace gputest
