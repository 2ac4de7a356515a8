// What the rankings of candidates share (RankCandidates.h).
#include "RankCandidates.h"
#include "KernelRules.h"

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::rules;

/// See RankCandidates.h.
KernelConfigAttr rules::withTmaStores(MatmulOp op, const Sm90Problem &p,
                                      const TargetInfo &target, KernelConfigAttr config) {
  if (config.getEpilogue().getStore() == DStore::Tma ||
      !canUseTmaStores(op, config.getMainloop().getTma(), config.getTileN()))
    return {};
  return withFittingStages(p, target, config.withStore(DStore::Tma));
}

/// See RankCandidates.h.
void rules::addCandidate(SmallVector<KernelConfigAttr> &ranked, MatmulOp op, const Sm90Problem &p,
                         const TargetInfo &target, KernelConfigAttr config) {
  if (p.grouped() || p.kGroups)
    config = asGrouped(op, config);
  if (config && !llvm::is_contained(ranked, config) && Sm90Spec(p, config, target).canImplement())
    ranked.push_back(config);
}
