// The on-disk kernel cache: compiled kernels survive the process ($MEPI_CACHE_DIR, default
// $XDG_CACHE_HOME/mepi or ~/.cache/mepi; "off" disables it).
//
// One directory per key holds the cubin, the PTX and the planned IR, each written to a temporary
// file and renamed into place, and a manifest (written last, the same way) with the size and
// SHA-256 of each. An entry without a valid manifest, or whose files do not match it, is removed
// and recompiled: never trusted.
#ifndef MEPI_RUNTIME_DISKCACHE_H
#define MEPI_RUNTIME_DISKCACHE_H

#include "Runtime/Planner.h"

#include <optional>
#include <string>

namespace mepi::runtime {

class DiskCache {
public:
  explicit DiskCache(std::string directory) : directory(std::move(directory)) {}
  /// The directory from the environment, or none when disabled.
  static std::optional<std::string> directoryFromEnvironment();

  /// The kernel stored under `key`, if a complete and intact entry exists (a damaged one is
  /// removed).
  std::optional<CompiledKernel> load(const std::string &key) const;
  /// Stores `kernel` under `key`; failures (read-only disk, races) leave no partial entry that
  /// load() would accept, and are reported.
  llvm::Error store(const std::string &key, const CompiledKernel &kernel) const;

  const std::string &path() const { return directory; }

private:
  std::string directory;
};

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_DISKCACHE_H
