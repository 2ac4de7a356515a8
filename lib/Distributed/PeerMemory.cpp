// Symmetric device memory over CUDA IPC (PeerMemory.h).
#include "Distributed/PeerMemory.h"

#include "Runtime/ApiSupport.h"

#include <algorithm>
#include <cstring>

using namespace mepi::dist::detail;
using mepi::api::check;
using mepi::runtime::checkCuda;

SymmetricBuffer SymmetricBuffer::allocate(const Group &group, size_t bytes) {
  SymmetricBuffer buf;
  buf.driver = group.driver;
  buf.rank = group.rank;
  buf.bytes = bytes;
  const runtime::CudaDriver &d = *group.driver;
  Agreement made;
  CUipcMemHandle handle{};
  made.attempt([&] {
    group.enter();
    size_t size = std::max<size_t>(bytes, 256);
    check(checkCuda(d.cuMemAlloc(&buf.mine, size), "cuMemAlloc(symmetric buffer)"),
          "mepi::dist");
    check(checkCuda(d.cuMemsetD8(buf.mine, 0, size), "cuMemsetD8"), "mepi::dist");
    check(checkCuda(d.cuIpcGetMemHandle(&handle, buf.mine), "cuIpcGetMemHandle"),
          "mepi::dist");
  });
  static_assert(sizeof(handle) <= Word::kDataBytes);
  made.data(&handle, sizeof(handle));
  // The exchange is also the barrier after which peers may write into the zeroed buffer. A
  // refusal throws on every rank here, before any rank mapped anything: each frees its own.
  std::vector<Word> all = group.agree(made, "mepi::dist: allocating shared memory");
  buf.peers.assign(group.ranks, 0);
  buf.peers[group.rank] = buf.mine;
  Agreement mapped;
  for (int r = 0; r < group.ranks; ++r) {
    if (r == group.rank)
      continue;
    mapped.attempt([&] {
      CUipcMemHandle theirs;
      std::memcpy(&theirs, all[r].data, sizeof(theirs));
      check(checkCuda(d.cuIpcOpenMemHandle(&buf.peers[r], theirs,
                                           CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                      "cuIpcOpenMemHandle(rank " + std::to_string(r) + ")"),
            "mepi::dist: mapping peer memory (the ranks must share a node with peer access)");
    });
  }
  try {
    group.agree(mapped, "mepi::dist: mapping shared memory");
  } catch (...) {
    buf.closePeers(); // every rank is here: unmap, wait for all, then free
    group.barrier();
    buf.freeOwn();
    throw;
  }
  return buf;
}

SymmetricBuffer &SymmetricBuffer::operator=(SymmetricBuffer &&o) noexcept {
  if (this != &o) {
    closePeers();
    freeOwn();
    driver = o.driver;
    mine = o.mine;
    peers = std::move(o.peers);
    rank = o.rank;
    bytes = o.bytes;
    o.mine = 0;
    o.peers.clear();
  }
  return *this;
}

void SymmetricBuffer::closePeers() {
  for (size_t r = 0; r < peers.size(); ++r)
    if ((int)r != rank && peers[r])
      driver->cuIpcCloseMemHandle(peers[r]);
  peers.clear();
}

void SymmetricBuffer::freeOwn() {
  if (mine)
    driver->cuMemFree(mine);
  mine = 0;
}

CUdeviceptr SymmetricBuffer::takeOwn() {
  CUdeviceptr p = mine;
  mine = 0;
  return p;
}
