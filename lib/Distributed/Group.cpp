// mepi::dist::initialize / finalize / context and the group's exchanges (Group.h).
#include "Distributed/Group.h"

#include "mepi/Distributed.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace mepi::dist;
using namespace mepi::dist::detail;
using mepi::api::check;
using mepi::api::fail;
using mepi::runtime::checkCuda;

namespace {
std::mutex groupMutex;
std::shared_ptr<Group> current;
} // namespace

std::shared_ptr<Group> detail::group() {
  std::lock_guard<std::mutex> lock(groupMutex);
  if (!current)
    fail("mepi::dist: not initialized: call mepi::dist::initialize(device, communicator) "
         "first");
  return current;
}

void Group::enter() const {
  check(checkCuda(driver->cuCtxSetCurrent(context), "cuCtxSetCurrent"), "mepi::dist");
}

void Group::checkLive(const char *what) const {
  if (!live())
    fail(std::string(what) + ": mepi::dist::finalize() was called: the plan's group is gone "
                             "(plan again after initialize())");
}

std::vector<char> Group::allGather(const void *mine, size_t bytes) const {
  checkLive("mepi::dist");
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

std::vector<Word> Group::agree(const Agreement &says, const std::string &what) const {
  std::vector<char> all = allGather(&says.word(), sizeof(Word));
  std::vector<Word> words(ranks);
  std::memcpy(words.data(), all.data(), all.size());
  says.judge(words, rank, what);
  return words;
}

void Group::barrier() const {
  char nothing = 0;
  allGather(&nothing, 1);
}

void Group::join(Member *member) {
  std::lock_guard<std::mutex> lock(mutex);
  members.push_back(member);
}

void Group::leave(Member *member) {
  std::lock_guard<std::mutex> lock(mutex);
  llvm::erase(members, member);
}

void Group::retire(CUdeviceptr exported) {
  std::lock_guard<std::mutex> lock(mutex);
  retired.push_back(exported);
}

void Group::releaseMembers() {
  std::vector<Member *> now;
  {
    std::lock_guard<std::mutex> lock(mutex);
    now = members; // in the order they joined: the same on every rank
  }
  for (Member *m : now)
    m->releaseShared();
  barrier(); // every rank has closed its mappings of what was retired
  std::lock_guard<std::mutex> lock(mutex);
  for (CUdeviceptr p : retired)
    driver->cuMemFree(p);
  retired.clear();
}

void Group::shutdown() {
  if (!driver)
    return;
  if (context)
    driver->cuCtxSetCurrent(context);
  if (comm)
    nccl->ncclCommDestroy(comm);
  comm = nullptr;
  if (stream)
    driver->cuStreamDestroy(stream);
  stream = nullptr;
  CUdevice dev;
  if (context && driver->cuDeviceGet(&dev, device) == CUDA_SUCCESS)
    driver->cuDevicePrimaryCtxRelease(dev);
  context = nullptr;
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
  // Everything made below is undone by ~Group if a later step throws.
  auto g = std::make_shared<Group>();
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
  ncclComm_t comm = nullptr; // kept only when made
  check(checkNccl(g->nccl->ncclCommInitRank(&comm, ranks, nid, rank), "ncclCommInitRank"),
        "initialize");
  g->comm = comm;
  std::lock_guard<std::mutex> lock(groupMutex);
  current = std::move(g);
}

void mepi::dist::finalize() {
  std::shared_ptr<Group> g;
  {
    std::lock_guard<std::mutex> lock(groupMutex);
    g = std::move(current);
  }
  if (!g)
    return;
  // Plans still alive give back their shared memory while the peers can agree on it; they
  // keep the (shut down) group and refuse to run.
  llvm::Error error = llvm::Error::success();
  try {
    g->releaseMembers();
  } catch (const std::exception &e) {
    error = llvm::createStringError(llvm::inconvertibleErrorCode(), e.what());
  }
  g->shutdown();
  check(std::move(error), "finalize");
}

Context mepi::dist::context() {
  std::shared_ptr<Group> g = group();
  return {g->device, g->rank, g->ranks};
}
