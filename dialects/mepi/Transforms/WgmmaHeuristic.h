// The wgmma heuristic over one problem (SelectKernelConfig.cpp's chooseWgmmaConfig): the state
// its rules share. The rules live in SelectKernelConfig.cpp and, for problems of many tiles,
// ManyTileForms.cpp.
#ifndef MEPI_TRANSFORMS_WGMMAHEURISTIC_H
#define MEPI_TRANSFORMS_WGMMAHEURISTIC_H

#include "KernelRules.h"
#include "llvm/Support/MathExtras.h"

#include <utility>

namespace mlir::mepi::rules {

/// The wgmma heuristic's rules over one problem (chooseWgmmaConfig), in the order they apply.
/// `forcedM` / `forcedN` > 0 fix the tile (the caller's ranking of other tiles): only the
/// stages, splits and store form are chosen then; `pingpong` asks for ping-pong consumers.
struct WgmmaHeuristic {
  WgmmaHeuristic(MatmulOp op, const TargetInfo &target, int64_t forcedM, int64_t forcedN,
                 bool pingpong)
      : op(op), target(target), forcedM(forcedM), forcedN(forcedN), pingpong(pingpong),
        p(Sm90Problem::of(op)), line(p.atom().lineElements()), ctx(op.getContext()),
        tma(isTmaOperand(op.getA()) && isTmaOperand(op.getB())) {}

  bool forced() const { return forcedM > 0 || forcedN > 0; }
  /// Tiles of every batch element together: all of them fill the machine.
  int64_t tileCount(int64_t tileM, int64_t tileN) const {
    return rules::tileCount(p, tileM, tileN);
  }
  KernelConfigAttr tile(int64_t tileM, int64_t tileN, int64_t stages) const {
    return KernelConfigAttr::get(ctx, KernelStrategy::Wgmma, tileM, tileN, line, stages)
        .withTma(tma);
  }
  int64_t stagesFor(int64_t tileM, int64_t tileN) const;
  std::pair<int64_t, int64_t> wideTile() const;
  bool partialWaveOfWideTiles() const;
  KernelConfigAttr fittedHeight() const;
  KernelConfigAttr lowSplitHeight() const;
  KernelConfigAttr swappedTmaTile(int64_t height, int64_t splits) const;
  bool implementable(int64_t tileM, int64_t tileN) const;
  int64_t waveFittedWidth() const;
  double waveShare(int64_t tileM, int64_t tileN, int64_t splits) const;
  void fitSplitWidth(int64_t tileM, int64_t &tileN, int64_t &splits) const;
  KernelConfigAttr completed(int64_t tileM, int64_t tileN, int64_t splits, bool smallTiles,
                             bool huge, bool partialWave) const;
  KernelConfigAttr columnFitted(KernelConfigAttr config) const;
  KernelConfigAttr manyTileForm(bool huge) const;
  KernelConfigAttr manyTileChoice(bool huge) const;
  KernelConfigAttr batchRowFit(KernelConfigAttr chosen) const;
  KernelConfigAttr wideForm() const;
  KernelConfigAttr shortCheapPingpong(KernelConfigAttr wide) const;
  KernelConfigAttr pingpongForm(bool special) const;
  KernelConfigAttr stagedPingpongForm() const;
  KernelConfigAttr narrowerThan256x128() const;
  bool smallTile(int64_t &tileM, int64_t &tileN, int64_t &tiles, bool huge) const;
  int64_t splitsFor(int64_t tiles, bool smallTiles) const;
  DStore shortMStore(int64_t tileM, int64_t tileN, int64_t splits) const;
  KernelConfigAttr splitTf32Config(int64_t tileN) const;
  KernelConfigAttr choose() const;

  mutable MatmulOp op; // (op accessors are not const)
  const TargetInfo &target;
  int64_t forcedM, forcedN;
  bool pingpong;
  Sm90Problem p;
  int64_t line; // tile_k: one 128-byte line of K
  MLIRContext *ctx;
  bool tma; // both operands through TMA
};

} // namespace mlir::mepi::rules

#endif // MEPI_TRANSFORMS_WGMMAHEURISTIC_H
