// The L2 cache's sector, the unit in which TMA's reads reach L2: rows of an operand that do not
// start on one cost ~4x the L2 requests (ncu, FP8 15984 x 12128 x 10544 against K = 10496: 546 M
// against 140 M; bench/NOTES.md). The runtime's TMA descriptors (L2 promotion) and the
// heuristic (B multicast) both ask it here.
#ifndef MEPI_SM90_L2SECTORS_H
#define MEPI_SM90_L2SECTORS_H

#include <cstdint>

namespace mlir::mepi::sm90 {
constexpr int64_t kL2SectorBytes = 32;

/// Whether rows `rowPitchBytes` apart all start on an L2 sector (given that the first does).
constexpr bool rowsStartOnSectors(int64_t rowPitchBytes) {
  return rowPitchBytes % kL2SectorBytes == 0;
}
} // namespace mlir::mepi::sm90

#endif // MEPI_SM90_L2SECTORS_H
