// mepi-bench --grouped-k: the weight gradients of the grouped set's prefill shapes, groups along
// K (torch._grouped_mm's 2-D x 2-D): dW[g] = dY_g^T X_g with dY [T, N] and X [T, K] row-major
// (as a layer's backward pass has them), dW [G, N, K], against (a) one cuBLASLt matmul per
// non-empty group and (b) one dense cuBLASLt matmul of N x K x T (the same FLOPs), interleaved.
#include "GroupedBench.h"

#include "mepi/GroupedMatmul.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>

using namespace bench;

namespace {
struct KResult {
  double mepiMs = 0, loopMs = 0, denseMs = 0;
  std::string config, error;
};

/// Times mepi, the per-group loop and the dense matmul on one weight gradient: D [G, M, N]
/// from dY [T, M] and X [T, N] in groups of `sizes` rows.
KResult measureGroupedK(const GroupedShape &s, const std::vector<int64_t> &sizes,
                        cublasLtHandle_t lt, CUstream stream, const GroupedRunOptions &options) {
  KResult r;
  const int64_t t = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  const int64_t m = s.n, n = s.k, g = s.groups; // dW of w [G, N, K]: M = N, N = K of the forward
  std::vector<int32_t> ends(g);
  std::partial_sum(sizes.begin(), sizes.end(), ends.begin());
  CUdeviceptr dy = randomBuffer(size_t(t * m), true, 1), x = randomBuffer(size_t(t * n), true, 2);
  CUdeviceptr offs, refD;
  cu(driver->cuMemAlloc(&offs, ends.size() * 4), "cuMemAlloc(offs)");
  cu(driver->cuMemcpyHtoD(offs, ends.data(), ends.size() * 4), "cuMemcpyHtoD(offs)");
  cu(driver->cuMemAlloc(&refD, size_t(g * m * n) * 2), "cuMemAlloc(ref d)");
  try {
    mepi::Options mepiOptions;
    mepiOptions.kernelConfig = options.forcedConfig;
    mepi::GroupedMatmul mm(deviceTensor(dy, mepi::DType::BFloat16, {t, m}),
                           deviceTensor(x, mepi::DType::BFloat16, {t, n}),
                           {deviceTensor(offs, mepi::DType::Int32, {g})}, 1.0f,
                           mepi::Qualifiers{true, false}, mepiOptions);
    mm.plan();
    r.config = mm.kernelConfiguration();
    // cuBLASLt (column-major): D_g^T [N, M] = X_g^T dY_g, X_g as N x rows (N-major A) and dY_g
    // as M x rows read transposed.
    auto spec = [&](int64_t rows) {
      LtMatmulSpec lts{n, m, rows};
      lts.mMajorA = lts.nMajorB = true;
      return lts;
    };
    std::map<int64_t, std::unique_ptr<LtMatmul>> perRows;
    for (int64_t rows : sizes)
      if (rows && !perRows.count(rows))
        perRows[rows] = std::make_unique<LtMatmul>(lt, spec(rows));
    LtMatmul dense(lt, spec(t));
    auto loop = [&](int) {
      int64_t row = 0;
      for (int64_t i = 0; i < g; row += sizes[i++])
        if (sizes[i])
          perRows[sizes[i]]->launch(x + size_t(row * n) * 2, dy + size_t(row * m) * 2,
                                    refD + size_t(i * m * n) * 2, stream);
    };
    auto mepiLaunch = [&](int) { mm.execute(stream); };
    auto denseLaunch = [&](int) { dense.launch(x, dy, refD, stream); };
    mepiLaunch(0), loop(0), denseLaunch(0);
    cu(driver->cuStreamSynchronize(stream), "warm-up");
    int iterations = calibratedIterations(stream, options.quick, [&] { loop(0); });
    std::vector<double> ms =
        interleavedMedianMs(stream, std::max(iterations, 10), {mepiLaunch, loop, denseLaunch});
    r.mepiMs = ms[0], r.loopMs = ms[1], r.denseMs = ms[2];
    mm.free();
  } catch (const mepi::Error &e) {
    r.error = e.what();
  }
  for (CUdeviceptr p : {dy, x, offs, refD})
    driver->cuMemFree(p);
  return r;
}
} // namespace

