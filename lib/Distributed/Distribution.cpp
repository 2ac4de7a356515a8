// Distributions' local shapes and names (mepi/Distributed.h).
#include "Distributed/DistPlan.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mepi::dist;

std::vector<int64_t> Distribution::shape(int rank, int ranks,
                                         const std::vector<int64_t> &global) const {
  std::vector<int64_t> local = global;
  if (global.size() != 2)
    return local;
  switch (kind) {
  case Kind::SlabX: local[0] = plan::slabRange(global[0], ranks, rank).size; break;
  case Kind::SlabY: local[1] = plan::slabRange(global[1], ranks, rank).size; break;
  case Kind::BlockCyclic:
    local[0] = plan::blockCyclicExtent(global[0], blockRows, rank / grid.cols, grid.rows);
    local[1] = plan::blockCyclicExtent(global[1], blockCols, rank % grid.cols, grid.cols);
    break;
  case Kind::Replicated: break;
  }
  return local;
}

std::string Distribution::str() const {
  switch (kind) {
  case Kind::SlabX: return "Slab.X";
  case Kind::SlabY: return "Slab.Y";
  case Kind::Replicated: return "Replicated";
  case Kind::BlockCyclic:
    return llvm::formatv("BlockCyclic({0}x{1}, {2}x{3})", grid.rows, grid.cols, blockRows,
                         blockCols);
  }
  return "?";
}

const char *mepi::dist::algorithmName(Algorithm algorithm) {
  switch (algorithm) {
  case Algorithm::AllGatherA: return "AllGatherA";
  case Algorithm::AllGatherB: return "AllGatherB";
  case Algorithm::ReduceScatterRows: return "ReduceScatterRows";
  case Algorithm::ReduceScatterCols: return "ReduceScatterCols";
  case Algorithm::AllReduce: return "AllReduce";
  case Algorithm::Summa: return "Summa";
  }
  return "?";
}
