// mepi-bench --fp8 (see Fp8Bench.h).
#include "Fp8Bench.h"
#include "Fp8LtMatmul.h"
#include "Sweep.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

using namespace bench;

namespace {
/// The scaling modes measured, each against cuBLASLt's same mode; MXFP8 (mx, e8m0 scales per
/// 32 elements of K), which cuBLASLt does not run on Hopper, against its tensor-wise FP8: the
/// cost of mepi's emulation.
enum class Mode { Tensor, TensorFast, Row, Block, Mx };
constexpr Mode kModes[] = {Mode::Tensor, Mode::TensorFast, Mode::Row, Mode::Block, Mode::Mx};
/// cuBLASLt's scaling for a mode (MXFP8 against its tensor-wise FP8).
Fp8LtScaling ltScaling(Mode m) {
  return m == Mode::TensorFast ? Fp8LtScaling::TensorFast
         : m == Mode::Row      ? Fp8LtScaling::Row
         : m == Mode::Block    ? Fp8LtScaling::Block
                               : Fp8LtScaling::Tensor;
}
const char *modeName(Mode m) {
  return m == Mode::Tensor ? "tensor" : m == Mode::TensorFast ? "tensor-fast"
         : m == Mode::Row  ? "row"
         : m == Mode::Block ? "block"
                            : "mx";
}

/// MXFP8's e8m0 scales of `rows` rows in cuBLASLt's interleaved layout (128 x 4 tiles).
int64_t mxScaleBytes(int64_t rows, int64_t k) {
  return (rows + 127) / 128 * 128 * (((k + 31) / 32 + 3) / 4 * 4);
}

/// Block scaling's factors (1 x 128 blocks of A, 128 x 128 of B) in the layouts torch hands
/// cuBLASLt: A's [M, ceil(K / 128)] M-major, B's [ceil(N / 128), ceil(K / 128)] with rows of
/// ceil(K / 128) padded to 4.
struct BlockScaleLayout {
  int64_t blocksK, blocksN, pitchB;
  explicit BlockScaleLayout(const Shape &s)
      : blocksK((s.k + 127) / 128), blocksN((s.n + 127) / 128), pitchB((blocksK + 3) / 4 * 4) {}
  size_t aCount(const Shape &s) const { return size_t(s.m * blocksK); }
  size_t bCount() const { return size_t(blocksN * pitchB); }
};

struct Fp8Result {
  double mepiMs = 0, ltMs = 0;
  std::string config, error;
  /// --autotune: the heuristic's choice and every candidate's median ms, fastest first.
  std::string heuristicConfig;
  std::vector<std::pair<std::string, double>> tuned;
};

Fp8Result measure(const Shape &s, Mode mode, cublasLtHandle_t lt, CUstream stream,
                  const Fp8RunOptions &options) {
  Fp8Result r;
  bool row = mode == Mode::Row, block = mode == Mode::Block;
  BlockScaleLayout blocks(s);
  CUdeviceptr a = randomFp8Buffer(size_t(s.m * s.k), 1), b = randomFp8Buffer(size_t(s.n * s.k), 2);
  // Scales near 1 (exactly representable values do not matter for timing).
  CUdeviceptr sA = randomFloatBuffer(block ? blocks.aCount(s) : size_t(row ? s.m : 1), 3);
  CUdeviceptr sB = randomFloatBuffer(block ? blocks.bCount() : size_t(row ? s.n : 1), 4), d = 0;
  cu(driver->cuMemAlloc(&d, size_t(s.m * s.n) * 2), "cuMemAlloc(d)");
  // MXFP8: random bytes as e8m0 scales (the values do not matter for timing).
  bool mx = mode == Mode::Mx;
  CUdeviceptr mxA = mx ? randomFp8Buffer(size_t(mxScaleBytes(s.m, s.k)), 5) : 0;
  CUdeviceptr mxB = mx ? randomFp8Buffer(size_t(mxScaleBytes(s.n, s.k)), 6) : 0;
  try {
    mepi::Options mepiOptions;
    mepiOptions.kernelConfig = options.forcedConfig;
    mepiOptions.resultType = mepi::DType::BFloat16;
    mepiOptions.fastAccumulation = mode == Mode::TensorFast;
    mepiOptions.quantizationScales.a =
        deviceTensor(sA, mepi::DType::Float32, row ? std::vector<int64_t>{s.m} : std::vector<int64_t>{});
    mepiOptions.quantizationScales.b =
        deviceTensor(sB, mepi::DType::Float32, row ? std::vector<int64_t>{s.n} : std::vector<int64_t>{});
    if (block) {
      mepiOptions.quantizationScales.a =
          deviceTensor(sA, mepi::DType::Float32, {s.m, blocks.blocksK});
      mepiOptions.quantizationScales.a->strides = {1, s.m};
      mepiOptions.quantizationScales.b =
          deviceTensor(sB, mepi::DType::Float32, {blocks.blocksN, blocks.blocksK});
      mepiOptions.quantizationScales.b->strides = {blocks.pitchB, 1};
    }
    if (mx) {
      mepiOptions.blockScaling = true;
      mepiOptions.quantizationScales.a =
          deviceTensor(mxA, mepi::DType::UInt8, {mxScaleBytes(s.m, s.k)});
      mepiOptions.quantizationScales.b =
          deviceTensor(mxB, mepi::DType::UInt8, {mxScaleBytes(s.n, s.k)});
    }
    std::vector<int64_t> bShape = options.rowMajorB ? std::vector<int64_t>{s.k, s.n}
                                                    : std::vector<int64_t>{s.n, s.k};
    mepi::Matmul mm(deviceTensor(a, mepi::DType::Float8E4M3FN, {s.m, s.k}),
                    deviceTensor(b, mepi::DType::Float8E4M3FN, bShape), std::nullopt, 1.0f,
                    std::nullopt, mepi::Qualifiers{false, !options.rowMajorB}, mepiOptions);
    mm.plan();
    if (options.autotune) {
      r.heuristicConfig = mm.kernelConfiguration();
      r.tuned = mm.autotune(5, /*prune=*/-1, stream);
    }
    r.config = mm.kernelConfiguration();
    Fp8LtMatmul ref(lt, s.m, s.n, s.k, ltScaling(mode), sA, sB);
    auto mepiLaunch = [&](int) { mm.execute(stream); };
    auto ltLaunch = [&](int) { ref.launch(a, b, d, stream); };
    mepiLaunch(0), ltLaunch(0); // warm-up: module loads, first launches
    cu(driver->cuStreamSynchronize(stream), "warm-up");
    int iterations = calibratedIterations(stream, options.quick, [&] { ltLaunch(0); });
    std::vector<double> ms =
        interleavedMedianMs(stream, std::max(iterations, 10), {mepiLaunch, ltLaunch});
    r.mepiMs = ms[0], r.ltMs = ms[1];
    mm.free();
  } catch (const mepi::Error &e) {
    r.error = e.what();
  }
  for (CUdeviceptr p : {a, b, sA, sB, d, mxA, mxB})
    if (p)
      driver->cuMemFree(p);
  return r;
}

/// --autotune: prints the heuristic's choice against the fastest candidate (as autotune()
/// timed them) under the row; returns the JSON fields for them (empty without autotune).
std::string printTuned(const Fp8Result &r) {
  if (r.tuned.empty())
    return "";
  double heuristic = 0;
  for (const auto &[config, ms] : r.tuned)
    if (config == r.heuristicConfig)
      heuristic = ms;
  double overBest = heuristic > 0 ? heuristic / r.tuned.front().second : 0;
  std::printf("    autotune: %zu candidates, fastest %s %.4f ms; the heuristic's %s %.3fx it\n",
              r.tuned.size(), shortConfig(r.tuned.front().first).c_str(),
              r.tuned.front().second, shortConfig(r.heuristicConfig).c_str(), overBest);
  return ", \"heuristic_config\": \"" + jsonEscape(r.heuristicConfig) +
         "\", \"heuristic_over_best\": " + std::to_string(overBest) + ", \"candidates_ms\": [" +
         candidatesJson(r.tuned) + "]";
}

/// The shapes, the dense set's (without the 65536-row one, beyond the rest's memory
/// budget beside cuBLASLt's), then 12 seeded random ones: M, N, K multiples of 16 (FP8 rows
/// are read in 16-byte units) from 256 to 16384, log-uniform.
std::vector<Shape> fp8Shapes() {
  std::vector<Shape> shapes = {
      {8192, 8192, 8192, "8192^3"},          {4096, 7168, 16384, "dsv3-4096x7168x16384"},
      {4096, 4096, 7168, "4096x4096x7168"},  {2048, 5120, 5120, "2048x5120x5120"},
      {128, 8192, 8192, "m128"},             {4096, 4096, 4096, "4096^3"},
      {16, 8192, 8192, "decode16"},          {4096, 14336, 4096, "llm-up"},
      {4096, 4096, 14336, "llm-down"},       {16384, 8192, 8192, "m16384"},
      {4096, 4112, 4128, "odd16"}};
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> logSize(std::log(256.0), std::log(16384.0));
  static std::vector<std::string> names;
  names.clear();
  for (int i = 0; i < 12; ++i) {
    auto draw = [&] { return std::max<int64_t>(16, int64_t(std::exp(logSize(rng))) / 16 * 16); };
    int64_t m = draw(), n = draw(), k = draw();
    names.push_back("sweep" + std::to_string(i));
    shapes.push_back({m, n, k, nullptr});
  }
  for (size_t i = 0; i < names.size(); ++i)
    shapes[shapes.size() - names.size() + i].name = names[i].c_str();
  return shapes;
}

/// The seeded sweep's first 40 unbatched shapes (Sweep.h: M from 1, N and K from 64 up to
/// 65536, log-uniform, shapes nobody tuned on), each dimension rounded up to a multiple of 16
/// as FP8 rows need; 40 keeps a run of four modes under ~3 minutes.
std::vector<Shape> fp8SweepShapes(uint64_t seed) {
  static std::vector<std::string> names;
  std::vector<Shape> shapes;
  auto up16 = [](int64_t v) { return (v + 15) / 16 * 16; };
  for (const SweepProblem &p : sweepProblems(seed, 40, 0, names))
    shapes.push_back({up16(p.shape.m), up16(p.shape.n), up16(p.shape.k), p.shape.name});
  return shapes;
}
} // namespace