int bench::runGroupedKBench(cublasLtHandle_t lt, CUstream stream,
                            const GroupedRunOptions &options) {
  double copyGBs = copyBandwidthGBs(stream);
  std::printf("device: %s, %s; bf16 dY [T, M], X [T, N] row-major, groups over T, dW [G, M, N]; "
              "device copy %.0f GB/s\n",
              options.device, options.date, copyGBs);
  std::printf("%-14s %4s %6s %6s %6s %9s %9s %9s %8s %8s %8s  %s\n", "shape", "G", "T", "M", "N",
              "mepi TF/s", "loop", "dense", "/dense", "/loop", "D %copy", "mepi kernel");
  std::string rows;
  GroupedSummary summary;
  for (size_t i = 0; i < kGroupedShapeCount; ++i) {
    const GroupedShape &s = kGroupedShapes[i];
    if (decodeShaped(s) || !selectedLabel(options.filters, s.name))
      continue;
    std::vector<int64_t> sizes = drawSizes(s, 2026);
    int64_t t = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
    KResult r = measureGroupedK(s, sizes, lt, stream, options);
    double flops = 2.0 * t * s.n * s.k;
    auto tflops = [&](double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; };
    double vsDense = r.mepiMs > 0 ? r.denseMs / r.mepiMs : 0;
    double vsLoop = r.mepiMs > 0 ? r.loopMs / r.mepiMs : 0;
    // D is written once: G M N 16-bit values (the memory floor where G is large).
    double dGBs = r.mepiMs > 0 ? 2.0 * s.groups * s.n * s.k / (r.mepiMs * 1e-3) / 1e9 : 0;
    if (r.error.empty())
      summary.add(/*decode=*/false, vsDense, dGBs / copyGBs);
    std::printf("%-14s %4ld %6ld %6ld %6ld %9.1f %9.1f %9.1f %8.3f %8.3f %8.3f  %s%s%s\n",
                s.name, s.groups, t, s.n, s.k, tflops(r.mepiMs), tflops(r.loopMs),
                tflops(r.denseMs), vsDense, vsLoop, dGBs / copyGBs, shortConfig(r.config).c_str(),
                r.error.empty() ? "" : "  ERROR: ", r.error.c_str());
    std::fflush(stdout);
    char row[1200];
    std::snprintf(row, sizeof row,
                  "    {\"name\": \"%s-dw\", \"groups\": %ld, \"t\": %ld, \"m\": %ld, \"n\": %ld, "
                  "\"dtype\": \"bf16\", \"mepi_ms\": %.4f, \"loop_ms\": %.4f, \"dense_ms\": %.4f, "
                  "\"mepi_tflops\": %.2f, \"ratio_vs_dense\": %.4f, \"ratio_vs_loop\": %.4f, "
                  "\"d_fraction_of_copy\": %.4f, \"mepi_config\": \"%s\", \"error\": \"%s\"}",
                  s.name, s.groups, t, s.n, s.k, r.mepiMs, r.loopMs, r.denseMs, tflops(r.mepiMs),
                  vsDense, vsLoop, dGBs / copyGBs, jsonEscape(r.config).c_str(),
                  jsonEscape(r.error).c_str());
    rows += (rows.empty() ? "" : ",\n") + std::string(row);
  }
  finishGroupedRun(options,
                   "weight gradients dW [G, M, N] = dY_g^T X_g: dY [T, M] and X [T, N] bf16 "
                   "row-major, group ends int32 [G] over T on the device (multiples of 16, "
                   "seeded 2026)",
                   "mepi: one grouped matmul along K; loop: one cublasLtMatmul per non-empty "
                   "group; dense: one cublasLtMatmul of M x N x T; ratio_vs_dense = dense_ms / "
                   "mepi_ms; d_fraction_of_copy: D's bytes per mepi time over a device copy's",
                   copyGBs, summary, rows);
  return 0;
}
