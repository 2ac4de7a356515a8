// The facts about a GPU that the kernels are sized by: multiprocessors, shared memory per block,
// cluster size. One value answers the heuristic, the generator and the runtime.
#ifndef MEPI_SM90_TARGETINFO_H
#define MEPI_SM90_TARGETINFO_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::mepi {

struct TargetInfo {
  std::string chip;                ///< e.g. "sm_90a"
  int64_t multiprocessors = 0;     ///< SMs that run blocks side by side
  int64_t sharedBytesPerBlock = 0; ///< dynamic shared memory a block may opt into
  int64_t maxClusterSize = 0;      ///< blocks per cluster that every part of the chip supports
  int64_t l2Bytes = 0;             ///< the L2 cache every multiprocessor reads through
  /// `multiprocessors` is the device's own count (the runtime's, through forChip's option),
  /// so a persistent grid of at most that many blocks is the grid the runtime launches.
  bool deviceSized = false;

  /// The reference part of `chip` (for sm_90a the H100 SXM and H200: both have 132
  /// multiprocessors), or none for a chip mepi does not size kernels for. The runtime replaces
  /// the figures by the device's own (withMultiprocessors, withSharedBytesPerBlock).
  static std::optional<TargetInfo> forChip(llvm::StringRef chip);
  /// The same with the multiprocessor count replaced where `multiprocessors` > 0 (the passes'
  /// option, which the runtime sets from the device: deviceSized); a chip without reference
  /// figures gets none but its name.
  static TargetInfo forChip(llvm::StringRef chip, int64_t multiprocessors);

  /// Whether the chip runs the wgmma kernel family (warpgroup MMA, TMA, clusters: sm_90a).
  bool hasWgmma() const { return chip == "sm_90a"; }

  TargetInfo withMultiprocessors(int64_t count) const {
    TargetInfo copy = *this;
    copy.multiprocessors = count;
    return copy;
  }
  TargetInfo withSharedBytesPerBlock(int64_t bytes) const {
    TargetInfo copy = *this;
    copy.sharedBytesPerBlock = bytes;
    return copy;
  }
};

} // namespace mlir::mepi

#endif // MEPI_SM90_TARGETINFO_H
