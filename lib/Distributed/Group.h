// The process group of mepi::dist (initialize/finalize): the NCCL communicator, this rank's
// device context, and the host-side exchanges plans need (shapes, IPC handles).
#ifndef MEPI_DISTRIBUTED_GROUP_H
#define MEPI_DISTRIBUTED_GROUP_H

#include "Distributed/Nccl.h"
#include "Runtime/CudaDriver.h"

#include <vector>

namespace mepi::dist::detail {

struct Group {
  int device = 0, rank = 0, ranks = 1;
  ncclComm_t comm = nullptr;
  CUcontext context = nullptr;
  CUstream stream = nullptr; // for the exchanges below
  const runtime::CudaDriver *driver = nullptr;
  const Nccl *nccl = nullptr;

  /// Every rank's `bytes` bytes from `mine`, rank by rank (collective; waits for it).
  std::vector<char> allGather(const void *mine, size_t bytes) const;
  /// Makes this rank's device context current on the calling thread.
  void enter() const;
};

/// The group initialize() made; throws (an invalid value) before it.
const Group &group();

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_GROUP_H
