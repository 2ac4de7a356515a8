// Symmetric device memory: one allocation of the same size on every rank, each rank's mapped
// into the others' address space (CUDA IPC), so that a copy engine on one rank writes into a
// peer's buffer and a stream memory operation raises a peer's flag, over NVLink, without SMs.
#ifndef MEPI_DISTRIBUTED_PEERMEMORY_H
#define MEPI_DISTRIBUTED_PEERMEMORY_H

#include "Distributed/Group.h"

#include <vector>

namespace mepi::dist::detail {

/// CUDA IPC's rule shapes the life cycle: freeing exported memory that a peer still maps is
/// undefined, so a buffer is released in two halves around a barrier (closePeers() on every
/// rank, then freeOwn()); Group::retire() keeps what cannot wait for one.
class SymmetricBuffer {
public:
  SymmetricBuffer() = default;
  /// Collective: every rank allocates `bytes` (zeroed) and maps the others'; throws alike on
  /// every rank (Agreement.h) if any rank fails, having freed what it made.
  static SymmetricBuffer allocate(const Group &group, size_t bytes);
  SymmetricBuffer(SymmetricBuffer &&o) noexcept { *this = std::move(o); }
  SymmetricBuffer &operator=(SymmetricBuffer &&o) noexcept;
  /// Frees what is left without a barrier: call closePeers() and freeOwn() (or retire)
  /// collectively first.
  ~SymmetricBuffer() {
    closePeers();
    freeOwn();
  }

  CUdeviceptr local() const { return mine; }
  /// Rank `rank`'s buffer as this process addresses it (its own: local()).
  CUdeviceptr on(int rank) const { return peers.empty() ? mine : peers[rank]; }
  size_t size() const { return bytes; }
  bool empty() const { return !mine; }
  /// Unmaps the peers' buffers (local; the first half of a release).
  void closePeers();
  /// Frees this rank's buffer: only after every peer's closePeers() (a barrier between).
  void freeOwn();
  /// Gives up this rank's buffer without freeing it (for Group::retire), 0 if none.
  CUdeviceptr takeOwn();

private:
  const runtime::CudaDriver *driver = nullptr;
  CUdeviceptr mine = 0;
  std::vector<CUdeviceptr> peers; // peers[rank]; ours too
  int rank = 0;
  size_t bytes = 0;
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_PEERMEMORY_H
