// Symmetric device memory over CUDA IPC (PeerMemory.h).
#include "Distributed/PeerMemory.h"

#include "Runtime/ApiSupport.h"

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
  group.enter();
  size_t size = std::max<size_t>(bytes, 256);
  check(checkCuda(d.cuMemAlloc(&buf.mine, size), "cuMemAlloc(symmetric buffer)"),
        "mepi::dist");
  check(checkCuda(d.cuMemsetD8(buf.mine, 0, size), "cuMemsetD8"), "mepi::dist");
  CUipcMemHandle handle;
  check(checkCuda(d.cuIpcGetMemHandle(&handle, buf.mine), "cuIpcGetMemHandle"), "mepi::dist");
  // The exchange is also the barrier after which peers may write into the zeroed buffer.
  std::vector<char> all = group.allGather(&handle, sizeof(handle));
  buf.peers.assign(group.ranks, 0);
  for (int r = 0; r < group.ranks; ++r) {
    if (r == group.rank) {
      buf.peers[r] = buf.mine;
      continue;
    }
    CUipcMemHandle theirs;
    std::memcpy(&theirs, all.data() + r * sizeof(handle), sizeof(handle));
    check(checkCuda(d.cuIpcOpenMemHandle(&buf.peers[r], theirs,
                                         CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                    "cuIpcOpenMemHandle(rank " + std::to_string(r) + ")"),
          "mepi::dist: mapping peer memory (the ranks must share a node with peer access)");
  }
  return buf;
}

SymmetricBuffer &SymmetricBuffer::operator=(SymmetricBuffer &&o) noexcept {
  if (this != &o) {
    release();
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

void SymmetricBuffer::release() {
  if (!driver)
    return;
  for (size_t r = 0; r < peers.size(); ++r)
    if ((int)r != rank && peers[r])
      driver->cuIpcCloseMemHandle(peers[r]);
  peers.clear();
  if (mine)
    driver->cuMemFree(mine);
  mine = 0;
}
