// The process group of mepi::dist (initialize/finalize): the NCCL communicator, this rank's
// device context, the host-side exchanges plans need (agreements, IPC handles), and the plans
// alive in it, which finalize() releases before the communicator goes.
#ifndef MEPI_DISTRIBUTED_GROUP_H
#define MEPI_DISTRIBUTED_GROUP_H

#include "Distributed/Agreement.h"
#include "Distributed/Nccl.h"
#include "Runtime/CudaDriver.h"

#include <memory>
#include <mutex>
#include <vector>

namespace mepi::dist::detail {

/// Something holding memory shared with the peers (a planned dist::Matmul): finalize()
/// releases it, collectively, while the communicator still exists.
class Member {
public:
  virtual ~Member() = default;
  virtual void releaseShared() = 0;
};

struct Group {
  int device = 0, rank = 0, ranks = 1;
  ncclComm_t comm = nullptr;
  CUcontext context = nullptr;
  CUstream stream = nullptr; // for the exchanges below
  const runtime::CudaDriver *driver = nullptr;
  const Nccl *nccl = nullptr;

  /// Device memory for the exchanges, made at initialize(): an exchange allocates nothing, so
  /// that no rank fails alone between deciding to take part and taking part.
  CUdeviceptr exchange = 0;

  Group() = default;
  Group(const Group &) = delete;
  Group &operator=(const Group &) = delete;
  // No shutdown in the destructor: at exit, without finalize(), NCCL and the driver's tables
  // may be gone already (the group is then left to the process's end).

  /// Collective: every rank's word (Agreement.h), marked with `what` as its step; throws,
  /// alike on every rank, unless all agree.
  std::vector<Word> agree(const Agreement &says, const std::string &what) const;
  /// Collective: returns when every rank has called it.
  void barrier() const;
  /// Makes this rank's device context current on the calling thread.
  void enter() const;
  /// False after finalize(): the communicator is gone.
  bool live() const { return comm != nullptr; }
  /// Throws (an invalid value) unless live().
  void checkLive(const char *what) const;

  void join(Member *member);
  void leave(Member *member);
  /// Memory this rank exported to its peers and can no longer free collectively (a plan
  /// destroyed while an exception unwinds): freed by finalize() after every rank closed its
  /// mappings.
  void retire(CUdeviceptr exported);
  /// finalize()'s collective part: releases the members (each, also after another failed),
  /// then what was retired; throws the first failure at the end.
  void releaseMembers();
  /// Destroys the communicator, the stream and the context reference (idempotent).
  void shutdown();

private:
  std::mutex mutex;
  std::vector<Member *> members;
  std::vector<CUdeviceptr> retired;
};

/// The group initialize() made; throws (an invalid value) before it.
std::shared_ptr<Group> group();

/// A refusal of what an API layer converts before a collective call (the C API's descriptors):
/// takes part in that call's first exchange, named `what`, as a refusing rank, so that every
/// rank throws; rethrows `error` here.
[[noreturn]] void refuseCollectively(std::exception_ptr error, const std::string &what);

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_GROUP_H
