// mepi::dist::initialize / finalize / context and the group's exchanges (Group.h).
#include "Distributed/Group.h"

#include "mepi/Distributed.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <memory>
#include <mutex>

using namespace mepi::dist;
using namespace mepi::dist::detail;
using mepi::api::check;
using mepi::api::fail;
using mepi::runtime::checkCuda;

namespace {
std::mutex groupMutex;
std::unique_ptr<Group> current;
} // namespace

const Group &detail::group() {
  std::lock_guard<std::mutex> lock(groupMutex);
  if (!current)
    fail("mepi::dist: not initialized: call mepi::dist::initialize(device, communicator) "
         "first");
  return *current;
}

void Group::enter() const {
  check(checkCuda(driver->cuCtxSetCurrent(context), "cuCtxSetCurrent"), "mepi::dist");
}

std::vector<char> Group::allGather(const void *mine, size_t bytes) const {
  enter();
  CUdeviceptr buffer = 0;
  check(checkCuda(driver->cuMemAlloc(&buffer, bytes * (ranks + 1)), "cuMemAlloc"),
        "mepi::dist");
  std::vector<char> all(bytes * ranks);
  llvm::Error error = checkCuda(driver->cuMemcpyHtoD(buffer, mine, bytes), "cuMemcpyHtoD");
  if (!error)
    error = checkNccl(nccl->ncclAllGather(reinterpret_cast<void *>(buffer),
                                          reinterpret_cast<void *>(buffer + bytes), bytes,
                                          ncclChar, comm, reinterpret_cast<cudaStream_t>(stream)),
                      "ncclAllGather");
  if (!error)
    error = checkCuda(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
  if (!error)
    error = checkCuda(driver->cuMemcpyDtoH(all.data(), buffer + bytes, all.size()),
                      "cuMemcpyDtoH");
  driver->cuMemFree(buffer);
  check(std::move(error), "mepi::dist: exchanging plan data");
  return all;
}

UniqueId mepi::dist::makeUniqueId() {
  const Nccl &lib = check(nccl(), "makeUniqueId");
  ncclUniqueId id;
  check(checkNccl(lib.ncclGetUniqueId(&id), "ncclGetUniqueId"), "makeUniqueId");
  UniqueId out;
  std::memcpy(out.data(), id.internal, out.size());
  return out;
}

void mepi::dist::initialize(int device, int rank, int ranks, const UniqueId &id) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    fail(llvm::formatv("initialize: rank {0} of {1} ranks: expected 0 <= rank < ranks", rank,
                       ranks));
  {
    std::lock_guard<std::mutex> lock(groupMutex);
    if (current)
      fail("initialize: already initialized (call finalize() first)");
  }
  auto g = std::make_unique<Group>();
  g->device = device;
  g->rank = rank;
  g->ranks = ranks;
  g->nccl = &check(nccl(), "initialize");
  g->driver = &check(runtime::cudaDriver(), "initialize");
  const runtime::CudaDriver &d = *g->driver;
  CUdevice dev;
  check(checkCuda(d.cuDeviceGet(&dev, device), "cuDeviceGet"), "initialize");
  check(checkCuda(d.cuDevicePrimaryCtxRetain(&g->context, dev), "cuDevicePrimaryCtxRetain"),
        "initialize");
  g->enter();
  check(checkCuda(d.cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"),
        "initialize");
  ncclUniqueId nid;
  std::memcpy(nid.internal, id.data(), id.size());
  check(checkNccl(g->nccl->ncclCommInitRank(&g->comm, ranks, nid, rank), "ncclCommInitRank"),
        "initialize");
  std::lock_guard<std::mutex> lock(groupMutex);
  current = std::move(g);
}

void mepi::dist::finalize() {
  std::unique_ptr<Group> g;
  {
    std::lock_guard<std::mutex> lock(groupMutex);
    g = std::move(current);
  }
  if (!g)
    return;
  g->enter();
  g->nccl->ncclCommDestroy(g->comm);
  g->driver->cuStreamDestroy(g->stream);
  CUdevice dev;
  if (g->driver->cuDeviceGet(&dev, g->device) == CUDA_SUCCESS)
    g->driver->cuDevicePrimaryCtxRelease(dev);
}

Context mepi::dist::context() {
  const Group &g = group();
  return {g.device, g.rank, g.ranks};
}
