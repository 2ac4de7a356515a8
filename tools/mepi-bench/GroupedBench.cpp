// mepi-bench --grouped (see GroupedBench.h).
#include "GroupedBench.h"
#include "Fp8LtMatmul.h"

#include "mepi/GroupedMatmul.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <random>

using namespace bench;

// The MoE shapes of the anchors, and decode-shaped calls.
const GroupedShape bench::kGroupedShapes[] = {
    {"mixtral-up", 8, 16336, 14336, 4096},   {"mixtral-down", 8, 16336, 4096, 14336},
    {"dsv3-up", 256, 30944, 4096, 7168},     {"dsv3-decode", 256, 32, 4096, 7168},
    {"qwen3-up", 128, 64608, 1536, 2048},    {"qwen3-down", 128, 64608, 2048, 768},
    {"dsv3-decode-0to8", 256, 0, 4096, 7168, 8}, {"qwen3-decode-0to8", 128, 0, 1536, 2048, 8},
};

const size_t bench::kGroupedShapeCount = std::size(kGroupedShapes);

bool bench::decodeShaped(const GroupedShape &s) { return s.maxRows || s.tokens < 16 * s.groups; }

void bench::GroupedSummary::add(bool isDecode, double vsDense, double copyFraction) {
  if (!isDecode) {
    logPrefill += std::log(vsDense);
    ++prefill;
    return;
  }
  lowestDecodeCopy = decode ? std::min(lowestDecodeCopy, copyFraction) : copyFraction;
  ++decode;
}

std::vector<int64_t> bench::drawSizes(const GroupedShape &s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> sizes(s.groups, 0);
  if (s.maxRows) {
    std::uniform_int_distribution<int64_t> rows(0, s.maxRows);
    for (int64_t &size : sizes)
      size = rows(rng);
    return sizes;
  }
  std::uniform_int_distribution<int64_t> pick(0, s.groups - 1);
  if (s.tokens < 16 * s.groups) {
    for (int64_t r = 0; r < s.tokens; ++r)
      ++sizes[pick(rng)];
    return sizes;
  }
  std::uniform_real_distribution<double> weight(0.25, 1.75);
  std::vector<double> w(s.groups);
  for (double &x : w)
    x = weight(rng);
  double total = std::accumulate(w.begin(), w.end(), 0.0);
  int64_t used = 0;
  for (int64_t g = 0; g + 1 < s.groups; ++g)
    used += sizes[g] = std::min(s.tokens - used, int64_t(w[g] / total * s.tokens / 16) * 16);
  sizes.back() = s.tokens - used;
  return sizes;
}

namespace {
struct GroupedResult {
  double mepiMs = 0, loopMs = 0, denseMs = 0, copyGBs = 0;
  int64_t active = 0;
  std::string config, error;
};

} // namespace

