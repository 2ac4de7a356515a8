// Matmul::autotune: candidates compiled side by side, then timed on the caller's operands;
// the choices remembered per problem (TunedConfigs).
#include "Runtime/Log.h"
#include "Runtime/MatmulState.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

using namespace mepi;
using namespace mepi::runtime;

/// The key of `planned` (its staged layouts, no forced configuration) for TunedConfigs.
std::string mepi::api::tunedKey(MatmulProblem planned, const std::string &arch,
                     llvm::ArrayRef<mlir::mepi::DeviceObject> objects) {
  planned.kernelConfig.clear();
  return kernelCacheKey(check(planModule(planned), "plan"), arch, objects,
                        planned.multiprocessors);
}

std::vector<std::string> Matmul::candidateConfigurations() const {
  if (!state || !state->kernel)
    fail("candidateConfigurations() called before plan()");
  return check(rankedKernelConfigs(state->planned, state->arch, state->maxUnitKSteps),
               "candidateConfigurations");
}

namespace {
/// autotune()'s default (prune = 0): the first 16 candidates where the cost model orders them
/// (16-bit operands or f32 at TF32 precision, not grouped; SelectKernelConfig.cpp's
/// orderByModel: on both seeded sweeps its first 16 held a candidate within 3 % of the fastest
/// on 404 of 406 problems). 8-bit operands, strict f32 and grouped problems time every
/// candidate: their lists are in the rules' order, which no sweep measured.
int defaultPrune(const MatmulProblem &problem) {
  constexpr int kModelRankedCandidates = 16;
  bool modelRanked = (elementTypeBytes(problem.a.type) == 2 ||
                      (problem.a.type == ElementType::F32 && problem.allowTF32)) &&
                     !problem.groups;
  return modelRanked ? kModelRankedCandidates : 0;
}

/// Compiles `configs` of `planned` into the kernel cache side by side (each compilation has its
/// own MLIR context; the cache compiles a configuration once), reporting each as it completes
/// (from the worker threads, one report at a time). An exception from `progress` stops the
/// workers and is rethrown here once they are joined.
void precompileCandidates(const MatmulProblem &planned, const std::string &arch,
                     const std::vector<mlir::mepi::DeviceObject> &objects,
                     const std::vector<std::string> &configs,
                     const std::function<void(const AutotuneProgress &)> &progress) {
  std::mutex mutex;
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (size_t i = next++; i < configs.size(); i = next++) {
        MatmulProblem p = planned;
        p.kernelConfig = configs[i];
        auto kernel = KernelCache::global().getOrCompile(p, arch, objects);
        bool ok = static_cast<bool>(kernel);
        if (!ok)
          llvm::consumeError(kernel.takeError());
        std::lock_guard<std::mutex> lock(mutex);
        if (progress)
          progress({AutotuneProgress::Stage::Compiled, configs[i], ++done, configs.size(),
                     ok ? 0.0 : -1.0});
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure)
        failure = std::current_exception();
      next = configs.size(); // the other workers stop after their current candidate
    }
  };
  unsigned workers = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()),
                                        static_cast<unsigned>(configs.size()));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error &) {
      break; // fewer threads: the calling thread works through the rest
    }
  }
  work();
  for (std::thread &t : pool)
    t.join();
  if (failure)
    std::rethrow_exception(failure);
}
} // namespace

