// The on-disk kernel cache: compiled kernels survive the process ($MEPI_CACHE_DIR, default
// $XDG_CACHE_HOME/mepi or ~/.cache/mepi; "off" disables it).
//
// One directory per key holds the cubin, the PTX and the planned IR, and a manifest with the
// size and SHA-256 of each, the launch fields and a checksum of the manifest itself. An entry is
// written whole in a temporary directory and renamed into place, so a reader sees none or all of
// it. An entry without a valid manifest, whose files or checksum do not match, or whose launch
// fields no kernel could have, is removed and recompiled: never trusted.
//
// The cache directory must belong to this user and be closed to others' writes (created 0700):
// a directory others can write could hand this process their code to run. Otherwise the cache
// is not used, and kernels are compiled in every process. Links in place of entries are
// removed, never followed. The entries are bounded in bytes ($MEPI_CACHE_MAX_BYTES, default 4
// GiB), the least recently used going first.
#ifndef MEPI_RUNTIME_DISKCACHE_H
#define MEPI_RUNTIME_DISKCACHE_H

#include "Runtime/Planner.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mepi::runtime {

class DiskCache {
public:
  /// Creates `directory` (0700) if needed and checks that this user alone may write it. The
  /// entries are kept to `maxBytes` in all (0: no bound), the least recently used removed
  /// first.
  explicit DiskCache(std::string directory, uint64_t maxBytes = maxBytesFromEnvironment());
  /// $MEPI_CACHE_MAX_BYTES, else 4 GiB.
  static uint64_t maxBytesFromEnvironment();
  /// The directory from the environment, or none when disabled.
  static std::optional<std::string> directoryFromEnvironment();

  /// The kernel stored under `key`, if a complete and intact entry exists that `matchesPlan`
  /// (when given) accepts; a damaged or refused one is removed.
  std::optional<CompiledKernel>
  load(const std::string &key,
       llvm::function_ref<bool(const CompiledKernel &)> matchesPlan = nullptr) const;
  /// Stores `kernel` under `key`; failures (read-only disk, races) leave no partial entry that
  /// load() would accept, and are reported.
  llvm::Error store(const std::string &key, const CompiledKernel &kernel) const;

  const std::string &path() const { return directory; }
  /// Why the directory is not used (not private, not creatable), or nothing.
  const std::optional<std::string> &refused() const { return refusal; }

private:
  /// Removes the least recently used entries (by their manifest's time, which load() renews)
  /// until the rest fit in maxBytes; never `keep`.
  void evict(const std::string &keep) const;
  std::string directory;
  uint64_t maxBytes;
  std::optional<std::string> refusal;
};

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_DISKCACHE_H
