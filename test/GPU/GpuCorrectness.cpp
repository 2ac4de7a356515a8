// GPU correctness suite: every dtype, epilog, transpose, batch broadcast and odd shape, run
// through the public C++ API (libmepi) on the device and compared with an fp64 host reference.
// Outputs are poisoned with NaN before each run; random inputs are drawn anew for every case.
// Usage: mepi-gpu-tests [--quick] [--compile-only] [--sample] [--filter TEXT]... [--shard I/N]
// (one line per case, then "N passed, M failed"; --sample: only the README's sample problem;
// --shard I/N: every N-th selected case from the I-th, counting from 0, so that N device calls
// run the whole suite, each within one call's time; the API cases after the matrix run in
// shard 0)
#include "Autotune.h"
#include "EpilogCatalog.h"
#include "Fp8Cases.h"
#include "GroupedCases.h"
#include "LargeProblem.h"
#include "UserEpilogs.h"
#include "GpuCases.h"
#include "GpuReference.h"
#include "GpuTestSupport.h"

#include "llvm/Support/Signals.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <thread>

using namespace mepi::runtime;
using namespace gputest;

namespace {
/// The configuration of the kernel the last plan() chose (printed with each case).
std::string lastKernelConfig;

enum class Mode { Plain, ResetOperands, FunctionForm };

/// Case `c`'s mirrors of D (`bytes` each), from `arena`.
std::vector<mepi::Tensor> mirrorTensors(DeviceArena &arena, const Case &c, size_t bytes) {
  HostTensor zeros;
  zeros.layout = {c.outType.value_or(c.type), c.dShape, rowMajorStrides(c.dShape)};
  zeros.bytes.assign(bytes, 0);
  std::vector<mepi::Tensor> out;
  for (int i = 0; i < c.mirrors; ++i)
    out.push_back(arena.toDevice(zeros));
  return out;
}


/// Runs case `c` through the public C++ API and checks D against the fp64 reference. Plain:
/// Matmul, plan, execute. ResetOperands: then fresh inputs of the same layouts, D poisoned,
/// execute again. FunctionForm: mepi::matmul. `ms` gets the plan (JIT or cache) + first execute.
std::string runApiCase(const Device &dev, const Case &c, std::mt19937 &rng, double &err,
                       double &ms, Mode mode) {
  const CudaDriver &d = *dev.d;
  DeviceArena arena(d);
  auto toDevice = [&](const HostTensor &t) { return arena.toDevice(t); };
  auto download = [&](const mepi::Tensor &t, std::vector<uint8_t> &out) {
    if (llvm::Error e = checkCuda(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize"))
      throw mepi::Error(llvm::toString(std::move(e)));
    if (llvm::Error e = checkCuda(d.cuMemcpyDtoH(out.data(), reinterpret_cast<CUdeviceptr>(t.data),
                                                 out.size()),
                                  "DtoH"))
      throw mepi::Error(llvm::toString(std::move(e)));
  };
  std::string status;
  try {
    int64_t m = c.dShape[c.dShape.size() - 2];
    HostTensor a = randomTensor(c.type, c.aShape, rng, c.columnMajorA);
    HostTensor b = randomTensor(c.type, c.bShape, rng);
    HostTensor cT, bias;
    if (c.withC)
      cT = randomTensor(c.outType.value_or(c.type), {m, c.dShape.back()}, rng);
    bool hasBias = c.epilog.find("BIAS") != std::string::npos;
    if (hasBias)
      bias = randomTensor(c.biasType.value_or(c.type), c.biasShape(), rng);
    std::optional<mepi::Tensor> cDev, biasDev;
    if (c.withC)
      cDev = toDevice(cT);
    if (hasBias)
      biasDev = toDevice(bias);
    std::optional<float> beta;
    if (c.withC)
      beta = c.beta;
    mepi::Epilog epilog = apiEpilog(c.epilog);
    mepi::Qualifiers q{c.transA, c.transB};
    int64_t dCount = 1;
    for (int64_t s : c.dShape)
      dCount *= s;
    std::vector<uint8_t> out(dCount * elementTypeBytes(c.outType.value_or(c.type)));
    mepi::Options options;
    if (c.outType)
      options.resultType = apiDType(*c.outType);
    options.allowTF32 = c.tf32;
    options.kernelConfig = c.config;
    options.mirrors = c.mirrors;
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
          .count();
    };
    if (mode == Mode::FunctionForm) {
      mepi::Tensor aDev = arena.toDevice(a, c.misalignBytes);
      mepi::Tensor bDev = arena.toDevice(b, c.misalignBytes);
      t0 = std::chrono::steady_clock::now();
      mepi::Tensor dT = mepi::matmul(aDev, bDev, cDev, c.alpha, beta, epilog, {biasDev}, q);
      ms = elapsed();
      arena.adopt(dT.data); // the function form's D is ours to free
      download(dT, out);
      status = compareWithReference(c, a, b, cT, bias, out, rng, err);
    } else {
      mepi::Tensor aDev = arena.toDevice(a, c.misalignBytes);
      mepi::Tensor bDev = arena.toDevice(b, c.misalignBytes);
      mepi::Matmul mm(aDev, bDev, cDev, c.alpha, beta, q, options);
      t0 = std::chrono::steady_clock::now();
      mm.plan(epilog, {biasDev});
      lastKernelConfig = mm.kernelConfiguration();
      std::vector<mepi::Tensor> mirrors = mirrorTensors(arena, c, out.size());
      if (!mirrors.empty())
        mm.setMirrors(mirrors);
      mepi::Tensor dT = mm.execute();
      ms = elapsed();
      // NaN bytes in f16, bf16 and f32: an element the kernel does not write fails the check.
      std::vector<void *> written = {dT.data};
      for (const mepi::Tensor &t : mirrors)
        written.push_back(t.data);
      auto poison = [&] {
        for (void *p : written)
          if (llvm::Error e = checkCuda(
                  d.cuMemsetD8(reinterpret_cast<CUdeviceptr>(p), 0xFF, out.size()), "poison"))
            throw mepi::Error(llvm::toString(std::move(e)));
      };
      // Each mirror holds D's bytes.
      auto checkMirrors = [&]() -> std::string {
        std::vector<uint8_t> copy(out.size());
        for (size_t i = 0; i < mirrors.size(); ++i) {
          download(mirrors[i], copy);
          if (copy != out)
            return "mirror " + std::to_string(i) + " differs from d";
        }
        return "";
      };
      // Split tiles sum their records in a fixed order (SplitReduction.cpp, SplitTreeSum.cpp):
      // the second run's D must have the first's bits.
      bool reduced = lastKernelConfig.find("split_k") != std::string::npos ||
                     lastKernelConfig.find("stream_k") != std::string::npos;
      std::vector<uint8_t> first;
      if (reduced) {
        first.resize(out.size());
        download(dT, first);
      }
      poison(); // and run again: the checked result is this second run's
      download(mm.execute(), out);
      status = compareWithReference(c, a, b, cT, bias, out, rng, err);
      if (status.empty() && reduced && first != out)
        status = "split tiles: the second run's D differs in its bits from the first's";
      if (status.empty())
        status = checkMirrors();
      // Strict f32 runs on the tensor cores, split into TF32 parts, unless a case forces a
      // configuration.
      if (status.empty() && c.type == ElementType::F32 && !c.tf32 && c.config.empty() &&
          lastKernelConfig.find("wgmma") == std::string::npos)
        status = "strict f32 expected on the tensor cores (wgmma), got " + lastKernelConfig;
      if (status.empty() && mode == Mode::ResetOperands) { // same layouts, kernel reused
        HostTensor a2 = randomTensor(c.type, c.aShape, rng, c.columnMajorA);
        HostTensor b2 = randomTensor(c.type, c.bShape, rng);
        mm.resetOperands(toDevice(a2), toDevice(b2), cDev, mepi::EpilogInputs{biasDev});
        poison(); // D is the same buffer across executes
        download(mm.execute(), out);
        status = compareWithReference(c, a2, b2, cT, bias, out, rng, err);
        if (status.empty())
          status = checkMirrors();
        if (!status.empty())
          status = "after resetOperands: " + status;
      }
    }
  } catch (const mepi::Error &e) {
    status = std::string("mepi::Error: ") + e.what();
  }
  return status;
}

std::string describe(const Case &c) {
  auto dims = [](const std::vector<int64_t> &s) {
    std::string r;
    for (size_t i = 0; i < s.size(); ++i)
      r += (i ? "x" : "") + std::to_string(s[i]);
    return r;
  };
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-4s a=%-12s b=%-12s d=%-12s %-9s tA=%d tB=%d%s%s%s%s%s",
                elementTypeName(c.type), dims(c.aShape).c_str(), dims(c.bShape).c_str(),
                dims(c.dShape).c_str(), c.epilog.c_str(), c.transA, c.transB,
                c.withC ? " +beta*C" : "", c.columnMajorA ? " colmajorA" : "",
                c.outType ? " D:" : "", c.outType ? elementTypeName(*c.outType) : "",
                c.tf32 ? " tf32" : "");
  if (c.biasType)
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " bias:%s",
                  elementTypeName(*c.biasType));
  if (c.misalignBytes)
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " a,b at +%lldB",
                  static_cast<long long>(c.misalignBytes));
  if (c.mirrors)
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " mirrors:%d",
                  c.mirrors);
  if (c.biasPerElement)
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " bias per element");
  return c.config.empty() ? std::string(buf) : std::string(buf) + " forced";
}

} // namespace