int bench::runFp8Bench(cublasLtHandle_t lt, CUstream stream, const Fp8RunOptions &options) {
  std::printf("device: %s, %s; e4m3 A [M, K] x e4m3 B [N, K] -> bf16 D, scales f32\n",
              options.device, options.date);
  std::printf("%-22s %-11s %6s %6s %6s %9s %9s %7s  %s\n", "shape", "mode", "M", "N", "K",
              "mepi TF/s", "cuBLASLt", "ratio", "mepi kernel");
  std::string rows;
  double logRatio[std::size(kModes)] = {};
  int counted[std::size(kModes)] = {};
  std::vector<Shape> shapes = !options.shapes.empty() ? options.shapes
                              : options.sweepSeed   ? fp8SweepShapes(*options.sweepSeed)
                                                    : fp8Shapes();
  for (const Shape &s : shapes)
    for (Mode mode : kModes) {
      std::string label = std::string(s.name) + " " + modeName(mode);
      if (!selectedLabel(options.filters, label) || (options.quick && mode != Mode::Tensor))
        continue;
      Fp8Result r = measure(s, mode, lt, stream, options);
      double flops = 2.0 * s.m * s.n * s.k;
      auto tflops = [&](double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; };
      double ratio = r.mepiMs > 0 && r.ltMs > 0 ? r.ltMs / r.mepiMs : 0;
      if (r.error.empty()) {
        logRatio[int(mode)] += std::log(ratio);
        ++counted[int(mode)];
      }
      std::printf("%-22s %-11s %6ld %6ld %6ld %9.1f %9.1f %7.3f  %s%s%s\n", s.name,
                  modeName(mode), s.m, s.n, s.k, tflops(r.mepiMs), tflops(r.ltMs), ratio,
                  shortConfig(r.config).c_str(), r.error.empty() ? "" : "  ERROR: ",
                  r.error.c_str());
      std::string tuned = printTuned(r);
      std::fflush(stdout);
      char line[1200];
      std::snprintf(line, sizeof line,
                    "    {\"name\": \"%s\", \"mode\": \"%s\", \"m\": %ld, \"n\": %ld, \"k\": %ld, "
                    "\"mepi_ms\": %.4f, \"cublaslt_ms\": %.4f, \"mepi_tflops\": %.2f, "
                    "\"cublaslt_tflops\": %.2f, \"ratio\": %.4f, \"mepi_config\": \"%s\", "
                    "\"error\": \"%s\"}",
                    s.name, modeName(mode), s.m, s.n, s.k, r.mepiMs, r.ltMs, tflops(r.mepiMs),
                    tflops(r.ltMs), ratio, jsonEscape(r.config).c_str(),
                    jsonEscape(r.error).c_str());
      rows += (rows.empty() ? "" : ",\n") + std::string(line);
      if (!tuned.empty())
        rows.insert(rows.size() - 1, tuned);
    }
  std::string geomeans;
  for (Mode mode : kModes) {
    int i = int(mode);
    double g = counted[i] ? std::exp(logRatio[i] / counted[i]) : 0;
    std::printf("geometric mean of cuBLASLt time / mepi time, %s: %.3f over %d problems\n",
                modeName(mode), g, counted[i]);
    geomeans += std::string(geomeans.empty() ? "" : ", ") + "\"" + modeName(mode) +
                "\": " + std::to_string(g);
  }
  if (!options.jsonPath.empty()) {
    std::ofstream json(options.jsonPath);
    writeJsonHeader(json, options.device, options.date, options.command,
                    std::string(options.rowMajorB
                                    ? "e4m3 A [M, K]; mepi's e4m3 B [K, N] (N-major: copied "
                                      "K-major by mepi's pre-pass in every execute), "
                                      "cuBLASLt's B [N, K] (it reads FP8 K-major only)"
                                    : "e4m3 A [M, K], e4m3 B [N, K] (K-major)") +
                    ", bf16 D; f32 scales on the device: "
                    "tensor-wise (scalars), row-wise (sA [M], sB [N]) or block (sA [M, "
                    "ceil(K/128)] M-major, sB [ceil(N/128), ceil(K/128)] rows padded to 4)",
                    "ratio = cublaslt_ms / mepi_ms, timed interleaved; tensor: promoted sums "
                    "(cuBLASLt without FAST_ACCUM); tensor-fast: both with fast accumulation; "
                    "row: promoted, cuBLASLt's OUTER_VEC_32F scales; block: promoted, "
                    "cuBLASLt's VEC128_32F (A) and BLK128x128_32F (B) scales; mx: mepi's "
                    "MXFP8 (e8m0 scales per 32 of K, emulated: scaled bf16 copies and a bf16 "
                    "GEMM) against cuBLASLt's tensor-wise FP8 (no MXFP8 on Hopper)");
    json << "  \"geomean_ratio\": {" << geomeans << "},\n  \"results\": [\n"
         << rows << "\n  ]\n}\n";
  }
  return 0;
}
