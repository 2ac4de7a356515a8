// The heuristic's rules that both the pass (SelectKernelConfig.cpp) and the rankings of
// candidates (RankKernelConfigs.cpp, RankFp8Configs.cpp) use. Each is documented where it is
// defined.
#ifndef MEPI_TRANSFORMS_KERNELRULES_H
#define MEPI_TRANSFORMS_KERNELRULES_H

#include "mepi/IR/MepiOps.h"
#include "mepi/Sm90/Sm90Spec.h"
#include "mepi/Sm90/TargetInfo.h"

namespace mlir::mepi::rules {

/// The SIMT kernel's tile (`forcedM` / `forcedN` > 0 fix it).
KernelConfigAttr chooseSimtConfig(MatmulOp op, int64_t forcedM, int64_t forcedN);
/// Whether TMA can read `value` (16-byte aligned, contiguous rows of a 16-byte pitch).
bool isTmaOperand(Value value);
/// Whether the wgmma family can run `op` at all.
bool isWgmmaEligible(MatmulOp op);
/// What an epilog spends per element beyond a few arithmetic instructions.
enum class EpilogCost {
  Arithmetic,  ///< adds, multiplies, compares, selects (bias, ReLU)
  /// Transcendental ops and divisions that are one approximate instruction each
  /// (ApproximateOps.h): the built-in GELU (seven instructions, two MUFU), sigmoid, SiLU.
  Approximate,
  /// Calls, IEEE divisions, libdevice math (a user's tanhf: ~17 instructions, two MUFU).
  Expanded,
};
EpilogCost epilogCost(MatmulOp op);
/// Whether the swapped form (D^T = B^T A^T) can run `op`.
bool canSwap(MatmulOp op, bool tmaLoads);
/// The swapped form for `m` rows of D and `tileN` columns per tile.
KernelConfigAttr swappedConfig(MatmulOp op, int64_t m, int64_t tileN);
/// The swapped form's width for the problem's rows (swappedConfig): 64 columns where those
/// tiles fit one wave, else 128.
int64_t swappedWidth(const Sm90Problem &p, const TargetInfo &target);
/// The swapped form of tiles `tileM` rows (a multiple of 8 up to 256) by `tileN` columns.
KernelConfigAttr swappedTile(MatmulOp op, int64_t tileM, int64_t tileN);
/// A plain wgmma tile of `stages` stages (whole units, no cluster), through TMA loads or not.
KernelConfigAttr wgmmaTile(MatmulOp op, const Sm90Problem &p, int64_t tileM, int64_t tileN,
                           bool tma, int64_t stages = 4);
/// Ping-pong tileM x tileN tiles with TMA stores at the most stages of 6, 5 and 4 that the spec
/// builds (the ping-pong rules measured 6 against 4; fewer were not measured); null where none.
KernelConfigAttr pingpongTmaStored(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                                   bool tma, int64_t tileM, int64_t tileN);
/// Tiles of tileM x tileN of every batch element together.
int64_t tileCount(const Sm90Problem &p, int64_t tileM, int64_t tileN);
/// Whether `config` is set and a cooperative tile of its own: not swapped, not ping-pong, not in
/// a cluster (the form the refining rules start from).
bool plainCooperative(KernelConfigAttr config);
/// Whether `config` is set and the spec can build it for the problem.
bool buildable(const Sm90Problem &p, const TargetInfo &target, KernelConfigAttr config);
/// The share of the multiprocessors' time in waves of tileM x tileN tiles split `splits` ways
/// along K that falls inside D: work units over the waves they take (a partial wave costs a
/// whole one), times D's area over the tiles' area.
double waveShare(const Sm90Problem &p, const TargetInfo &target, int64_t tileM, int64_t tileN,
                 int64_t splits = 1);
/// Split-K's splits for `tiles` tiles: as many k ranges as one wave holds (units up to the
/// multiprocessors), each of at least 8 k-steps, at most 16; 1 where the tiles alone fill more
/// than half of the machine (or there are none).
int64_t waveSplits(const Sm90Problem &p, const TargetInfo &target, int64_t tiles);
/// Whether the rows of A and B start on L2 sectors (TMA reads others with ~4x the requests).
bool sectorAlignedRows(MatmulOp op);
/// Whether D can go through TMA stores with `tileN`-column tiles.
bool canUseTmaStores(MatmulOp op, bool tmaLoads, int64_t tileN);
/// How D leaves a tileM x tileN tile by default (TMA stores, registers or staged).
DStore defaultStore(MatmulOp op, int64_t tileM, int64_t tileN, bool pingpong, bool tmaLoads);
/// `config` as stream-K where that runs and (`heuristic`) its rule takes it, else `config`.
KernelConfigAttr withStreamK(const Sm90Problem &p, const TargetInfo &target,
                             KernelConfigAttr config, bool heuristic = false);
/// The share of the walkers' time a (not swapped) configuration spends inside D, as waveShare
/// counts it, with stream-K's tail as withStreamK predicts it.
double predictedShare(const Sm90Problem &p, const TargetInfo &target, KernelConfigAttr config);
/// `config` with its stages reduced (to 2 at the fewest) until its exact shared layout fits;
/// the stages a rule asks for come from an estimate, which an epilog's scratch, the store
/// buffers or a group table may exceed. Null stays null.
KernelConfigAttr withFittingStages(const Sm90Problem &p, const TargetInfo &target,
                                   KernelConfigAttr config);
/// Stages of `shape`'s tiles that fill what is left of 200 KiB (plus the staging blocks of 2
/// consumers, the barriers and alignment slack, within the shared memory a block can have) once
/// the epilog's scratch beyond 8 KiB is set aside; at most 8.
int64_t budgetStages(const Sm90Problem &p, KernelConfigAttr shape);
/// A narrow D of many rows (at most 256 columns; A given as [K, M], or too few columns for the
/// swapped form's fitted heights): one tile column as wide as D, so that A is read once
/// (OneTileRules.cpp). Null where it does not apply.
KernelConfigAttr oneTileColumn(MatmulOp op, const TargetInfo &target, bool tma);
/// The mirror for 129-192 rows of many columns: one tile row as tall as D, so that B is read
/// once and no 128-row tile computes rows outside D (OneTileRules.cpp). Null where it does not
/// apply.
KernelConfigAttr oneTileRow(MatmulOp op, const TargetInfo &target, bool tma);
/// A split-K configuration (not swapped, TMA loads, unbatched) of B tiles of 128 columns or
/// more over a B larger than half of L2: an even count of tile rows in clusters of 2 sharing
/// B's tile, the splits unchanged; an odd count of three or more as the swapped form's pairs
/// where their waves fall as much inside D (PairedSplitRules.cpp). `config` where that does
/// not apply or run.
KernelConfigAttr pairedSplits(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                              KernelConfigAttr config);
/// Short K with TMA stores: ping-pong of 64-row tiles, 256 columns or a narrower width whose
/// waves compute fewer columns; 128 x 128 for 256 under a cheap epilog where 128-row tiles cover
/// no more rows than 64-row ones (WidthFitRules.cpp). Null where it does not run.
KernelConfigAttr shortKPingpong(MatmulOp op, const TargetInfo &target, bool tma);
/// 128 x 160 with TMA stores where its waves fall well more inside D than the many-tile forms'
/// widths' (WidthFitRules.cpp). Null where it does not apply or run.
KernelConfigAttr narrowLineFit(MatmulOp op, const TargetInfo &target, bool tma);
/// A D of at most 256 columns instead of 256 x 128: ping-pong 64 x 128 or 128 x 128 over short K,
/// or 128 x 128 where its waves fall much more inside D (WidthFitRules.cpp). Null where it does
/// not run.
KernelConfigAttr narrowPingpong(MatmulOp op, const TargetInfo &target, bool tma);
/// Batches under one wave of 128 x 256 or 256 x 128 tiles: 128 x 160 or 128 x 192 where their
/// tiles still fit one wave (WidthFitRules.cpp). `chosen` where that does not apply or run.
KernelConfigAttr batchWaveFit(MatmulOp op, const TargetInfo &target, bool tma,
                              KernelConfigAttr chosen);
/// Split-K of 64 x 64 or 64 x 32 tiles: the splits that fill the machine, D stored from the
/// registers (NarrowSplitRules.cpp). `chosen` where that does not apply or run.
KernelConfigAttr narrowSplitFill(MatmulOp op, const TargetInfo &target, bool tma,
                                 KernelConfigAttr chosen);
/// At most 64 rows of D whose 64-row tiles pass one wave: the width whose waves fall most
/// inside D (WidthFitRules.cpp). `chosen` where that does not apply or run.
KernelConfigAttr shortRowWaveFit(MatmulOp op, const TargetInfo &target, bool tma,
                                 KernelConfigAttr chosen);
/// One wave of 128 x 64 tiles over a short K: 64 x 128 of one consumer (WidthFitRules.cpp).
/// `chosen` where that does not apply or run.
KernelConfigAttr wideOneWave(MatmulOp op, const TargetInfo &target, bool tma,
                             KernelConfigAttr chosen);
/// A 64-row tile of one consumer in whole units: D through TMA stores (StoreRules.cpp).
/// `chosen` where that does not apply or run.
KernelConfigAttr oneConsumerTmaStores(MatmulOp op, const TargetInfo &target,
                                      KernelConfigAttr chosen);
/// The wgmma heuristic's choice (`forcedM` / `forcedN` > 0 fix the tile).
KernelConfigAttr chooseWgmmaConfig(MatmulOp op, const TargetInfo &target, int64_t forcedM,
                                   int64_t forcedN, bool pingpong = false);
/// `config` in the form a grouped problem takes.
KernelConfigAttr asGrouped(MatmulOp op, KernelConfigAttr config);
/// A grouped problem's configuration.
KernelConfigAttr chooseGroupedConfig(MatmulOp op, const TargetInfo &target);
KernelConfigAttr chooseKGroupedConfig(MatmulOp op, const TargetInfo &target);

} // namespace mlir::mepi::rules

#endif // MEPI_TRANSFORMS_KERNELRULES_H
