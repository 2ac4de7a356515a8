// The GPU suite's fp64 reference (see GpuReference.h).
#include "GpuReference.h"

#include <algorithm>
#include <cmath>
#include <thread>

std::string gputest::compareWithReference(const Case &c, const HostTensor &a, const HostTensor &b,
                                 const HostTensor &cT, const HostTensor &bias,
                                 const std::vector<uint8_t> &out, std::mt19937 &rng,
                                 double &err) {
  int64_t m = c.dShape[c.dShape.size() - 2], n = c.dShape.back();
  int64_t k = c.transA ? c.aShape[c.aShape.size() - 2] : c.aShape.back();
  int64_t dCount = 1;
  for (int64_t s : c.dShape)
    dCount *= s;
  bool hasBias = c.epilog.find("BIAS") != std::string::npos;
  int64_t batch = dCount / (m * n);
  std::vector<int64_t> rows;
  if (m * n * k * batch <= (int64_t(1) << 28)) {
    for (int64_t i = 0; i < m; ++i)
      rows.push_back(i);
  } else {
    rows = {0, m - 1};
    std::uniform_int_distribution<int64_t> pick(0, m - 1);
    for (int i = 0; i < 14; ++i)
      rows.push_back(pick(rng));
  }
  size_t nb = c.dShape.size() - 2;
  std::vector<double> num(batch * rows.size(), 0.0), den(batch * rows.size(), 0.0);
  std::vector<int> bad(batch * rows.size(), 0);
  auto work = [&](size_t begin, size_t end) {
    for (size_t w = begin; w < end; ++w) {
      int64_t bi = w / rows.size(), i = rows[w % rows.size()];
      std::vector<int64_t> dBatch(nb);
      for (int64_t rem = bi, q = static_cast<int64_t>(nb) - 1; q >= 0; --q) {
        dBatch[q] = rem % c.dShape[q];
        rem /= c.dShape[q];
      }
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          double av = a.values[c.transA ? offsetOf(a.layout, dBatch, kk, i)
                                        : offsetOf(a.layout, dBatch, i, kk)];
          double bv = b.values[c.transB ? offsetOf(b.layout, dBatch, j, kk)
                                        : offsetOf(b.layout, dBatch, kk, j)];
          acc += av * bv;
        }
        double x = c.alpha * acc;
        if (c.withC)
          x += c.beta * cT.values[i * n + j];
        if (hasBias)
          x += bias.values[c.biasPerElement ? bi * m + i : i];
        if (c.epilog == "RELU" || c.epilog == "RELU_BIAS")
          x = std::max(x, 0.0);
        if (c.epilog == "GELU" || c.epilog == "GELU_BIAS")
          x = geluRef(x);
        if (c.epilog == "SIGMOID")
          x = 1.0 / (1.0 + std::exp(-x));
        if (c.epilog == "TANH")
          x = std::tanh(x);
        if (c.epilog == "SILU")
          x = x / (1.0 + std::exp(-x));
        double o = readDevice(out, c.outType.value_or(c.type), (bi * m + i) * n + j);
        if (!std::isfinite(o))
          bad[w] = 1;
        num[w] += (o - x) * (o - x);
        den[w] += x * x;
      }
    }
  };
  unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  size_t total = num.size(), chunk = (total + threads - 1) / threads;
  for (size_t s = 0; s < total; s += chunk)
    pool.emplace_back(work, s, std::min(total, s + chunk));
  for (std::thread &t : pool)
    t.join();
  double sn = 0, sd = 0;
  int badCount = 0;
  for (size_t w = 0; w < total; ++w) {
    sn += num[w];
    sd += den[w];
    badCount += bad[w];
  }
  err = sd > 0 ? std::sqrt(sn / sd) : std::sqrt(sn);
  if (badCount)
    return "non-finite outputs (unwritten or NaN) in " + std::to_string(badCount) + " rows";
  double tol = c.type == ElementType::F32 ? (c.tf32 ? 1e-3 : 1e-5) : 1e-2;
  // TF32 keeps 10 mantissa bits: its error is far above f32's, so a run that shows none did not
  // round (the opt-in was lost).
  if (c.tf32 && err < 1e-6)
    return "tf32 rounding not visible (relative error " + std::to_string(err) + ")";
  if (!(err <= tol))
    return "relative error above " + std::to_string(tol);
  return "";
}
