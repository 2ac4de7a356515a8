// Reference figures of the chips mepi sizes kernels for (see TargetInfo.h).
#include "mepi/Sm90/TargetInfo.h"

using namespace mlir::mepi;

std::optional<TargetInfo> TargetInfo::forChip(llvm::StringRef chip) {
  // sm_90 / sm_90a: CUDA's compute capability 9.0 tables. A block may opt into 227 KiB of the
  // 228 KiB of shared memory per multiprocessor (1 KiB is reserved for the system); clusters of
  // up to 8 blocks are portable. 132 multiprocessors and 50 MiB of L2: the H100 SXM and the
  // H200.
  if (chip == "sm_90a" || chip == "sm_90")
    return TargetInfo{chip.str(), /*multiprocessors=*/132, /*sharedBytesPerBlock=*/227 * 1024,
                      /*maxClusterSize=*/8, /*l2Bytes=*/50 * 1024 * 1024};
  return std::nullopt;
}

TargetInfo TargetInfo::forChip(llvm::StringRef chip, int64_t multiprocessors) {
  TargetInfo target = forChip(chip).value_or(TargetInfo{chip.str()});
  if (multiprocessors <= 0)
    return target;
  target = target.withMultiprocessors(multiprocessors);
  target.deviceSized = true;
  return target;
}