double bench::copyBandwidthGBs(CUstream stream) {
  const size_t bytes = size_t(1) << 30;
  CUdeviceptr src, dst;
  cu(driver->cuMemAlloc(&src, bytes), "cuMemAlloc(copy)");
  cu(driver->cuMemAlloc(&dst, bytes), "cuMemAlloc(copy)");
  auto copy = [&](int) { cu(driver->cuMemcpyDtoDAsync(dst, src, bytes, stream), "copy"); };
  copy(0);
  double ms = medianMs(stream, 10, copy);
  driver->cuMemFree(src);
  driver->cuMemFree(dst);
  return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

namespace {

/// The quantization scales of an FP8 problem: A's a scalar, B's one per group for mepi (the
/// loop and the dense matmul read the first: the values do not matter for timing).
struct Fp8Scales {
  CUdeviceptr a = 0, b = 0;
};

/// mepi's grouped matmul of `s` (bf16, or e4m3 with tensor-wise scales and a bf16 D).
mepi::GroupedMatmul groupedMatmul(const GroupedShape &s, int64_t t, CUdeviceptr x, CUdeviceptr w,
                                  CUdeviceptr offs, const Fp8Scales *fp8,
                                  const GroupedRunOptions &options) {
  mepi::Options mepiOptions;
  mepiOptions.kernelConfig = options.forcedConfig;
  mepi::DType type = fp8 ? mepi::DType::Float8E4M3FN : mepi::DType::BFloat16;
  if (fp8) {
    mepiOptions.resultType = mepi::DType::BFloat16;
    mepiOptions.quantizationScales.a = deviceTensor(fp8->a, mepi::DType::Float32, {});
    mepiOptions.quantizationScales.b = deviceTensor(fp8->b, mepi::DType::Float32, {s.groups});
  }
  return mepi::GroupedMatmul(deviceTensor(x, type, {t, s.k}),
                             deviceTensor(w, type, {s.groups, s.n, s.k}),
                             {deviceTensor(offs, mepi::DType::Int32, {s.groups})}, 1.0f,
                             mepi::Qualifiers{false, true}, mepiOptions);
}

/// Times mepi, the per-group cuBLASLt loop and the dense cuBLASLt matmul on one problem.
GroupedResult measureGrouped(const GroupedShape &s, const std::vector<int64_t> &sizes,
                             bool bias, cublasLtHandle_t lt, CUstream stream,
                             const GroupedRunOptions &options) {
  GroupedResult r;
  const int64_t t = std::accumulate(sizes.begin(), sizes.end(), int64_t(0)), n = s.n, k = s.k;
  const size_t bytes = options.fp8 ? 1 : 2; // of an element of x and w (D is bf16)
  std::vector<int32_t> ends(s.groups);
  std::partial_sum(sizes.begin(), sizes.end(), ends.begin());
  auto operand = [&](size_t count, uint64_t seed) {
    return options.fp8 ? randomFp8Buffer(count, seed) : randomBuffer(count, true, seed);
  };
  CUdeviceptr x = operand(size_t(std::max<int64_t>(t, 1) * k), 1);
  CUdeviceptr w = operand(size_t(s.groups * n * k), 2);
  CUdeviceptr biasBuf = bias ? randomBuffer(size_t(s.groups * n), true, 3) : 0;
  Fp8Scales scales;
  if (options.fp8)
    scales = {randomFloatBuffer(1, 4), randomFloatBuffer(size_t(s.groups), 5)};
  CUdeviceptr offs, refD;
  cu(driver->cuMemAlloc(&offs, ends.size() * 4), "cuMemAlloc(offs)");
  cu(driver->cuMemcpyHtoD(offs, ends.data(), ends.size() * 4), "cuMemcpyHtoD(offs)");
  cu(driver->cuMemAlloc(&refD, size_t(std::max<int64_t>(t, 1) * n) * 2), "cuMemAlloc(ref d)");
  try {
    mepi::GroupedMatmul mm =
        groupedMatmul(s, t, x, w, offs, options.fp8 ? &scales : nullptr, options);
    mepi::EpilogInputs inputs;
    if (bias)
      inputs.bias = deviceTensor(biasBuf, mepi::DType::BFloat16, {s.groups, n});
    mm.plan(bias ? mepi::Epilog::GeluBias : mepi::Epilog::Default, inputs);
    r.config = mm.kernelConfiguration();

    // cuBLASLt computes D^T = W x^T column-major (D row-major, bias per output feature), as
    // torch's linear layers call it: per group m = N, n = the group's rows.
    cublasLtEpilogue_t epilog = bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    // FP8: tensor-wise scales, promoted sums (no fast accumulation) as mepi's.
    auto ltMatmul = [&](int64_t rows) -> std::unique_ptr<LtMatmul> {
      if (options.fp8)
        return std::make_unique<Fp8LtMatmul>(lt, n, rows, k, Fp8LtScaling::Tensor, scales.a,
                                             scales.b);
      return std::make_unique<LtMatmul>(
          lt, LtMatmulSpec{n, rows, k, true, false, false, epilog, biasBuf});
    };
    std::map<int64_t, std::unique_ptr<LtMatmul>> perRows; // one per distinct group size
    for (int64_t rows : sizes)
      if (rows && !perRows.count(rows))
        perRows[rows] = ltMatmul(rows);
    std::unique_ptr<LtMatmul> dense = ltMatmul(std::max<int64_t>(t, 1));
    auto loop = [&](int) {
      int64_t row = 0;
      for (int64_t g = 0; g < s.groups; row += sizes[g++]) {
        if (!sizes[g])
          continue;
        LtMatmul &one = *perRows[sizes[g]];
        if (bias)
          one.setBias(biasBuf + size_t(g * n) * 2);
        one.launch(w + size_t(g * n * k) * bytes, x + size_t(row * k) * bytes,
                   refD + size_t(row * n) * 2, stream);
      }
    };
    auto mepiLaunch = [&](int) { mm.execute(stream); };
    auto denseLaunch = [&](int) { dense->launch(w, x, refD, stream); };
    mepiLaunch(0), loop(0), denseLaunch(0); // warm-up: module loads, first launches
    cu(driver->cuStreamSynchronize(stream), "warm-up");
    int iterations = calibratedIterations(stream, options.quick, [&] { loop(0); });
    std::vector<double> ms =
        interleavedMedianMs(stream, std::max(iterations, 10), {mepiLaunch, loop, denseLaunch});
    r.mepiMs = ms[0], r.loopMs = ms[1], r.denseMs = ms[2];
    r.active = std::count_if(sizes.begin(), sizes.end(), [](int64_t v) { return v > 0; });
    mm.free();
  } catch (const mepi::Error &e) {
    r.error = e.what();
  }
  for (CUdeviceptr p : {x, w, biasBuf, offs, refD, scales.a, scales.b})
    if (p)
      driver->cuMemFree(p);
  return r;
}
} // namespace

int bench::runGroupedBench(cublasLtHandle_t lt, CUstream stream,
                           const GroupedRunOptions &options) {
  double copyGBs = copyBandwidthGBs(stream);
  const char *type = options.fp8 ? "fp8" : "bf16";
  std::printf("device: %s, %s; %s x [T, K], w [G, N, K], D [T, N] bf16; device copy %.0f GB/s\n",
              options.device, options.date, type, copyGBs);
  std::printf("%-18s %-9s %4s %6s %6s %6s %9s %9s %9s %8s %8s %8s  %s\n", "shape", "epilog", "G",
              "T", "N", "K", "mepi TF/s", "loop", "dense", "/dense", "/loop", "w %copy",
              "mepi kernel");
  std::string rows;
  GroupedSummary summary;
  for (const GroupedShape &s : kGroupedShapes)
    for (bool bias : {false, true}) {
      const char *epilog = bias ? "GELU_BIAS" : "DEFAULT";
      if (!selectedLabel(options.filters, std::string(s.name) + " " + epilog) ||
          ((options.quick || options.fp8) && bias))
        continue;
      std::vector<int64_t> sizes = drawSizes(s, 2026);
      int64_t t = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
      GroupedResult r = measureGrouped(s, sizes, bias, lt, stream, options);
      double flops = 2.0 * t * s.n * s.k;
      auto tflops = [&](double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; };
      double vsDense = r.mepiMs > 0 ? r.denseMs / r.mepiMs : 0;
      double vsLoop = r.mepiMs > 0 ? r.loopMs / r.mepiMs : 0;
      // The active experts' weights, read once: the floor of a decode-shaped call.
      double weightBytes = (options.fp8 ? 1.0 : 2.0) * r.active * s.n * s.k;
      double weightGBs = r.mepiMs > 0 ? weightBytes / (r.mepiMs * 1e-3) / 1e9 : 0;
      if (r.error.empty())
        summary.add(decodeShaped(s), vsDense, weightGBs / copyGBs);
      std::printf("%-18s %-9s %4ld %6ld %6ld %6ld %9.1f %9.1f %9.1f %8.3f %8.3f %8.3f  %s%s%s\n",
                  s.name, epilog, s.groups, t, s.n, s.k, tflops(r.mepiMs), tflops(r.loopMs),
                  tflops(r.denseMs), vsDense, vsLoop, weightGBs / copyGBs,
                  shortConfig(r.config).c_str(), r.error.empty() ? "" : "  ERROR: ",
                  r.error.c_str());
      std::fflush(stdout);
      char row[1400];
      std::snprintf(
          row, sizeof row,
          "    {\"name\": \"%s\", \"epilog\": \"%s\", \"groups\": %ld, \"active_groups\": %ld, "
          "\"t\": %ld, \"n\": %ld, \"k\": %ld, \"dtype\": \"%s\", \"mepi_ms\": %.4f, "
          "\"loop_ms\": %.4f, \"dense_ms\": %.4f, \"mepi_tflops\": %.2f, \"loop_tflops\": %.2f, "
          "\"dense_tflops\": %.2f, \"ratio_vs_dense\": %.4f, \"ratio_vs_loop\": %.4f, "
          "\"weight_gbs\": %.1f, \"weight_fraction_of_copy\": %.4f, \"mepi_config\": \"%s\", "
          "\"error\": \"%s\"}",
          s.name, epilog, s.groups, r.active, t, s.n, s.k, type, r.mepiMs, r.loopMs, r.denseMs,
          tflops(r.mepiMs), tflops(r.loopMs), tflops(r.denseMs), vsDense, vsLoop, weightGBs,
          weightGBs / copyGBs, jsonEscape(r.config).c_str(), jsonEscape(r.error).c_str());
      rows += (rows.empty() ? "" : ",\n") + std::string(row);
    }
  finishGroupedRun(options,
                   options.fp8 ? "x [T, K] e4m3 row-major, w [G, N, K] e4m3 (K-major), scales "
                                 "f32 (x's a scalar, w's one per group), group ends int32 [G] on "
                                 "the device, D [T, N] bf16 row-major, promoted sums, no bias; "
                                 "group sizes seeded (2026)"
                               : "x [T, K] bf16 row-major, w [G, N, K] (K-major), group ends "
                                 "int32 [G] on the device, D [T, N] row-major, bias [G, N]; group "
                                 "sizes seeded (2026)",
                   "mepi: one grouped matmul; loop: one cublasLtMatmul per non-empty group "
                   "(D^T = W x^T, bias per output feature); dense: one cublasLtMatmul of T x N "
                   "x K; ratio_vs_dense = dense_ms / mepi_ms; weight_fraction_of_copy: the "
                   "active groups' weight bytes per mepi time over a device copy's (read + "
                   "write) bandwidth",
                   copyGBs, summary, rows);
  return 0;
}

void bench::finishGroupedRun(const GroupedRunOptions &options, const char *layout,
                             const char *meaning, double copyGBs, const GroupedSummary &summary,
                             const std::string &rows) {
  double geomean = summary.prefill ? std::exp(summary.logPrefill / summary.prefill) : 0;
  std::printf("geometric mean of dense cuBLASLt time / mepi time over %d prefill-shaped "
              "problems: %.3f\n",
              summary.prefill, geomean);
  if (summary.decode)
    std::printf("decode-shaped problems (%d): lowest weight read rate %.3f of the device copy's\n",
                summary.decode, summary.lowestDecodeCopy);
  if (options.jsonPath.empty())
    return;
  std::ofstream json(options.jsonPath);
  writeJsonHeader(json, options.device, options.date, options.command, layout, meaning);
  // No decode-shaped problems (--grouped-k, or filtered out): null, not a rate of 0.
  json << "  \"copy_gbs\": " << copyGBs << ",\n  \"prefill_geomean_ratio_vs_dense\": "
       << geomean << ",\n  \"decode_lowest_weight_fraction_of_copy\": "
       << (summary.decode ? std::to_string(summary.lowestDecodeCopy) : std::string("null"))
       << ",\n  \"results\": [\n"
       << rows << "\n  ]\n}\n";
}
