// What the rankings of candidates share (RankKernelConfigs.cpp: every form the generator can
// build for a problem; RankFp8Configs.cpp: the FP8 tile shapes first).
#ifndef MEPI_TRANSFORMS_RANKCANDIDATES_H
#define MEPI_TRANSFORMS_RANKCANDIDATES_H

#include "mepi/IR/MepiOps.h"
#include "mepi/Sm90/Sm90Spec.h"
#include "mepi/Sm90/TargetInfo.h"

namespace mlir::mepi::rules {

/// Appends `config` to `ranked` in the form the problem takes (grouped: asGrouped) where it
/// is valid, new and implementable: every candidate is one the generator can build.
void addCandidate(SmallVector<KernelConfigAttr> &ranked, MatmulOp op, const Sm90Problem &p,
                  const TargetInfo &target, KernelConfigAttr config);
/// `config` with D through TMA stores (fewer stages where the two buffers per consumer would not
/// fit beside them), or null where its epilog or D cannot take them.
KernelConfigAttr withTmaStores(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                               KernelConfigAttr config);
/// 8-bit A and B: the FP8 tile shapes ranked by their time, each with its clusters, splits or
/// stream-K form (the choice of promoted problems; with fast accumulation, first before the
/// 16-bit forms).
SmallVector<KernelConfigAttr> rankFp8Configs(MatmulOp op, const TargetInfo &target);

} // namespace mlir::mepi::rules

#endif // MEPI_TRANSFORMS_RANKCANDIDATES_H