namespace {
/// Times launches on a stream for autotune(): CUDA events around each launch, with L2 flushed
/// before it (writing twice the L2's size evicts the operands a previous launch left there).
/// Owns its flush buffer and events.
class LaunchTimer {
public:
  LaunchTimer(const CudaDriver &driver, int deviceOrdinal) : driver(driver) {
    CUdevice device;
    int l2Bytes = 0;
    check(checkCuda(driver.cuDeviceGet(&device, deviceOrdinal), "cuDeviceGet"), "autotune");
    driver.cuDeviceGetAttribute(&l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
    flushBytes = std::max<size_t>(2 * size_t(l2Bytes), 1 << 20);
    try {
      check(checkCuda(driver.cuMemAlloc(&flush, flushBytes), "cuMemAlloc(L2 flush)"), "autotune");
      check(checkCuda(driver.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate"),
            "autotune");
      check(checkCuda(driver.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"),
            "autotune");
    } catch (...) {
      release();
      throw;
    }
  }
  ~LaunchTimer() { release(); }
  LaunchTimer(const LaunchTimer &) = delete;
  LaunchTimer &operator=(const LaunchTimer &) = delete;

  /// The median over `iterations` of `launch`'s time on `stream` in ms.
  double medianMs(int iterations, CUstream stream, const std::function<void()> &launch) {
    std::vector<double> ms;
    for (int i = 0; i < iterations; ++i) {
      check(checkCuda(driver.cuMemsetD8Async(flush, uint8_t(i), flushBytes, stream),
                      "cuMemsetD8Async(L2 flush)"),
            "autotune");
      check(checkCuda(driver.cuEventRecord(start, stream), "cuEventRecord"), "autotune");
      launch();
      check(checkCuda(driver.cuEventRecord(stop, stream), "cuEventRecord"), "autotune");
      check(checkCuda(driver.cuEventSynchronize(stop), "cuEventSynchronize"), "autotune");
      float elapsed = 0;
      check(checkCuda(driver.cuEventElapsedTime(&elapsed, start, stop), "cuEventElapsedTime"),
            "autotune");
      ms.push_back(elapsed);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }

private:
  void release() {
    if (flush)
      driver.cuMemFree(flush);
    if (start)
      driver.cuEventDestroy(start);
    if (stop)
      driver.cuEventDestroy(stop);
  }
  const CudaDriver &driver;
  size_t flushBytes = 0;
  CUdeviceptr flush = 0;
  CUevent start = nullptr, stop = nullptr;
};
} // namespace

std::vector<std::pair<std::string, double>>
Matmul::autotune(int iterations, int prune, CUstream stream,
                 const std::function<void(const AutotuneProgress &)> &progress) {
  if (!state || !state->kernel)
    fail("autotune() called before plan()");
  State &s = *state;
  if (iterations < 1)
    fail(llvm::formatv("autotune: expected iterations >= 1, got {0}", iterations));
  if (!s.problem.kernelConfig.empty())
    fail("autotune: Options::kernelConfig forces the configuration '" + s.problem.kernelConfig +
         "'");
  std::vector<std::string> candidates = candidateConfigurations();
  if (prune == 0)
    prune = defaultPrune(s.problem);
  if (prune > 0 && size_t(prune) < candidates.size())
    candidates.resize(prune);
  // What plan() was given, to plan each candidate the same way.
  MatmulProblem problem = s.problem;
  std::vector<Tensor> builtinInputs = s.builtinInputs, userInputs = s.userInputs;
  std::vector<mlir::mepi::DeviceObject> objects = s.objects;
  bool readsC = s.userInputReadsC;
  const void *userData = s.userData;
  std::string key = tunedKey(s.planned, s.arch, objects);
  precompileCandidates(s.planned, s.arch, objects, candidates, progress);
  auto planWith = [&](const std::string &config) {
    MatmulProblem p = problem;
    p.kernelConfig = config;
    planProblem(p, builtinInputs, userInputs, objects);
    s.problem.kernelConfig.clear(); // the caller forced nothing
    s.userInputReadsC = readsC;
    s.userData = userData;
  };

  execute(stream); // the driver, context and operand checks
  LaunchTimer timer(*s.driver, s.a.device);
  std::vector<std::pair<std::string, double>> timed;
  size_t done = 0;
  auto report = [&](const std::string &config, double ms) {
    logLazily(LogLevel::Info, [&] {
      std::string when = std::to_string(done + 1) + "/" + std::to_string(candidates.size());
      return ms < 0 ? "autotune: " + when + " " + config + " cannot run this problem"
                    : "autotune: " + when + " " + config + " " + std::to_string(ms) + " ms";
    });
    ++done;
    if (progress)
      progress({AutotuneProgress::Stage::Timed, config, done, candidates.size(), ms});
  };
  for (const std::string &config : candidates) {
    try {
      planWith(config); // compiled above: from the kernel cache (unless planned unstaged)
    } catch (const Error &) {
      report(config, -1.0);
      continue; // this configuration cannot run the problem
    }
    execute(stream); // loads the module, allocates what this kernel needs
    double ms = timer.medianMs(iterations, stream, [&] { execute(stream); });
    timed.push_back({s.kernel->config, ms});
    report(config, ms);
  }
  if (timed.empty())
    fail("autotune: no candidate configuration could run this problem");
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto &x, const auto &y) { return x.second < y.second; });
  TunedConfigs::global().remember(key, timed.front().first);
  planWith(""); // takes the remembered choice
  return timed;
}
