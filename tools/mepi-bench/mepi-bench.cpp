// mepi-bench: mepi's kernels and cuBLASLt on the same problem with the same epilog, in one
// process and one run. CUDA events around each launch, median after warm-up, inputs rotated
// when they fit in L2, random data. Prints a table and writes JSON.
//
// Problem layout (the fastest one for both): A is M x K and B is N x K, both K-major ("TN");
// mepi writes D row-major, cuBLASLt column-major (the only order its bias epilogs take). The
// bias has one value per row of D (length M), as in cuBLASLt and nvmath-python.
//
//   mpirun -np 2 mepi-bench --dist [--quick] [--epilog NAME] [--filter SUBSTRING] [--json FILE]
//   mepi-bench [--quick] [--stream] [--ungated] [--catalog | --user [--ltoir FILE]]
//              [--batched | --grouped | --grouped-k | --fp8] [--tf32 | --f32]
//              [--autotune [--confirm] [--skip N]] [--layout tn|nn] [--json FILE]
//              [--filter SUBSTRING]... [--config KERNEL_CONFIG] [--against KERNEL_CONFIG]...
//              [--shape MxNxK | BxMxNxK[b]]... [--sweep SEED] [--list]
//
// --list prints the problems a run would time (name, shape, dtype, epilog, aligned) and exits
// without a GPU: e.g. `--list --sweep SEED` gives a seed's problems to scripts.
//
// --layout nn gives B as K x N row-major instead (A @ B of row-major arrays; N-major B, which
// mepi reads transposed from shared memory and cuBLASLt takes as op T of an N x K matrix).
//
// --catalog measures the epilogs with aux outputs and bias gradients (RELU_AUX_BIAS,
// GELU_AUX_BIAS, DRELU_BGRAD, DGELU_BGRAD, BGRADA, BGRADB) in fp16 instead of the default set;
// BGRADA runs with A M-major and BGRADB with B N-major, the only layouts cuBLASLt takes them in. Their aux
// buffers have the layouts both take: the ReLU mask column-major with rows of ceil(M/8)
// rounded up to 16 bytes (cuBLASLt: ld = M rounded up to 128 bits), gelu_aux column-major
// with M rounded up to 8 rows; the backward epilogs read random ones and write the bias
// gradient (length M).
//
// --user measures a user epilog (bias + GELU as MLIR text, by the epilog builder and, with
// --ltoir FILE or user_gelu.ltoir beside the program, calling user_gelu from LTO-IR) against
// the built-in GELU_BIAS and against the unfused sequence (cuBLASLt's matmul, then an
// elementwise kernel), bf16, every shape.
//
// --ungated times the launches as they are submitted, without first queueing them all behind a
// spinning kernel (QueueGate.h): where a host call takes longer than its kernel, the events
// then time the host (runs before 2026-11-30 09:00 were timed so).
//
// --stream times each side's launches back to back (three rounds of them between two events,
// the median round's time over its launches) instead of one launch between two events: the
// time a kernel takes in a stream of kernels, where mepi's programmatic launch overlaps the
// start of each with the end of the one before.
//
// --autotune lets Matmul::autotune() choose mepi's configuration (timed into plan_ms) and
// reports how the heuristic's choice compares with the fastest candidate, as autotune() timed
// them (the log and JSON list every candidate's time); with --confirm, as a second pass times
// the heuristic's choice and autotune's three fastest others interleaved (launch by launch).
// --skip N leaves out the first N problems that the other options select, to split a long run.
//
// --shape measures the given problem sizes (labelled MxNxK) instead of the standard set;
// BxMxNxK is a strided batch of B problems (cuBLASLt's strided batched, as torch.bmm calls
// it), BxMxNxKb one whose elements share one B (batch stride 0; a 2-D B for mepi).
// --batched measures the batched set instead (torch.bmm shapes and shared-B batches).
// --tf32 measures f32 operands and D at TF32 precision (mepi's allowTF32 against cuBLASLt's
// CUBLAS_COMPUTE_32F_FAST_TF32) instead of bf16 and fp16; --f32 at f32 precision (mepi's
// strict f32, split into TF32 parts on the tensor cores, against cuBLASLt's CUBLAS_COMPUTE_32F,
// the SGEMM that torch and nvmath-python call for f32 by default).
// --fp8 measures FP8 matmuls against cuBLASLt's with the same scaling mode (Fp8Bench.h); with
// --shape, those problems (M, N, K multiples of 16) instead of its set; with --autotune, mepi's
// kernel as autotune() chose it among every candidate, the heuristic's choice against it.
// --grouped measures grouped matmuls (mixture-of-experts shapes, GroupedBench.h) against a
// per-group cuBLASLt loop and one dense cuBLASLt matmul of the same FLOPs (with --fp8, in e4m3
// against cuBLASLt's FP8); --grouped-k their weight gradients (groups along K,
// GroupedKBench.cpp) against the same two anchors.
// --filter keeps the problems whose label ("<shape> <dtype> <epilog>") contains any of the
// given substrings; --config forces mepi's kernel configuration (Options::kernelConfig), to
// compare configurations side by side; --against CONFIG (repeatable) also times each CONFIG
// interleaved with the row's own configuration, launch by launch over the same input sets (a
// line before the row; JSON against_ms), the way a rule is judged against forced forms.
#include "BenchOptions.h"
#include "BenchSupport.h"
#include "RunTotals.h"
#include "DistBench.h"
#include "Fp8Bench.h"
#include "GroupedBench.h"
#include "Sweep.h"
#include "UserEpilogBench.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <optional>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace bench;

