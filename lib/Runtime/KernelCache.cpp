// The in-memory kernel cache and its key.
#include "Runtime/KernelCache.h"
#include "Runtime/Log.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <mutex>

#include "Runtime/CudaDriver.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include "Target/Pipeline.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <map>

using namespace mepi::runtime;
using mepi::LogLevel;

namespace {
std::string sha256Hex(llvm::StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)), true);
}

/// The GNU build id of the loaded object whose segments hold `address` ("" where it has none).
std::string buildIdAt(uintptr_t address) {
  struct Search {
    uintptr_t address;
    std::string id;
  } search{address, ""};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto &s = *static_cast<Search *>(data);
        bool holds = false;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          holds |= ph.p_type == PT_LOAD && s.address >= begin && s.address < begin + ph.p_memsz;
        }
        if (!holds)
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          const char *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
          const char *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof(*note);
            const char *desc = name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0)
              s.id = llvm::toHex(llvm::StringRef(desc, note->n_descsz), true);
            p = desc + ((note->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &search);
  return search.id;
}
} // namespace

const std::string &mepi::runtime::buildFingerprint() {
  static const std::string fingerprint = [] {
    uintptr_t self = reinterpret_cast<uintptr_t>(&kernelCacheKey);
    if (std::string id = buildIdAt(self); !id.empty())
      return "build-id " + id;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(self), &info) && info.dli_fname)
      if (auto bytes = llvm::MemoryBuffer::getFile(info.dli_fname, /*IsText=*/false))
        return "sha256 " + sha256Hex((*bytes)->getBuffer());
    return std::string("unknown");
  }();
  return fingerprint;
}

std::string mepi::runtime::libdeviceFingerprint() {
  static std::mutex mutex;
  static std::map<std::string, std::string> known; // by path
  std::string path = mlir::mepi::defaultCudaToolkitPath() + "/nvvm/libdevice/libdevice.10.bc";
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = known.try_emplace(path, "none");
  if (inserted)
    if (auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false))
      it->second = sha256Hex((*bytes)->getBuffer());
  return it->second;
}

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
  // The libdevice that is linked changes the generated code: its bytes, not its path.
  field("libdevice", libdeviceFingerprint());
  std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

namespace {
void warnOnce(const std::string &message) {
  static std::once_flag once;
  std::call_once(once, [&] { logMessage(LogLevel::Warning, message); });
}

/// The kernel's name and configuration, for the log.
std::string describe(const CompiledKernel &kernel) {
  return kernel.kernelName + " " + kernel.config;
}
} // namespace

KernelCache::Result KernelCache::loadOrCompile(const MatmulProblem &problem,
                                               llvm::StringRef arch,
                                               llvm::ArrayRef<mlir::mepi::DeviceObject> objects,
                                               const std::string &key) {
  Result result;
  // The manifest's launch fields must be what the plan lowers to (the kernel's workspace,
  // shared memory, block and tensor maps decide what it touches): regenerated up to the
  // kernels (no LLVM, ptxas or nvJitLink) and compared; a disagreeing entry is removed and
  // compiled anew.
  auto matchesPlan = [&](const CompiledKernel &stored) {
    llvm::Expected<CompiledKernel> expected = describeLaunch(problem, arch);
    bool same = expected && sameLaunch(*expected, stored);
    if (!expected)
      llvm::consumeError(expected.takeError());
    if (!same)
      logMessage(LogLevel::Warning, "kernel cache: the entry " + key +
                                        " on disk does not describe its plan's kernel; "
                                        "compiling it anew");
    return same;
  };
  if (std::optional<CompiledKernel> stored = disk ? disk->load(key, matchesPlan) : std::nullopt) {
    diskHitCount++;
    result.kernel = std::make_shared<const CompiledKernel>(std::move(*stored));
    logLazily(LogLevel::Info,
              [&] { return "kernel cache: loaded from disk: " + describe(*result.kernel); });
    return result;
  }
  compileCount++;
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<CompiledKernel> compiled = compileProblem(problem, arch, objects);
  if (!compiled) {
    // The message and the code (the API's status: a compile failure, say) of the error.
    llvm::handleAllErrors(compiled.takeError(), [&](const llvm::ErrorInfoBase &info) {
      result.code = info.convertToErrorCode();
      result.error += (result.error.empty() ? "" : "\n") + info.message();
    });
    return result;
  }
  result.kernel = std::make_shared<const CompiledKernel>(std::move(*compiled));
  logLazily(LogLevel::Info, [&] {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    return "kernel cache: compiled for " + arch.str() + " in " + std::to_string(int64_t(ms)) +
           " ms: " + describe(*result.kernel);
  });
  // A cache that cannot be written (read-only home, full disk, not private) only costs a
  // recompile in the next process: said once per process, on stderr.
  if (disk)
    if (llvm::Error e = disk->store(key, *result.kernel))
      warnOnce("kernels are not kept on disk: " + llvm::toString(std::move(e)));
  return result;
}

llvm::Expected<KernelCache::Entry>
KernelCache::getOrCompile(const MatmulProblem &problem, llvm::StringRef arch,
                          llvm::ArrayRef<mlir::mepi::DeviceObject> objects) {
  llvm::Expected<std::string> planned = planModule(problem);
  if (!planned)
    return planned.takeError();
  std::string key = kernelCacheKey(*planned, arch, objects, problem.multiprocessors);

  // One compilation per key: the first request owns it, the others wait on its future.
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
  if (!owner) // said outside the lock: a sink may take its time
    logLazily(LogLevel::Debug, [&] { return "kernel cache: hit in memory, key " + key; });
  if (owner) {
    Result result = loadOrCompile(problem, arch, objects, key);
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