/// Plans (JIT-compiles for sm_90a) one case through the C++ API without a GPU: the pointers
/// are never touched before execute(). Returns why it failed ("" when it planned) and sets its
/// configuration.
std::string compileCase(const Case &c, std::string &config) {
  auto fake = [](const std::vector<int64_t> &shape, ElementType type,
                 std::vector<int64_t> strides = {}) {
    mepi::Tensor t;
    t.data = reinterpret_cast<void *>(uintptr_t(0x7f0000000000));
    t.dtype = apiDType(type);
    t.shape = shape;
    t.strides = std::move(strides);
    return t;
  };
  try {
    int64_t m = c.dShape[c.dShape.size() - 2], n = c.dShape.back();
    std::vector<int64_t> aStrides;
    if (c.columnMajorA)
      aStrides = {1, c.aShape[0]};
    std::optional<mepi::Tensor> cT, bias;
    std::optional<float> beta;
    if (c.withC) {
      cT = fake({m, n}, c.outType.value_or(c.type));
      beta = c.beta;
    }
    if (c.epilog.find("BIAS") != std::string::npos)
      bias = fake(c.biasShape(), c.biasType.value_or(c.type));
    mepi::Options options;
    options.arch = "sm_90a";
    if (c.outType)
      options.resultType = apiDType(*c.outType);
    options.allowTF32 = c.tf32;
    options.kernelConfig = c.config;
    options.mirrors = c.mirrors;
    mepi::Matmul mm(fake(c.aShape, c.type, aStrides), fake(c.bShape, c.type), cT, c.alpha,
                    beta, {c.transA, c.transB}, options);
    mm.plan(apiEpilog(c.epilog), {bias});
    config = mm.kernelConfiguration();
  } catch (const mepi::Error &e) {
    return e.what();
  }
  return "";
}

