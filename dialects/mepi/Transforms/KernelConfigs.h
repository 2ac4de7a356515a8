// The kernel configurations that can run a mepi.matmul, ranked: what plan() shows as
// candidates and autotune() times.
#ifndef MEPI_TRANSFORMS_KERNELCONFIGS_H
#define MEPI_TRANSFORMS_KERNELCONFIGS_H

#include "mepi/IR/MepiOps.h"
#include "mepi/Sm90/TargetInfo.h"

namespace mlir::mepi {

/// The configurations for `op` on `target`: first the one mepi-select-kernel-config picks, then
/// the other tile shapes of its family (with their own stage counts) and split-K variants that
/// keep at least a few k-steps per split, in the order the heuristic prefers them, then the
/// ping-pong kernels (without operand sums), each unsplit one in a cluster of 2 (B multicast)
/// where D has more than one tile row, and the cooperative unsplit ones with three quarters of
/// their stages, and the stream-K forms where the last wave of work units is short. Each is
/// valid for the problem (Sm90Spec::canImplement); none is left out because it is expected to
/// be slow.
SmallVector<KernelConfigAttr> rankKernelConfigs(MatmulOp op, const TargetInfo &target);

} // namespace mlir::mepi

#endif // MEPI_TRANSFORMS_KERNELCONFIGS_H
