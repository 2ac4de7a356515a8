// The in-memory kernel cache: one compiled kernel per problem, shared by every plan of it.
//
// Thread-safe; concurrent requests for the same problem compile once (the others wait for that
// compilation). Failures are not cached, so a later request retries.
#ifndef MEPI_RUNTIME_KERNELCACHE_H
#define MEPI_RUNTIME_KERNELCACHE_H

#include "Runtime/DiskCache.h"
#include "Runtime/Planner.h"

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>

namespace mepi::runtime {

/// The binary that holds the compiler (libmepi, or a program linking the runtime statically):
/// its GNU build id, else the SHA-256 of its bytes. A rebuilt compiler may generate other code
/// for the same planned IR, and the version string does not change between builds. Computed
/// once per process.
const std::string &buildFingerprint();
/// The SHA-256 of the libdevice the lowering links (the toolkit of $CUDA_ROOT, $CUDA_HOME,
/// $CUDA_PATH or /usr/local/cuda), "none" where there is none.
std::string libdeviceFingerprint();

/// The cache key (hex SHA-256): mepi's version and build (buildFingerprint), the planned
/// module's canonical text, the target arch and its multiprocessors (0: the chip's reference
/// figure), nvJitLink's and the driver's versions, the user objects' bytes and libdevice's
/// bytes (libdeviceFingerprint).
std::string kernelCacheKey(llvm::StringRef plannedIR, llvm::StringRef arch,
                           llvm::ArrayRef<mlir::mepi::DeviceObject> objects,
                           int64_t multiprocessors = 0);

class KernelCache {
public:
  using Entry = std::shared_ptr<const CompiledKernel>;

  /// A cache in memory, backed by the on-disk cache in `diskDirectory` when one is given.
  explicit KernelCache(std::optional<std::string> diskDirectory = std::nullopt) {
    if (diskDirectory)
      disk.emplace(std::move(*diskDirectory));
  }

  /// The compiled kernel of `problem` for `arch`, compiled on first request.
  llvm::Expected<Entry> getOrCompile(const MatmulProblem &problem, llvm::StringRef arch,
                                     llvm::ArrayRef<mlir::mepi::DeviceObject> objects = {});

  /// Compilations run so far (misses), and requests served from the cache (hits).
  unsigned compilations() const { return compileCount.load(); }
  unsigned hits() const { return hitCount.load(); }
  /// Kernels read back from the on-disk cache instead of compiled.
  unsigned diskHits() const { return diskHitCount.load(); }
  void clear();

  /// The process-wide cache (on disk per $MEPI_CACHE_DIR, see DiskCache).
  static KernelCache &global();

private:
  struct Result {
    Entry kernel;
    std::string error;
    std::error_code code = llvm::inconvertibleErrorCode(); // the error's kind (ErrorCodes.h)
  };
  /// The kernel of `key` from the disk cache when it holds one that matches the plan, else
  /// compiled (and stored on disk); the error's message and code where compilation fails.
  Result loadOrCompile(const MatmulProblem &problem, llvm::StringRef arch,
                       llvm::ArrayRef<mlir::mepi::DeviceObject> objects, const std::string &key);
  std::mutex mutex;
  std::map<std::string, std::shared_future<Result>> entries;
  std::optional<DiskCache> disk;
  std::atomic<unsigned> compileCount{0}, hitCount{0}, diskHitCount{0};
};

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_KERNELCACHE_H