/// Plans every case without a GPU, on every core (planning from several threads is safe: the
/// kernel caches are), and prints the results in the cases' order.
int compileOnly(bool quick, std::vector<Case> cases = {}) {
  if (cases.empty())
    cases = allCases(quick);
  std::vector<std::string> why(cases.size()), configs(cases.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < cases.size();)
        why[i] = compileCase(cases[i], configs[i]);
    });
  for (std::thread &worker : workers)
    worker.join();
  int passed = 0, failed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    bool ok = why[i].empty();
    (ok ? passed : failed)++;
    std::printf("%s compile %s %s%s%s\n", ok ? "PASS" : "FAIL", describe(cases[i]).c_str(),
                configs[i].c_str(), ok ? "" : "  ", why[i].c_str());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

/// The README's sample problem (examples/bias_gelu.mlir).
const Case kSample{ElementType::BF16, {1000, 1024}, {1024, 4096}, {1000, 4096}, false, false,
                   "GELU_BIAS"};

namespace {
/// The command line (the usage at the top of this file).
struct Options {
  bool quick = false, compileOnly = false, sample = false;
  /// --filter TEXT (repeatable): only cases whose line or forced configuration has one.
  std::vector<std::string> filters;
  int shard = 0, shards = 1;
};

/// `argv` as Options; nullopt (after printing why) for a malformed --shard.
std::optional<Options> parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    o.quick |= std::string(argv[i]) == "--quick";
    o.compileOnly |= std::string(argv[i]) == "--compile-only";
    o.sample |= std::string(argv[i]) == "--sample";
    if (std::string(argv[i]) == "--filter" && i + 1 < argc)
      o.filters.push_back(argv[++i]);
    if (std::string(argv[i]) == "--shard" && i + 1 < argc &&
        (std::sscanf(argv[++i], "%d/%d", &o.shard, &o.shards) != 2 || o.shards < 1 ||
         o.shard < 0 || o.shard >= o.shards)) {
      std::printf("--shard: expected I/N with 0 <= I < N, got '%s'\n", argv[i]);
      return std::nullopt;
    }
  }
  return o;
}