namespace {
struct Problem {
  Shape shape;
  bool bf16;
  const char *epilog;
  bool aligned = true; ///< M, N and K multiples of 64 (the sweep's targets hold for these)
  bool f32 = false;    ///< f32 operands and D (--f32, --tf32)
  bool tf32 = false;   ///< f32 at TF32 precision (--tf32)
  const char *dtype() const { return tf32 ? "tf32" : f32 ? "f32" : bf16 ? "bf16" : "fp16"; }
};

struct Measurement {
  double mepiMs = 0, refMs = 0, planMs = 0, executeHostUs = 0, refHostUs = 0;
  int iterations = 0, rotation = 1;
  std::string config; ///< the kernel configuration mepi planned
  std::string error;
  /// --autotune: the heuristic's choice, and every candidate autotune() timed (fastest first).
  std::string heuristicConfig;
  std::vector<std::pair<std::string, double>> tuned;
  /// --confirm: the heuristic's choice first, then autotune()'s fastest others, timed again
  /// interleaved over the rotated input sets.
  std::vector<std::pair<std::string, double>> confirmed;
  /// --against: the row's own configuration first, then each --against one that could plan the
  /// problem, timed interleaved (launch by launch) over the rotated input sets.
  std::vector<std::pair<std::string, double>> against;
  /// The heuristic's choice's time over the fastest candidate's, as --confirm timed them where
  /// it ran, else as autotune() did (0 when autotune() could not time the heuristic's choice).
  /// The fastest of one pass over many candidates is biased low by each time's noise (µs-scale
  /// launches move a few %), hence the second pass over the few that matter.
  double heuristicOverBest() const {
    if (!confirmed.empty()) {
      double best = confirmed.front().second;
      for (const auto &[config, ms] : confirmed)
        best = ms > 0 ? std::min(best, ms) : best; // 0: a candidate that could not plan
      return best > 0 ? confirmed.front().second / best : 0;
    }
    for (const auto &[config, ms] : tuned)
      if (config == heuristicConfig && tuned.front().second > 0)
        return ms / tuned.front().second;
    return 0;
  }
};

// The command line's settings that measure() reads (main copies them from Options).
std::string forcedConfig;         ///< --config: Options::kernelConfig for every mepi problem
std::vector<std::string> against; ///< --against: timed interleaved beside the row's own
bool rowMajorB = false;           ///< --layout nn: B is K x N row-major
bool autotune = false;            ///< --autotune: Matmul::autotune() before timing
bool confirm = false;             ///< --confirm: autotune's best choices timed again

cublasLtEpilogue_t cublasEpilog(const std::string &name) {
  if (name == "BIAS") return CUBLASLT_EPILOGUE_BIAS;
  if (name == "RELU_AUX_BIAS") return CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  if (name == "GELU_AUX_BIAS") return CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  if (name == "DRELU_BGRAD") return CUBLASLT_EPILOGUE_DRELU_BGRAD;
  if (name == "DGELU_BGRAD") return CUBLASLT_EPILOGUE_DGELU_BGRAD;
  if (name == "BGRADA") return CUBLASLT_EPILOGUE_BGRADA;
  if (name == "BGRADB") return CUBLASLT_EPILOGUE_BGRADB;
  if (name == "RELU_BIAS") return CUBLASLT_EPILOGUE_RELU_BIAS;
  if (name == "GELU_BIAS") return CUBLASLT_EPILOGUE_GELU_BIAS;
  if (name == "RELU") return CUBLASLT_EPILOGUE_RELU;
  if (name == "GELU") return CUBLASLT_EPILOGUE_GELU;
  return CUBLASLT_EPILOGUE_DEFAULT;
}

mepi::Epilog mepiEpilog(const std::string &name) {
  return mepi::epilogNamed(name).value_or(mepi::Epilog::Default);
}

/// What a problem's epilog reads and writes beside A, B and D, and the layouts both libraries
/// take it in.
struct EpilogShape {
  bool backward, hasBias, reluAux, geluAux;
  // cuBLASLt takes BGRADA only with A M-major (transa = N: mepi's A [K, M] with transpose_a),
  // BGRADB only with B N-major (transb = T: B [K, N] row-major).
  bool mMajorA, nMajorB;
  // The aux layouts both libraries take (column-major, padded rows).
  int64_t maskPitch; // bytes per column of the ReLU mask
  int64_t geluPitch; // elements per column of gelu_aux
  explicit EpilogShape(const Problem &p) {
    std::string epilog = p.epilog;
    backward = epilog.find("BGRAD") != std::string::npos;
    hasBias = epilog.find("BIAS") != std::string::npos; // the input of the forward epilogs
    reluAux = epilog.find("RELU_AUX") != std::string::npos || epilog == "DRELU_BGRAD";
    geluAux = epilog.find("GELU_AUX") != std::string::npos || epilog == "DGELU_BGRAD";
    mMajorA = epilog == "BGRADA";
    nMajorB = rowMajorB || epilog == "BGRADB";
    maskPitch = ((p.shape.m + 7) / 8 + 15) / 16 * 16;
    geluPitch = (p.shape.m + 7) / 8 * 8;
  }
};

/// The device buffers of one problem: `rotation` sets of A and B, the bias, the aux buffer
/// (written by the forward epilogs, read with random contents by the backward ones; a random
/// 16-bit pattern is also a random mask), cuBLASLt's bias gradient and D.
struct ProblemBuffers {
  std::vector<CUdeviceptr> as, bs;
  CUdeviceptr bias = 0, aux = 0, refGrad = 0, refD = 0;
  ProblemBuffers(const Problem &p, const EpilogShape &ep, int rotation) {
    const int64_t m = p.shape.m, n = p.shape.n, k = p.shape.k, batch = p.shape.batch;
    const int64_t bCount = p.shape.sharedB ? 1 : batch; // B's elements
    for (int i = 0; i < rotation; ++i) {
      as.push_back(randomBufferOf(size_t(batch * m * k), p.f32, p.bf16, 2 * i + 1));
      bs.push_back(randomBufferOf(size_t(bCount * n * k), p.f32, p.bf16, 2 * i + 2));
    }
    bias = ep.hasBias ? randomBufferOf(size_t(m), p.f32, p.bf16, 99) : 0;
    size_t auxBytes = ep.reluAux   ? size_t(ep.maskPitch * n)
                      : ep.geluAux ? size_t(ep.geluPitch * n) * 2
                                   : 0;
    aux = auxBytes ? randomBuffer((auxBytes + 1) / 2, p.bf16, 98) : 0;
    refGrad = ep.backward ? randomBuffer(size_t(std::max(m, n)), p.bf16, 97) : 0;
    cu(driver->cuMemAlloc(&refD, size_t(batch * m * n) * (p.f32 ? 4 : 2)), "cuMemAlloc(ref d)");
  }
  ~ProblemBuffers() {
    for (CUdeviceptr ptr : as) driver->cuMemFree(ptr);
    for (CUdeviceptr ptr : bs) driver->cuMemFree(ptr);
    for (CUdeviceptr ptr : {bias, aux, refGrad, refD})
      if (ptr)
        driver->cuMemFree(ptr);
  }
  ProblemBuffers(const ProblemBuffers &) = delete;
  ProblemBuffers &operator=(const ProblemBuffers &) = delete;
};

/// mepi: one planned Matmul per input set (the kernel compiles once, then the cache serves);
/// fills the configuration, the plan time and (--autotune) the candidates' times into `r`.
std::vector<mepi::Matmul> planMepi(const Problem &p, const EpilogShape &ep,
                                   const ProblemBuffers &buf, CUstream stream, Measurement &r,
                                   const std::string &config = forcedConfig, bool tune = autotune) {
  const int64_t m = p.shape.m, n = p.shape.n, k = p.shape.k, batch = p.shape.batch;
  const int64_t bCount = p.shape.sharedB ? 1 : batch;
  mepi::DType dtype = p.f32 ? mepi::DType::Float32 : p.bf16 ? mepi::DType::BFloat16
                                                            : mepi::DType::Float16;
  auto tensor = [&](CUdeviceptr ptr, std::vector<int64_t> shape) {
    mepi::Tensor t;
    t.data = reinterpret_cast<void *>(ptr);
    t.dtype = dtype;
    t.shape = std::move(shape);
    return t;
  };
  // Batched: A [batch, ., .], B [batch, ., .] or one B for all (2-D, numpy broadcasting).
  auto operand = [&](CUdeviceptr ptr, int64_t count, int64_t rows, int64_t cols) {
    return batch == 1 || count == 1 ? tensor(ptr, {rows, cols}) : tensor(ptr, {count, rows, cols});
  };
  std::vector<mepi::Matmul> mms;
  for (int i = 0; i < r.rotation; ++i) {
    mepi::Options options;
    options.kernelConfig = config;
    options.allowTF32 = p.tf32;
    mms.emplace_back(ep.mMajorA ? operand(buf.as[i], batch, k, m) : operand(buf.as[i], batch, m, k),
                     ep.nMajorB ? operand(buf.bs[i], bCount, k, n)
                                : operand(buf.bs[i], bCount, n, k),
                     std::nullopt, 1.0f, std::nullopt, mepi::Qualifiers{ep.mMajorA, !ep.nMajorB},
                     options);
    auto t0 = std::chrono::steady_clock::now();
    mepi::EpilogInputs inputs;
    if (ep.hasBias && !ep.backward)
      inputs.bias = tensor(buf.bias, {m});
    if (ep.backward && buf.aux) {
      mepi::Tensor t = tensor(buf.aux, {ep.reluAux ? ep.maskPitch : ep.geluPitch, n});
      t.strides = {1, t.shape[0]};
      if (ep.reluAux)
        t.dtype = mepi::DType::UInt8;
      (ep.reluAux ? inputs.reluAux : inputs.geluAux) = t;
    }
    mms.back().plan(mepiEpilog(p.epilog), inputs);
    // --autotune: the first input set times the candidates; the others plan its choice.
    if (tune && i == 0) {
      r.heuristicConfig = mms.back().kernelConfiguration();
      r.tuned = mms.back().autotune(5, /*prune=*/-1, stream); // every candidate: the model's data
    }
    r.config = mms.back().kernelConfiguration();
    if (i == 0)
      r.planMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return mms;
}

/// cuBLASLt: D (column-major M x N) = op(A) op(B), A as K x M col-major (T), B as K x N (N) or,
/// row-major K x N, as N x K col-major (T); at least as many launches as mepi's. Fills the
/// time and the host time per launch into `r`.
void measureCublasLt(const Problem &p, const EpilogShape &ep, const ProblemBuffers &buf,
                     cublasLtHandle_t lt, CUstream stream, Measurement &r) {
  LtMatmulSpec spec{p.shape.m, p.shape.n, p.shape.k, p.bf16, ep.mMajorA, ep.nMajorB,
                    cublasEpilog(p.epilog)};
  spec.batch = p.shape.batch;
  spec.f32 = p.f32;
  spec.tf32 = p.tf32;
  spec.sharedB = p.shape.sharedB;
  if (ep.hasBias || ep.backward) // the bias (forward) or the bias gradient it writes (backward)
    spec.bias = ep.backward ? buf.refGrad : buf.bias;
  spec.aux = buf.aux;
  spec.auxLd = ep.reluAux ? ep.maskPitch * 8 : ep.geluPitch;
  LtMatmul ref(lt, spec);
  auto refLaunch = [&](int i) {
    ref.launch(buf.as[i % r.rotation], buf.bs[i % r.rotation], buf.refD, stream);
  };
  for (int i = 0; i < r.rotation; ++i)
    refLaunch(i);
  int refIterations = std::max(r.iterations, 20);
  double refHostUs = 0;
  r.refMs = medianMs(stream, refIterations, [&](int i) {
    auto h0 = std::chrono::steady_clock::now();
    refLaunch(i);
    refHostUs +=
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count();
  });
  r.refHostUs = refHostUs / refIterations;
}

/// `configs`, each planned on every input set and timed interleaved (launch by launch, 20
/// rounds or more) as (configuration, median ms), in their order. One that cannot plan the
/// problem gets 0 ms, after a line saying why.
std::vector<std::pair<std::string, double>>
timeInterleaved(const Problem &p, const EpilogShape &ep, const ProblemBuffers &buf,
                CUstream stream, const Measurement &r, const std::vector<std::string> &configs) {
  std::vector<std::string> planned;
  std::vector<std::vector<mepi::Matmul>> sets;
  for (const std::string &config : configs) {
    Measurement unused;
    unused.rotation = r.rotation;
    try {
      sets.push_back(planMepi(p, ep, buf, stream, unused, config, /*tune=*/false));
      planned.push_back(config);
    } catch (const mepi::Error &e) {
      std::printf("    could not plan %s: %s\n", shortConfig(config).c_str(), e.what());
    }
  }
  // `i` counts every launch (interleavedMedianMs), so each takes the input set after the
  // previous launch's, whichever configuration ran it.
  std::vector<std::function<void(int)>> launches;
  for (std::vector<mepi::Matmul> &set : sets) {
    for (mepi::Matmul &mm : set) // warm-up: module load, first-launch costs
      mm.execute(stream);
    launches.push_back([&set, stream](int i) { set[i % set.size()].execute(stream); });
  }
  std::vector<double> ms = interleavedMedianMs(stream, std::max(r.iterations, 20), launches);
  std::vector<std::pair<std::string, double>> timed;
  for (size_t v = 0, next = 0; v < configs.size(); ++v) {
    bool ran = next < planned.size() && planned[next] == configs[v];
    timed.push_back({configs[v], ran ? ms[next++] : 0.0});
  }
  return timed;
}

/// --confirm: the heuristic's choice and autotune()'s three fastest others, timed interleaved.
std::vector<std::string> confirmCandidates(const Measurement &r) {
  constexpr size_t kVariants = 4;
  std::vector<std::string> configs{r.heuristicConfig};
  for (const auto &[config, ms] : r.tuned)
    if (configs.size() < kVariants && ms > 0 &&
        std::find(configs.begin(), configs.end(), config) == configs.end())
      configs.push_back(config);
  return configs;
}

Measurement measure(const Problem &p, cublasLtHandle_t lt, CUstream stream, size_t l2Bytes,
                    bool quick) {
  Measurement r;
  EpilogShape ep(p);
  const int64_t bCount = p.shape.sharedB ? 1 : p.shape.batch;
  size_t inputBytes = (p.f32 ? 4 : 2) * size_t(p.shape.batch * p.shape.m * p.shape.k +
                                               bCount * p.shape.n * p.shape.k);
  // Rotate input sets when one fits in L2, so that no run reads them from a warm cache.
  r.rotation =
      inputBytes < 2 * l2Bytes ? int(std::min<size_t>(8, 2 * l2Bytes / inputBytes + 1)) : 1;
  ProblemBuffers buf(p, ep, r.rotation);
  try {
    std::vector<mepi::Matmul> mms = planMepi(p, ep, buf, stream, r);
    r.mepiMs = mepiMs(mms, stream, quick, &r.executeHostUs, &r.iterations);
    measureCublasLt(p, ep, buf, lt, stream, r);
    if (confirm && !r.tuned.empty())
      r.confirmed = timeInterleaved(p, ep, buf, stream, r, confirmCandidates(r));
    if (!against.empty()) {
      std::vector<std::string> configs{r.config};
      configs.insert(configs.end(), against.begin(), against.end());
      r.against = timeInterleaved(p, ep, buf, stream, r, configs);
    }
  } catch (const mepi::Error &e) {
    r.error = e.what();
  }
  return r;
}

} // namespace

namespace {
/// The GPU (device 0, its primary context) and cuBLASLt.
struct Device {
  char name[256] = {0};
  int l2 = 0; // bytes of L2
  CUstream stream = nullptr;
  cublasLtHandle_t lt = nullptr;
};

/// Opens the device, or says why not and returns false.
bool openDevice(Device &dev) {
  auto loaded = mepi::runtime::cudaDriver();
  if (!loaded) {
    std::printf("mepi-bench needs a GPU: %s\n", llvm::toString(loaded.takeError()).c_str());
    return false;
  }
  driver = &*loaded;
  CUdevice device;
  CUcontext context;
  try {
    cu(driver->cuDeviceGet(&device, 0), "cuDeviceGet");
    cu(driver->cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    cu(driver->cuCtxSetCurrent(context), "cuCtxSetCurrent");
    driver->cuDeviceGetName(dev.name, sizeof dev.name, device);
    driver->cuDeviceGetAttribute(&dev.l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
  } catch (const mepi::Error &e) {
    std::printf("%s\n", e.what());
    return false;
  }
  driver->cuStreamCreate(&dev.stream, CU_STREAM_NON_BLOCKING);
  if (cublasLtCreate(&dev.lt) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasLtCreate failed\n");
    return false;
  }
  return true;
}

/// The shapes measured: the dense set, the batched set (--batched: strided batched problems,
/// torch.bmm's, and batches sharing one B), or those given with --shape.
std::vector<Shape> shapesFor(const Options &o) {
  if (!o.givenShapes.empty())
    return o.givenShapes;
  if (o.batched)
    return {{1024, 1024, 1024, "bmm16x1024^3", 16},
            {2048, 2048, 2048, "bmm8x2048^3", 8},
            {512, 512, 512, "bmm64x512^3", 64},
            {128, 128, 64, "bmm512x128^2x64", 512},
            {1024, 1024, 1024, "bmm16x1024^3-sharedB", 16, true},
            {2048, 4096, 1024, "bmm8x2048x4096x1024-sharedB", 8, true},
            {1000, 1000, 1000, "bmm7x1000^3", 7}};
  return {{4096, 4096, 4096, "4096^3"},        {8192, 8192, 8192, "8192^3"},
          {16, 8192, 8192, "decode16"},        {16, 14336, 4096, "decode16-up"},
          {128, 8192, 8192, "m128"},           {128, 4096, 14336, "m128-down"},
          {4096, 14336, 4096, "llm-up"},       {4096, 4096, 14336, "llm-down"},
          {16384, 8192, 8192, "m16384"},       {16384, 14336, 4096, "m16384-up"},
          {4095, 4097, 4099, "odd"},           {65536, 16384, 8192, "blog-relu-bias"}};
}

/// The problems of the shapes: the sweep's (--sweep), the catalog's epilogs (--catalog, fp16
/// as the anchor problem 65536 x 16384 x 8192 is), f32 at TF32 or f32 precision, else bf16
/// and fp16 with DEFAULT, BIAS, RELU_BIAS and GELU_BIAS (--quick: bf16 DEFAULT and GELU_BIAS).
std::vector<Problem> problemsFor(Options &o, const std::vector<Shape> &shapes) {
  std::vector<Problem> problems;
  if (o.sweepSeed) { // 200 unbatched problems and 24 batched ones
    for (const SweepProblem &p : sweepProblems(*o.sweepSeed, 200, 24, o.sweepNames))
      problems.push_back({p.shape, p.bf16, p.geluBias ? "GELU_BIAS" : "DEFAULT", p.aligned});
    return problems;
  }
  for (const Shape &s : shapes) {
    if (o.catalog) {
      Shape named = s;
      if (std::string(s.name) == "blog-relu-bias")
        named.name = "m65536";
      for (const char *e : {"RELU_AUX_BIAS", "GELU_AUX_BIAS", "DRELU_BGRAD", "DGELU_BGRAD",
                            "BGRADA", "BGRADB"})
        problems.push_back({named, false, e});
    } else if (std::string(s.name) == "blog-relu-bias") { // the nvmath-python epilog blog's
      problems.push_back({s, false, "RELU_BIAS"});
    } else if (o.tf32 || o.f32) { // f32 operands and D
      for (const char *e : {"DEFAULT", "BIAS", "RELU_BIAS", "GELU_BIAS"})
        if (!o.quick || std::string(e) == "DEFAULT" || std::string(e) == "GELU_BIAS")
          problems.push_back({s, false, e, s.n % 64 == 0 && s.k % 64 == 0, true, o.tf32});
    } else {
      for (bool bf16 : {true, false})
        for (const char *e : {"DEFAULT", "BIAS", "RELU_BIAS", "GELU_BIAS"})
          if (!o.quick || (bf16 && (std::string(e) == "DEFAULT" || std::string(e) == "GELU_BIAS")))
            problems.push_back({s, bf16, e, s.n % 64 == 0 && s.k % 64 == 0});
    }
  }
  return problems;
}

/// One problem's JSON object (without its closing brace).
std::string jsonRow(const Problem &p, const Measurement &r, double mepiTf, double refTf,
                    double ratio, double overBest) {
  char row[1024];
  std::snprintf(row, sizeof row,
                "    {\"name\": \"%s\", \"aligned\": %s, \"batch\": %ld, \"shared_b\": %s, \"m\": %ld, "
                "\"n\": %ld, \"k\": %ld, \"dtype\": \"%s\", "
                "\"epilog\": \"%s\", \"mepi_tflops\": %.2f, \"ref_tflops\": %.2f, "
                "\"ratio\": %.4f, \"mepi_ms\": %.4f, \"ref_ms\": %.4f, \"iterations\": %d, "
                "\"input_sets\": %d, \"mepi_plan_ms\": %.1f, \"mepi_execute_host_us\": %.2f, "
                "\"ref_host_us\": %.2f, \"mepi_config\": \"%s\", \"error\": \"%s\"",
                p.shape.name, p.aligned ? "true" : "false", p.shape.batch,
                p.shape.sharedB ? "true" : "false", p.shape.m, p.shape.n, p.shape.k, p.dtype(),
                p.epilog, mepiTf, refTf, ratio, r.mepiMs, r.refMs, r.iterations, r.rotation,
                r.planMs, r.executeHostUs, r.refHostUs, jsonEscape(r.config).c_str(),
                jsonEscape(r.error).c_str());
  std::string tuned = candidatesJson(r.tuned), confirmed = candidatesJson(r.confirmed);
  if (!r.tuned.empty())
    tuned = ", \"heuristic_config\": \"" + jsonEscape(r.heuristicConfig) +
            "\", \"heuristic_over_best\": " + std::to_string(overBest) + ", \"candidates_ms\": [" +
            tuned + "]";
  if (!confirmed.empty())
    tuned += ", \"confirmed_ms\": [" + confirmed + "]";
  if (!r.against.empty())
    tuned += ", \"against_ms\": [" + candidatesJson(r.against) + "]";
  return std::string(row) + tuned;
}

/// Measures `p`, prints its line (and --autotune's candidates before it), counts it in
/// `totals` and returns its JSON object.
std::string measureAndReport(const Problem &p, const Device &dev, bool quick, Totals &totals) {
  Measurement r = measure(p, dev.lt, dev.stream, size_t(dev.l2), quick);
  double flops = 2.0 * p.shape.batch * p.shape.m * p.shape.n * p.shape.k;
  double mepiTf = r.error.empty() ? flops / (r.mepiMs * 1e-3) / 1e12 : 0;
  double refTf = r.error.empty() ? flops / (r.refMs * 1e-3) / 1e12 : 0;
  double ratio = refTf > 0 ? mepiTf / refTf : 0;
  if (r.error.empty())
    totals.add(p.aligned, ratio);
  double overBest = r.heuristicOverBest();
  if (overBest > 0) {
    totals.addTuned(overBest);
    std::printf("    heuristic %s at %.3f of the best (%zu candidates timed):",
                shortConfig(r.heuristicConfig).c_str(), overBest, r.tuned.size());
    for (const auto &[config, ms] : r.tuned)
      std::printf(" %s=%.4f;", shortConfig(config).c_str(), ms);
    std::printf("\n");
    if (!r.confirmed.empty()) {
      std::printf("    confirmed (interleaved):");
      for (const auto &[config, ms] : r.confirmed)
        std::printf(" %s=%.4f;", shortConfig(config).c_str(), ms);
      std::printf("\n");
    }
  }
  if (!r.against.empty()) { // each one's time over the row's own, both from the interleaved run
    std::printf("    against (interleaved, time over the row's own):");
    for (const auto &[config, ms] : r.against)
      std::printf(" %s=%.4f ms %.3f;", shortConfig(config).c_str(), ms,
                  ms / r.against.front().second); // 0: could not plan the problem
    std::printf("\n");
  }
  std::printf("%-16s %-5s %-13s %6ld %6ld %6ld %10.1f %10.1f %7.3f %8.1f %8.1f %8.1f  %s%s%s\n",
              p.shape.name, p.dtype(), p.epilog, p.shape.m, p.shape.n, p.shape.k, mepiTf, refTf,
              ratio, r.planMs, r.executeHostUs, r.refHostUs, shortConfig(r.config).c_str(),
              r.error.empty() ? "" : "  ERROR: ", r.error.c_str());
  std::fflush(stdout);
  return jsonRow(p, r, mepiTf, refTf, ratio, overBest);
}

void writeJson(const Options &o, const Device &dev, const char *date, const Totals &t,
               const std::string &rows) {
  std::ofstream json(o.jsonPath);
  const char *revision = std::getenv("MEPI_REVISION"); // the bundle's commit (device-run.sh)
  json << "{\n  \"device\": \"" << jsonEscape(dev.name) << "\",\n  \"date\": \"" << date
       << "\",\n  \"command\": \"" << jsonEscape(o.command) << "\",\n  \"commit\": \""
       << jsonEscape(revision ? revision : "unknown") << "\",\n"
       << "  \"layout\": \""
       << (rowMajorB ? "A MxK and B KxN, both row-major (NN, B N-major)"
                     : "A MxK and B NxK, both K-major (TN)")
       << "; BGRADA with A KxM row-major (M-major), BGRADB with B KxN row-major (N-major); "
          "D row-major (mepi), column-major (cuBLASLt); bias length M; aux "
          "column-major with padded rows\",\n"
       << "  \"geomean_ratio\": " << t.geomean() << ",\n  \"aligned_geomean_ratio\": "
       << t.alignedGeomean() << ",\n  \"aligned_lowest_ratio\": " << t.alignedMin
       << ",\n  \"aligned_under_0_90\": " << t.alignedBelow90;
  if (t.tunedCounted)
    json << ",\n  \"heuristic_within_3pct_of_best\": " << t.heuristicWithin3
         << ",\n  \"tuned_problems\": " << t.tunedCounted
         << ",\n  \"heuristic_over_best_geomean\": " << t.heuristicGeomean();
  json << ",\n  \"results\": [\n" << rows << "\n  ]\n}\n";
}

/// The dense, batched, catalog, f32 and sweep sets: a line per problem, the geometric means,
/// and the JSON.
void runMatmulBench(Options &o, const Device &dev, const char *date) {
  std::vector<Problem> problems = problemsFor(o, shapesFor(o));
  std::printf("device: %s (L2 %d MiB), %s\n", dev.name, dev.l2 >> 20, date);
  std::printf("%-16s %-5s %-13s %6s %6s %6s %10s %10s %7s %8s %8s %8s  %s\n", "shape", "dtype",
              "epilog", "m", "n", "k", "mepi TF/s", "cuBLASLt", "ratio", "plan ms", "exec us",
              "ref us", "mepi kernel");
  std::string rows;
  Totals totals;
  for (const Problem &p : problems) {
    std::string label = std::string(p.shape.name) + " " + p.dtype() + " " + p.epilog;
    if (!selectedLabel(o.filters, label) || o.skip-- > 0)
      continue;
    rows += (rows.empty() ? "" : ",\n") + measureAndReport(p, dev, o.quick, totals) + "}";
  }
  totals.print();
  if (!o.jsonPath.empty())
    writeJson(o, dev, date, totals, rows);
}
} // namespace

int main(int argc, char **argv) {
#ifdef MEPI_HAVE_MPI
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--dist")
      return runDistBench(argc, argv);
#endif
  std::optional<Options> options = parseOptions(argc, argv);
  if (!options)
    return 1;
  Options &o = *options;
  forcedConfig = o.forcedConfig, against = o.against, rowMajorB = o.rowMajorB;
  autotune = o.autotune, confirm = o.confirm;
  if (o.list) {
    for (const Problem &p : problemsFor(o, shapesFor(o)))
      std::printf("%s %" PRId64 "x%" PRId64 "x%" PRId64 "x%" PRId64 "%s %s %s %s\n", p.shape.name,
                  p.shape.batch, p.shape.m, p.shape.n, p.shape.k, p.shape.sharedB ? "b" : "",
                  p.dtype(), p.epilog, p.aligned ? "aligned" : "unaligned");
    return 0;
  }
  bench::QueueGate::enabled = !o.ungated;
  Device dev;
  if (!openDevice(dev))
    return 1;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  if (o.groupedK && o.fp8) {
    std::printf("--grouped-k takes 16-bit operands only; --fp8 goes with --grouped\n");
    return 1;
  }
  if (o.grouped || o.groupedK)
    return (o.grouped ? runGroupedBench : runGroupedKBench)(
        dev.lt, dev.stream,
        {o.quick, o.filters, forcedConfig, o.jsonPath, o.command, dev.name, date, o.fp8});
  if (o.fp8)
    return runFp8Bench(dev.lt, dev.stream,
                       {o.quick, o.filters, forcedConfig, o.jsonPath, o.command, dev.name, date,
                        rowMajorB, o.givenShapes, o.sweepSeed, autotune});
  if (o.user)
    return runUserBench(shapesFor(o), dev.lt, dev.stream, size_t(dev.l2), o.quick, o.filters,
                        forcedConfig, o.ltoirPath, argv[0], dev.name, date, o.command,
                        o.jsonPath);
  runMatmulBench(o, dev, date);
  cublasLtDestroy(dev.lt);
  return 0;
}
