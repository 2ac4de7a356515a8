// mepi::dist::initialize / finalize / context and the group's exchanges (Group.h).
#include "Distributed/Group.h"

#include "mepi/Distributed.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/xxhash.h"

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

std::vector<Word> Group::agree(const Agreement &says, const std::string &what) const {
  checkLive(what.c_str());
  Word mine = says.word();
  mine.step = llvm::xxh3_64bits(what);
  enter();
  std::vector<Word> words(ranks);
  // The buffer: [this rank's word][every rank's word, rank by rank] (initialize()).
  llvm::Error error = checkCuda(driver->cuMemcpyHtoD(exchange, &mine, sizeof(Word)),
                                "cuMemcpyHtoD");
  if (!error)
    error = checkNccl(nccl->ncclAllGather(reinterpret_cast<void *>(exchange),
                                          reinterpret_cast<void *>(exchange + sizeof(Word)),
                                          sizeof(Word), ncclChar, comm,
                                          reinterpret_cast<cudaStream_t>(stream)),
                      "ncclAllGather");
  if (!error)
    error = checkCuda(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
  if (!error)
    error = checkCuda(driver->cuMemcpyDtoH(words.data(), exchange + sizeof(Word),
                                           words.size() * sizeof(Word)),
                      "cuMemcpyDtoH");
  check(std::move(error), what + ": exchanging with the other ranks");
  says.judge(words, rank, what);
  return words;
}

void Group::barrier() const { agree(Agreement(), "mepi::dist: barrier"); }

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
  std::exception_ptr first;
  for (Member *m : now) {
    try {
      m->releaseShared();
    } catch (...) {
      if (!first)
        first = std::current_exception();
    }
  }
  try {
    barrier(); // every rank has closed its mappings of what was retired
  } catch (...) {
    if (!first)
      first = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (CUdeviceptr p : retired)
      driver->cuMemFree(p);
    retired.clear();
  }
  if (first)
    std::rethrow_exception(first);
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
  if (exchange)
    driver->cuMemFree(exchange);
  exchange = 0;
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
  auto g = std::make_shared<Group>();
  g->device = device;
  g->rank = rank;
  g->ranks = ranks;
  g->nccl = &check(nccl(), "initialize");
  g->driver = &check(runtime::cudaDriver(), "initialize");
  try { // what is made below is undone if a later step fails
    const runtime::CudaDriver &d = *g->driver;
    CUdevice dev;
    check(checkCuda(d.cuDeviceGet(&dev, device), "cuDeviceGet"), "initialize");
    check(checkCuda(d.cuDevicePrimaryCtxRetain(&g->context, dev), "cuDevicePrimaryCtxRetain"),
          "initialize");
    g->enter();
    check(checkCuda(d.cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"),
          "initialize");
    check(checkCuda(d.cuMemAlloc(&g->exchange, (ranks + 1) * sizeof(Word)),
                    "cuMemAlloc(exchange buffer)"),
          "initialize");
    ncclUniqueId nid;
    std::memcpy(nid.internal, id.data(), id.size());
    ncclComm_t comm = nullptr; // kept only when made
    check(checkNccl(g->nccl->ncclCommInitRank(&comm, ranks, nid, rank), "ncclCommInitRank"),
          "initialize");
    g->comm = comm;
  } catch (...) {
    g->shutdown();
    throw;
  }
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

void detail::refuseCollectively(std::exception_ptr error, const std::string &what) {
  Agreement refusal;
  refusal.refuse(error);
  group()->agree(refusal, what); // throws: every rank sees the refusal
  std::rethrow_exception(error);
}
