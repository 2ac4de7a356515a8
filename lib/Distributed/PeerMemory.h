// Symmetric device memory: one allocation of the same size on every rank, each rank's mapped
// into the others' address space (CUDA IPC), so that a copy engine on one rank writes into a
// peer's buffer and a stream memory operation raises a peer's flag, over NVLink, without SMs.
#ifndef MEPI_DISTRIBUTED_PEERMEMORY_H
#define MEPI_DISTRIBUTED_PEERMEMORY_H

#include "Distributed/Group.h"

#include <vector>

namespace mepi::dist::detail {

class SymmetricBuffer {
public:
  SymmetricBuffer() = default;
  /// Collective: every rank allocates `bytes` (zeroed) and maps the others'.
  static SymmetricBuffer allocate(const Group &group, size_t bytes);
  SymmetricBuffer(SymmetricBuffer &&o) noexcept { *this = std::move(o); }
  SymmetricBuffer &operator=(SymmetricBuffer &&o) noexcept;
  ~SymmetricBuffer() { release(); }

  CUdeviceptr local() const { return mine; }
  /// Rank `rank`'s buffer as this process addresses it (its own: local()).
  CUdeviceptr on(int rank) const { return peers.empty() ? mine : peers[rank]; }
  size_t size() const { return bytes; }
  void release();

private:
  const runtime::CudaDriver *driver = nullptr;
  CUdeviceptr mine = 0;
  std::vector<CUdeviceptr> peers; // peers[rank]; ours too
  int rank = 0;
  size_t bytes = 0;
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_PEERMEMORY_H
