// The persistent grid of the wgmma kernels: each block (or cluster) walks its share of the
// walkers' work, so a grid holds at most one block per multiprocessor, or as many clusters as
// can run at once (a cluster waiting for a free GPC would double the time). The heuristic's
// spec (Sm90Spec::gridBlocks) and the runtime's launch (Launch.cpp, with the driver's counts)
// both size the grid here.
#ifndef MEPI_SM90_PERSISTENTGRID_H
#define MEPI_SM90_PERSISTENTGRID_H

#include <algorithm>
#include <cstdint>

namespace mlir::mepi::sm90 {
/// Blocks launched for `walkers` walkers (blocks, or clusters of `cluster` blocks) on
/// `multiprocessors` SMs, or on `clusters` clusters that fit at once.
constexpr int64_t persistentGridBlocks(int64_t walkers, int64_t cluster, int64_t multiprocessors,
                                       int64_t clusters) {
  return cluster > 1 ? std::min(walkers, clusters) * cluster : std::min(walkers, multiprocessors);
}
} // namespace mlir::mepi::sm90

#endif // MEPI_SM90_PERSISTENTGRID_H