/// Device 0's primary context made current and its name in `name`; false (after printing
/// why) where the driver refuses.
bool openDevice(const CudaDriver &driver, Device &dev, char (&name)[256]) {
  CUdevice device;
  if (llvm::Error e = checkCuda(driver.cuDeviceGet(&device, 0), "cuDeviceGet")) {
    std::printf("%s\n", llvm::toString(std::move(e)).c_str());
    return false;
  }
  driver.cuDeviceGetName(name, sizeof name, device);
  if (llvm::Error e = checkCuda(driver.cuDevicePrimaryCtxRetain(&dev.ctx, device),
                                "cuDevicePrimaryCtxRetain")) {
    std::printf("%s\n", llvm::toString(std::move(e)).c_str());
    return false;
  }
  driver.cuCtxSetCurrent(dev.ctx);
  std::printf("device: %s, driver %d\n", name, driver.version);
  return true;
}

/// The README's main job (--sample): the sample problem run on this GPU and checked.
int runSample(const Device &dev, const char *name, std::mt19937 &rng) {
  double err = 0, ms = 0;
  std::string why = runApiCase(dev, kSample, rng, err, ms, Mode::Plain);
  std::printf("%s sample on %s: %s relerr=%.2e vs fp64 (sampled rows) plan+execute=%.0fms%s%s\n",
              why.empty() ? "PASS" : "FAIL", name, describe(kSample).c_str(), err, ms,
              why.empty() ? "" : "  ", why.c_str());
  return why.empty() ? 0 : 1;
}

/// The matrix cases (allCases) that `selected` accepts, through Matmul's plan and execute.
void runMatrixCases(const Device &dev, std::mt19937 &rng, bool quick,
                    const std::function<bool(const std::string &)> &selected, int &passed,
                    int &failed) {
  for (const Case &c : allCases(quick)) {
    if (!selected(describe(c) + " " + c.config))
      continue;
    double err = 0, ms = 0;
    std::string why = runApiCase(dev, c, rng, err, ms, Mode::Plain);
    bool ok = why.empty();
    (ok ? passed : failed)++;
    std::printf("%s %s %s relerr=%.2e plan+execute=%.0fms%s%s\n", ok ? "PASS" : "FAIL",
                describe(c).c_str(), lastKernelConfig.c_str(), err, ms, ok ? "" : "  ",
                why.c_str());
    std::fflush(stdout);
  }
}

