// The in-memory kernel cache and its key.
#include "Runtime/KernelCache.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

#include "Runtime/CudaDriver.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <cstdlib>
#include <dlfcn.h>
#include <sys/stat.h>

using namespace mepi::runtime;

namespace {
/// The binary that holds this code (libmepi, or a program linking the runtime statically) by
/// its size and modification time: a rebuilt compiler may generate other code for the same
/// planned IR, and the version string does not change between builds. Read once per process.
const std::string &buildFingerprint() {
  static const std::string fingerprint = [] {
    Dl_info info;
    struct stat st;
    if (!dladdr(reinterpret_cast<void *>(&kernelCacheKey), &info) || !info.dli_fname ||
        stat(info.dli_fname, &st) != 0)
      return std::string("unknown");
    return std::to_string(st.st_size) + "@" + std::to_string(st.st_mtime);
  }();
  return fingerprint;
}
} // namespace

#ifndef MEPI_VERSION_STRING
#define MEPI_VERSION_STRING "unknown"
#endif

std::string mepi::runtime::kernelCacheKey(llvm::StringRef plannedIR, llvm::StringRef arch,
                                          llvm::ArrayRef<mlir::mepi::DeviceObject> objects,
                                          int64_t multiprocessors) {
  llvm::SHA256 hash;
  // Length-prefixed fields, so that no two different field lists hash the same bytes.
  auto field = [&](llvm::StringRef name, llvm::StringRef value) {
    hash.update(name);
    hash.update(std::to_string(value.size()));
    hash.update(":");
    hash.update(value);
  };
  field("mepi", MEPI_VERSION_STRING);
  field("build", buildFingerprint());
  field("ir", plannedIR);
  field("arch", arch);
  field("multiprocessors", std::to_string(multiprocessors));
  field("nvjitlink", mlir::mepi::jitLinkVersion());
  // The driver loads (and may re-JIT) what nvJitLink made; 0 where there is no driver.
  int driverVersion = 0;
  if (llvm::Expected<const CudaDriver &> driver = cudaDriver())
    driverVersion = driver->version;
  else
    llvm::consumeError(driver.takeError());
  field("driver", std::to_string(driverVersion));
  for (const mlir::mepi::DeviceObject &object : objects) {
    field("object-kind", std::to_string(static_cast<int>(object.kind)));
    field("object", llvm::StringRef(object.bytes.data(), object.bytes.size()));
  }
  // The toolkit whose libdevice is linked changes the generated code.
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"}) {
    const char *value = std::getenv(var);
    field(var, value ? value : "");
  }
  std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

namespace {
void warnOnce(const std::string &message) {
  static std::once_flag once;
  std::call_once(once, [&] { llvm::errs() << message << "\n"; });
}
} // namespace

llvm::Expected<KernelCache::Entry>
KernelCache::getOrCompile(const MatmulProblem &problem, llvm::StringRef arch,
                          llvm::ArrayRef<mlir::mepi::DeviceObject> objects) {
  llvm::Expected<std::string> planned = planModule(problem);
  if (!planned)
    return planned.takeError();
  std::string key = kernelCacheKey(*planned, arch, objects, problem.multiprocessors);

  std::promise<Result> promise;
  std::shared_future<Result> future;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it != entries.end()) {
      future = it->second;
      hitCount++;
    } else {
      future = promise.get_future().share();
      entries.emplace(key, future);
      owner = true;
    }
  }
  if (owner) {
    Result result;
    if (std::optional<CompiledKernel> stored = disk ? disk->load(key) : std::nullopt) {
      diskHitCount++;
      result.kernel = std::make_shared<const CompiledKernel>(std::move(*stored));
    } else {
      compileCount++;
      llvm::Expected<CompiledKernel> compiled = compileProblem(problem, arch, objects);
      if (compiled) {
        result.kernel = std::make_shared<const CompiledKernel>(std::move(*compiled));
        // A cache that cannot be written (read-only home, full disk, not private) only costs
        // a recompile in the next process: said once per process, on stderr.
        if (disk)
          if (llvm::Error e = disk->store(key, *result.kernel))
            warnOnce("mepi: warning: kernels are not kept on disk: " +
                     llvm::toString(std::move(e)));
      } else {
        // The message and the code (the API's status: a compile failure, say) of the error.
        llvm::handleAllErrors(compiled.takeError(), [&](const llvm::ErrorInfoBase &info) {
          result.code = info.convertToErrorCode();
          result.error += (result.error.empty() ? "" : "\n") + info.message();
        });
      }
    }
    if (!result.kernel) {
      std::lock_guard<std::mutex> lock(mutex);
      entries.erase(key); // do not keep failures: a later request retries
    }
    promise.set_value(std::move(result));
  }
  const Result &result = future.get();
  if (!result.kernel)
    return llvm::createStringError(result.code, result.error);
  return result.kernel;
}

void KernelCache::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  entries.clear();
}

KernelCache &KernelCache::global() {
  static KernelCache cache(DiskCache::directoryFromEnvironment());
  return cache;
}