/// The API's other forms on a few cases: resetOperands with fresh inputs, and mepi::matmul.
void runApiForms(const Device &dev, std::mt19937 &rng, int &passed, int &failed) {
  const Case apiCases[] = {
      {ElementType::BF16, {127, 255}, {255, 129}, {127, 129}, false, false, "RELU_BIAS", true,
       0.75f, 0.5f},
      {ElementType::F16, {65, 17}, {33, 65}, {17, 33}, true, true, "GELU"},
      {ElementType::F32, {2, 31, 40}, {40, 9}, {2, 31, 9}, false, false, "BIAS"},
      // staged A and B (K = 203, at +2 bytes), then operands at aligned addresses
      {ElementType::BF16, {300, 203}, {500, 203}, {300, 500}, false, true, "GELU_BIAS", true,
       1.0f, 0.5f, false, std::nullopt, false, "", 2}};
  for (Mode mode : {Mode::ResetOperands, Mode::FunctionForm})
    for (const Case &c : apiCases) {
      double err = 0, ms = 0;
      std::string why = runApiCase(dev, c, rng, err, ms, mode);
      bool ok = why.empty();
      (ok ? passed : failed)++;
      std::printf("%s %s %s relerr=%.2e%s%s\n", ok ? "PASS" : "FAIL",
                  mode == Mode::FunctionForm ? "matmul():" : "resetOperands:",
                  describe(c).c_str(), err, ok ? "" : "  ", why.c_str());
    }
}

/// A host pointer is refused with the operand named, before any launch.
void checkHostPointerRefused(int &passed, int &failed) {
  std::vector<float> host(64 * 64);
  mepi::Tensor a;
  a.data = host.data();
  a.shape = {64, 64};
  std::string why = "no error";
  try {
    mepi::Matmul mm(a, a);
    mm.plan();
    mm.execute();
  } catch (const mepi::Error &e) {
    why = e.what();
  }
  bool ok = why.find("operand a: pointer") != std::string::npos &&
            why.find("is not memory CUDA knows") != std::string::npos;
  (ok ? passed : failed)++;
  std::printf("%s host pointer refused: %s\n", ok ? "PASS" : "FAIL", why.c_str());
}
} // namespace

int main(int argc, char **argv) {
  std::optional<Options> o = parseOptions(argc, argv);
  if (!o)
    return 2;
  int64_t selectedCount = 0;
  std::function<bool(const std::string &)> selected = [&](const std::string &line) {
    bool matches = o->filters.empty();
    for (const std::string &f : o->filters)
      matches |= line.find(f) != std::string::npos;
    return matches && selectedCount++ % o->shards == o->shard;
  };
  setvbuf(stdout, nullptr, _IOLBF, 0);
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  if (o->compileOnly)
    return compileOnly(o->quick);
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    std::string why = llvm::toString(driver.takeError());
    if (!o->sample) {
      std::printf("no GPU: %s\n", why.c_str());
      return 1;
    }
    std::printf("no GPU here (%s): the sample was compiled only, not run\n", why.c_str());
    return compileOnly(o->quick, {kSample});
  }
  Device dev{&*driver, nullptr};
  char name[256] = {0};
  if (!openDevice(*driver, dev, name))
    return 1;
  std::mt19937 rng(std::random_device{}());
  if (o->sample)
    return runSample(dev, name, rng);
  int passed = 0, failed = 0;
  runMatrixCases(dev, rng, o->quick, selected, passed, failed);
  runEpilogCatalog(dev, rng, o->quick, selected, passed, failed);
  runUserEpilogs(dev, rng, o->quick, selected, passed, failed);
  runAutotune(dev, rng, selected, passed, failed);
  runGroupedCases(dev, rng, selected, passed, failed);
  runGroupedKCases(dev, rng, selected, passed, failed);
  runFp8Cases(dev, rng, selected, passed, failed);
  if (!o->quick)
    runLargeProblem(dev, selected, passed, failed);
  // A selection (e.g. under compute-sanitizer): the matrix cases only.
  if (o->filters.empty() && o->shard == 0) {
    runApiForms(dev, rng, passed, failed);
    runUserEpilogApiCases(dev, rng, passed, failed);
    checkHostPointerRefused(passed, failed);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
