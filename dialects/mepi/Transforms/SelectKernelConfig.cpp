// mepi-select-kernel-config: attach a kernel configuration to each mepi.matmul; the wgmma
// heuristic's rules. The shared rules: KernelRules.cpp; the candidates: RankKernelConfigs.cpp
// (8-bit A and B: RankFp8Configs.cpp).
#include "mepi/Sm90/Sm90CostModel.h"
#include "mepi/Sm90/Sm90Spec.h"
#include "KernelRules.h"
#include "WgmmaHeuristic.h"
#include "mepi/Transforms/KernelConfigs.h"
#include "mepi/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPISELECTKERNELCONFIG
#include "mepi/Transforms/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::rules;

namespace mlir::mepi::rules {
/// The swapped form's fitted tiles (WgmmaHeuristic::fittedHeight): two consumers of 64 columns.
constexpr int64_t kSwappedColumns = 128;

/// Short M (one 64-row consumer): below kShortMWideKSteps k-steps a tile is mostly its loads
/// and stores, so the narrower 64 x 128 tile (WgmmaHeuristic::wideTile); at most
/// kShortMTmaStoreKSteps, the epilog's stores weigh as much as the main loop, so TMA stores
/// (WgmmaHeuristic::shortMStore).
constexpr int64_t kShortMWideKSteps = 32, kShortMTmaStoreKSteps = 6;

// The heuristic's state over one problem: WgmmaHeuristic.h.

int64_t WgmmaHeuristic::stagesFor(int64_t tileM, int64_t tileN) const {
  return budgetStages(p, tile(tileM, tileN, /*stages=*/2).withPingpong(pingpong));
}

/// 128 x 256 when that gives every multiprocessor of an H100/H200 a tile (wide tiles reuse each
/// loaded operand byte more), else 128 x 128; short M (<= 128 rows) uses one consumer
/// warpgroup, 64 x 256 or 64 x 128: at M = 128 two 64-row tiles per column give twice the
/// blocks of one 128-row tile without split-K (autotune measured 0.99 of cuBLASLt with 64 x 128
/// against 0.87 with 128 x 128 and 2 splits on 128 x 8192 x 8192, bench/NOTES.md). A
/// 256-column tile of a D at most 128 wide computes at least half of its columns outside D: the
/// 128-column one does the same work in half the wgmmas (the sweep's 512 x 128 x 128 x 64 batch
/// ran at 0.49-0.85 of cuBLASLt with 64 x 256, bench/NOTES.md). Short M with a short K
/// (kShortMWideKSteps) keeps 64 x 128: its tiles are mostly loads and stores, and twice as many
/// of them spread D's bytes over more waves. On the sweeps' autotune data (times over the
/// fastest candidate's, 64 x 256 against 64 x 128, both staged): 128 x 43392 x 128 1.41 against
/// 1.10, 64 x 45056 x 1664 1.17 against 1.04, 64 x 42880 x 384 1.21 against 1.03; with
/// K = 4992, 64 x 51520 ran 64 x 256 at 1.01 against 1.04 (bench/NOTES.md).
std::pair<int64_t, int64_t> WgmmaHeuristic::wideTile() const {
  bool shortK = llvm::divideCeil(p.k, line) < kShortMWideKSteps;
  SmallVector<std::pair<int64_t, int64_t>> candidates =
      p.m <= 128 ? shortK ? SmallVector<std::pair<int64_t, int64_t>>{{64, 128}}
                          : SmallVector<std::pair<int64_t, int64_t>>{{64, 256}, {64, 128}}
                 : SmallVector<std::pair<int64_t, int64_t>>{{128, 256}, {128, 128}};
  for (auto [cm, cn] : candidates)
    if (2 * p.n > cn && tileCount(cm, cn) >= target.multiprocessors)
      return {cm, cn};
  return candidates.back();
}

/// Just past one wave of 128 x 128 tiles (up to 1.5 waves), one partial wave of 128 x 256 tiles
/// instead of stream-K over the 128 x 128 ones: its wider tiles reuse each loaded byte more and
/// need no reduction. On the autotune data of both seeded sweeps (bench/NOTES.md, "The rules
/// against autotune"), of the 17 unbatched problems in that band with M > 128, the 7 with
/// N > 256 and 1024 <= K <= 16384 ran 128 x 256 at 1.00-1.03 of the fastest candidate where the
/// rules' choice (mostly stream-K) ran 1.08-1.36. Above K = 16384 stream-K over 128 x 128 beat
/// 128 x 256 (512 x 4352 x 29120: 1.02 against 1.25 of the fastest) but not the fitted width:
/// forced on the H100 (2026-11-27, of cuBLASLt), 512 x 4352 x 29120 and 1024 x 2368 x 25216
/// GELU_BIAS ran 0.901 and 0.901 on 128 x 160 against 0.856 and 0.817 under stream-K (cuBLASLt
/// itself runs 128 x 160 tiles there, one partial wave; bench/NOTES.md). Not in clusters
/// (1.00-1.05 there).
bool WgmmaHeuristic::partialWaveOfWideTiles() const {
  int64_t tiles128 = tileCount(128, 128);
  return !forced() && !pingpong && tma && p.batch == 1 && p.m > 128 && p.n > 256 &&
         p.k >= 1024 && tiles128 > target.multiprocessors &&
         2 * tiles128 <= 3 * target.multiprocessors;
}

/// Few tiles of a narrow D (N <= 512: at most four 128-column tile columns, too few to fit the
/// width to the wave): the swapped form (Dᵀ = B Aᵀ) of two consumers (128 columns) through TMA
/// stores, with the height (64 to 256 rows, in steps of 16) whose waves fall most inside D,
/// where they fill it to 0.85 or more. cuBLASLt fits its tiles' height so (ncu: 176 x 128 on
/// 11520 x 256 x 37312). Forced on the sweeps' 15 problems of this class (H100, 2026-11-27, of
/// cuBLASLt, against the rules' choice; bench/NOTES.md): with two consumers 11520 x 256 x
/// 37312 1.003 against 0.909, 3904 x 384 x 1792 0.95 against 0.91, 23680 x 128 x 27904 1.07
/// against 1.04, 4416 x 512 x 1472 GELU_BIAS 0.87 against 0.84, 7552 x 128 x 54528 1.09 against
/// 1.08, 15872 x 128 x 20992 1.04 either way; one consumer (64 columns) lost on three of nine
/// (4992 x 448 x 8000 GELU_BIAS 0.60 against 0.91, 8576 x 320 x 53568 1.05 against 1.65), so
/// only two. Where no such height fills the wave: lowSplitHeight.
KernelConfigAttr WgmmaHeuristic::fittedHeight() const {
  constexpr double kMinShare = 0.85;
  constexpr int64_t kMaxColumns = 512, kMinK = 1024;
  constexpr int64_t kMinHeight = 64, kMaxHeight = 256, kHeightStep = 16;
  // Measured with B given as [N, K] only (an MN-major B also swaps, unmeasured here).
  if (forced() || pingpong || !tma || p.batch != 1 || p.m <= 128 || p.n > kMaxColumns ||
      p.k < kMinK || !canSwap(op, tma) || p.mnMajorB ||
      !canUseTmaStores(op, tma, kSwappedColumns) ||
      tileCount(128, 128) >= 2 * target.multiprocessors)
    return {};
  int64_t best = 0;
  double bestShare = 0;
  for (int64_t height = kMaxHeight; height >= kMinHeight; height -= kHeightStep)
    if (double share = waveShare(height, kSwappedColumns, 1); share > bestShare) {
      best = height;
      bestShare = share;
    }
  if (bestShare >= kMinShare)
    return swappedTmaTile(best, 1);
  return lowSplitHeight();
}

/// Where no height of 64 rows or more fills the wave (fittedHeight), a D whose 128-column tiles
/// lie inside it (N a multiple of 128, about) takes 48-row swapped tiles split along K into as
/// many k ranges as one wave holds (splitsFor), where their waves fall 0.75 or more inside D
/// and each unit keeps 24 k-steps or more (the pipeline's fill and the records are a unit's
/// fixed cost): more units than taller tiles give, and no split (or few) where D has rows
/// enough.
/// Forced on the sweeps' 18 few-tile long-K problems under 0.90 (H100, 2026-11-27, mepi's
/// times; bench/NOTES.md) against the rules' choice: 4800 x 128 x 8064
/// 35.6 us (100 units) against 40.8 (128 x 128 in 3 splits), 768 x 128 x 16128 19.6 (8
/// splits) against 22.4, 2624 x 256 x 6016 24.1 against 25.0, 320 x 384 x 55168 50.7 (6)
/// against 52.2, 384 x 128 x 22976 (22 k-steps a unit) 20.1 either way; heights 32, 64 and 80
/// were slower on each (one consumer of 80 rows tied on 2624 x 256), and with N = 192 (a quarter
/// of the tiles' columns outside D) 48-row tiles lost 1.2-1.3x (1024 x 192 x 8768, 256 x 192 x
/// 18048).
KernelConfigAttr WgmmaHeuristic::lowSplitHeight() const {
  constexpr int64_t kHeight = 48, kMinUnitKSteps = 24;
  constexpr double kMinShare = 0.75, kMinColumnShare = 0.9;
  int64_t columns = llvm::divideCeil(p.n, kSwappedColumns) * kSwappedColumns;
  if (double(p.n) < kMinColumnShare * double(columns))
    return {};
  int64_t tiles = tileCount(kHeight, kSwappedColumns);
  int64_t splits = splitsFor(tiles, /*smallTiles=*/false);
  int64_t kSteps = llvm::divideCeil(p.k, line);
  // One wave, as measured: more 48-row tiles than multiprocessors were not.
  if (tiles * splits > target.multiprocessors ||
      waveShare(kHeight, kSwappedColumns, splits) < kMinShare ||
      kSteps < kMinUnitKSteps * splits)
    return {};
  return swappedTmaTile(kHeight, splits);
}

/// The swapped form of `height` rows by two consumers' 128 columns in `splits` k ranges,
/// through TMA stores, with as many stages as fit; null where the spec cannot build it.
KernelConfigAttr WgmmaHeuristic::swappedTmaTile(int64_t height, int64_t splits) const {
  KernelConfigAttr config = swappedTile(op, height, kSwappedColumns).withStore(DStore::Tma);
  if (config && splits > 1)
    config = config.withSplits(splits);
  config = withFittingStages(p, target, config);
  return config && Sm90Spec(p, config, target).canImplement() ? config : KernelConfigAttr();
}

/// The partial wave's tile width: of the 128-row tiles 160, 192, 224 or 256 columns wide (the
/// epilog's 32-column chunks), the one whose waves do the least work outside D per column of
/// D: tiles over the waves they take (a partial wave costs a whole one) times the share of its
/// columns inside D. cuBLASLt fits its tiles to the machine so (its kernels' names show widths
/// such as 40 and 208). Measured on the H200 (2026-11-26, bf16 GELU_BIAS, of cuBLASLt,
/// 128 x 256 against the fitted width): 960 x 2560 x 3776 (80 tiles of 256 against 128 of
/// 160) 0.699 -> 0.889, 4992 x 448 x 8000 (78 against 117 of 160) 0.679 -> 0.895, 4416 x 512
/// x 1472 (70 against 105 of 192) 0.708 -> 0.859; the widths the count ranks lower measured
/// lower there too (bench/NOTES.md).
int64_t WgmmaHeuristic::waveFittedWidth() const {
  int64_t best = 256;
  double bestShare = 0;
  for (int64_t width : {256, 224, 192, 160}) {
    if (!implementable(128, width))
      continue;
    if (double share = waveShare(128, width, 1); share > bestShare) {
      best = width;
      bestShare = share;
    }
  }
  return best;
}

/// Whether the spec can build a tile of this shape (with the fewest stages): an MN-major B,
/// for one, loads 64-row blocks, so narrower multiples of 32 are not for it.
bool WgmmaHeuristic::implementable(int64_t tileM, int64_t tileN) const {
  KernelConfigAttr shape = tile(tileM, tileN, /*stages=*/2);
  return shape && Sm90Spec(p, shape, target).canImplement();
}

double WgmmaHeuristic::waveShare(int64_t tileM, int64_t tileN, int64_t splits) const {
  return mlir::mepi::rules::waveShare(p, target, tileM, tileN, splits);
}

/// Split-K's tile width fitted to the wave, as the partial wave's (waveFittedWidth): of the
/// 128-row tiles 128 to 256 columns wide (multiples of 32, the spec permitting), each split as
/// splitsFor would, the one whose units fill the machine best, where it fills it at least 5 %
/// better than the width chosen. Forced on the H200 (2026-11-26, of cuBLASLt): 512 x 1472 x
/// 28928 fp16 128 x 128 in 2 splits (96 units, a share of 0.73) 0.773, 128 x 192 in 4 (128
/// units, 0.93) 0.986; 128 x 128 in 3 (144 units: two waves) 0.543. On the other seed's
/// sweep, unseen when this was written: 2048 x 192 x 23040 128 x 128 in 4 (a 192-column D in
/// 256 columns) 0.71-0.74, 128 x 192 in 8 0.94; 896 x 320 x 11776 128 x 128 in 6 0.71-0.72,
/// 128 x 160 in 9 0.71-0.72 (bench/NOTES.md).
void WgmmaHeuristic::fitSplitWidth(int64_t tileM, int64_t &tileN, int64_t &splits) const {
  constexpr double kRequiredGain = 1.05;
  if (forced() || tileM != 128 || splits <= 1)
    return;
  double chosen = waveShare(tileM, tileN, splits), best = chosen;
  int64_t bestN = tileN, bestSplits = splits;
  for (int64_t width : {128, 160, 192, 224, 256}) {
    if (width == tileN || 2 * p.n <= width || !implementable(tileM, width))
      continue;
    int64_t s = splitsFor(tileCount(tileM, width), /*smallTiles=*/false);
    if (double share = waveShare(tileM, width, s); s > 1 && share > best) {
      best = share;
      bestN = width;
      bestSplits = s;
    }
  }
  if (best >= kRequiredGain * chosen) {
    tileN = bestN;
    splits = bestSplits;
  }
}

/// Instead of 128 x 256 whole-unit tiles, 128 x 192 (clusters, stream-K and the store form
/// chosen alike, the store form unchanged) where its work units are predicted to spend 10 % more
/// of the walkers' time inside D (predictedShare: waves and columns outside D). A D just past a
/// multiple of 256 columns computes almost a whole tile column outside it (N = 576: a quarter of
/// all it computes). Forced on the H100 (2026-11-28, bench/NOTES.md; mepi's
/// TFLOP/s, 128 x 256 against 128 x 192, both in clusters of 2): predicted 1.10 or more, 13 of 14
/// gained: 16384 x 576 x 8192 490 -> 761, 16384 x 320 x 8192 345 -> 544, 42578 x 331 x 15656
/// 356 -> 491, 2056 x 2665 x 2472 GELU_BIAS 350 -> 410, 39192 x 257 x 31568 252 -> 298, 2900 x
/// 1919 x 961 +11 %, 8192 x 1344 x 8192 +2.5 %; 5713 x 3120 x 12545 GELU_BIAS (1.11) lost 5.5 %.
/// Below 1.10 the nine measured moved 0.90-1.04 (13553 x 2562 x 1487 GELU_BIAS at 1.06: 469 ->
/// 424): per FLOP a 192-column tile ran ~5 % slower than a 256-column one. 128 x 160 (no TMA
/// stores for 16-bit D: 64-column lines) ran slower per FLOP still: 0.58-0.94 of the wider tile
/// on seven of nine problems; 16384 x 320 x 8192 (two exact tile columns) 1.78x. Measured on
/// unbatched 16-bit problems only (TF32 and batched problems keep 128 x 256).
KernelConfigAttr WgmmaHeuristic::columnFitted(KernelConfigAttr config) const {
  constexpr double kRequiredGain = 1.10;
  constexpr int64_t kWidth = 192;
  if (pingpong || !tma || p.elementBytes != 2 || p.batch != 1 || config.getTileM() != 128 ||
      config.getTileN() != 256 || config.getScheduler().getSplits() != 1)
    return config;
  KernelConfigAttr narrower = completed(128, kWidth, /*splits=*/1, /*smallTiles=*/false,
                                        /*huge=*/false, /*partialWave=*/false);
  // In clusters of 2 a B given as [K, N] loads 128-column blocks (Sm90Spec::whyNot), and b_sums
  // split 192 columns unevenly: those keep 128 x 256.
  if (!narrower || !Sm90Spec(p, narrower, target).canImplement() ||
      narrower.getEpilogue().getStore() != config.getEpilogue().getStore() ||
      predictedShare(p, target, narrower) < kRequiredGain * predictedShare(p, target, config))
    return config;
  return narrower;
}


/// Fewer tiles than multiprocessors and a short K (under 32 k-steps, too few to split well):
/// smaller tiles, the one with the most tiles that still fit in one wave, no split-K (none with
/// half of it outside D). On the H200 (2026-11-23, bf16, TFLOP/s of mepi's kernel, the
/// heuristic's choice before against this one): 256 x 768 x 832 35 -> 53 (64 x 32),
/// 256 x 320 x 1024 15 -> 27 (64 x 32, was split-K), 1792 x 448 x 1216 137 -> 202 (128 x 64,
/// was split-K), 2304 x 320 x 384 81 -> 87, 960 x 576 x 320 50 -> 55 (128 x 64),
/// 448 x 128 x 1664 16 -> 24, 64 x 832 x 1024 12 -> 16 (64 x 32); GELU_BIAS alike
/// (bench/NOTES.md). Whether it took one (then `tileM`, `tileN` and `tiles` are its).
bool WgmmaHeuristic::smallTile(int64_t &tileM, int64_t &tileN, int64_t &tiles, bool huge) const {
  if (forced() || huge || !tma || tiles >= target.multiprocessors ||
      llvm::divideCeil(p.k, line) >= 32)
    return false;
  bool taken = false;
  for (auto [cm, cn] : {std::pair<int64_t, int64_t>{128, 64}, {64, 64}, {64, 32}}) {
    int64_t count = tileCount(cm, cn);
    KernelConfigAttr candidate = tile(cm, cn, stagesFor(cm, cn));
    if (count > tiles && count <= target.multiprocessors && 2 * p.m > cm && 2 * p.n > cn &&
        candidate && Sm90Spec(p, candidate, target).canImplement()) {
      tileM = cm;
      tileN = cn;
      tiles = count;
      taken = true;
    }
  }
  return taken;
}

/// When even the chosen tile leaves half of the multiprocessors idle, K is split (split-K) so
/// that about one work unit per multiprocessor runs (waveSplits).
int64_t WgmmaHeuristic::splitsFor(int64_t tiles, bool smallTiles) const {
  if (forced() || smallTiles)
    return 1;
  return waveSplits(p, target, tiles);
}

KernelConfigAttr WgmmaHeuristic::choose() const {
  auto [tileM, tileN] = wideTile();
  // Strict f32 splits its stages into TF32 parts with one consumer (Tf32Split.h): 64 rows.
  if (p.splitsTf32)
    return splitTf32Config(tileN);
  bool partialWave = partialWaveOfWideTiles();
  if (partialWave)
    std::tie(tileM, tileN) = std::pair<int64_t, int64_t>{128, waveFittedWidth()};
  // Up to 32 rows of D: the swapped form with 64-column tiles and 16 stages, as cuBLASLt's
  // kernel for these shapes (nvjet_sm90_tst_16x64_64x16): on the H200 decode16 (16 x 8192 x
  // 8192) went from 0.85 to 0.97-0.98 of cuBLASLt, decode16-up from 0.94 to 0.98
  // (bench/NOTES.md). 128 columns past one wave of those tiles (swappedWidth): on 22 16-bit
  // problems of both sweeps and LLM decoding 1.027x in geomean, none slower (H200,
  // `rules-ab.log`).
  if (!pingpong && !forced() && p.m <= 32 && canSwap(op, tma))
    return swappedConfig(op, p.m, swappedWidth(p, target));
  if (KernelConfigAttr fitted = fittedHeight())
    return fitted;
  if (!pingpong && !forced()) {
    if (KernelConfigAttr column = oneTileColumn(op, target, tma))
      return column;
    if (KernelConfigAttr row = oneTileRow(op, target, tma))
      return row;
  }
  // A D of 2^30 elements or more (65536 x 16384) whose epilog stages D: 128 x 128 with 4
  // stages. autotune() chose it for 6 of the 7 epilogs measured there (0.65-0.82 of cuBLASLt
  // with 128 x 256 s4, 0.84-1.01 with it), and it still beats 128 x 256 in clusters for the
  // aux epilogs (RELU_AUX_BIAS 0.925 against 0.876). With TMA stores 128 x 256 in clusters wins
  // there (RELU_BIAS 0.986 against 0.951, BGRADA 0.996 against 0.892; bench/NOTES.md).
  bool huge = p.m * p.n >= (int64_t(1) << 30) && p.m > 128 && !canUseTmaStores(op, tma, 256);
  if (huge)
    tileM = tileN = 128;
  if (KernelConfigAttr form = manyTileForm(huge))
    return form;
  // Also past K = 4096 or below two waves of 128 x 128, where manyTileForm does not choose.
  if (!pingpong && !forced() && !huge)
    if (KernelConfigAttr fitted = narrowLineFit(op, target, tma))
      return fitted;
  if (forcedM > 0)
    tileM = forcedM;
  if (forcedN > 0)
    tileN = forcedN;
  int64_t tiles = tileCount(tileM, tileN);
  bool smallTiles = smallTile(tileM, tileN, tiles, huge);
  int64_t splits = splitsFor(tiles, smallTiles);
  fitSplitWidth(tileM, tileN, splits);
  KernelConfigAttr config = completed(tileM, tileN, splits, smallTiles, huge, partialWave);
  if (!config || forced() || huge || partialWave)
    return config;
  return columnFitted(config);
}

/// The configuration of tileM x tileN tiles in `splits` k ranges: its stages (at most 4 for a
/// huge D), clusters (not for a partial wave's width), the store form and, unforced, stream-K
/// where its rule takes it.
KernelConfigAttr WgmmaHeuristic::completed(int64_t tileM, int64_t tileN, int64_t splits,
                                           bool smallTiles, bool huge, bool partialWave) const {
  int64_t stages = stagesFor(tileM, tileN);
  if (huge && !forced())
    stages = std::min<int64_t>(stages, 4);
  // 128 x 256 tiles (and columnFitted's 128 x 192) pair up in clusters of 2 (B multicast) when
  // D has two tile rows or more: on the H200 the K = 4096 shapes gained 1-8 % against the same
  // tile without. 128 x 192 on the H100: 8576 x 320 x 53568 (stream-K) 433 -> 529 TFLOP/s,
  // 16384 x 320 x 8192 487 -> 544; six others 0.96-1.01 (bench/NOTES.md).
  int64_t cluster =
      !forced() && !pingpong && !partialWave && tileM == 128 && tileN >= 192 && splits == 1 &&
              tma && p.m > tileM
          ? 2
          : 1;
  KernelConfigAttr config =
      tile(tileM, tileN, stages)
          .withSplits(pingpong ? 1 : splits)
          .withPingpong(pingpong)
          .withCluster(cluster)
          .withStore(smallTiles ? DStore::Staged : shortMStore(tileM, tileN, splits));
  config = withFittingStages(p, target, config);
  if (!config || forced())
    return config;
  return withStreamK(p, target, config, /*heuristic=*/true);
}

/// How D leaves the chosen tile: defaultStore's form, but TMA stores for 64-row tiles of one
/// consumer over a very short K (whole units): there the epilog's stores weigh as much as the
/// main loop, and TMA takes them off the consumer's path. On the sweeps' autotune data (every
/// candidate timed; times over the fastest candidate's, 64 x 128 staged against TMA stores):
/// 64 x 35584 x 128 1.17 against 1.00, 64 x 42880 x 384 1.03 against 1.00, 64 x 10112 x 192
/// and 64 x 12480 x 320 equal. Over a longer K the tile chosen after the cost model takes them
/// (oneConsumerTmaStores): taken here, they changed which tile the model preferred.
DStore WgmmaHeuristic::shortMStore(int64_t tileM, int64_t tileN, int64_t splits) const {
  if (tileM == 64 && !forced() && !pingpong && splits == 1 &&
      llvm::divideCeil(p.k, line) <= kShortMTmaStoreKSteps && canUseTmaStores(op, tma, tileN))
    return DStore::Tma;
  return defaultStore(op, tileM, tileN, pingpong, tma);
}

/// Strict f32 (3xTF32 in shared memory): 64-row tiles of one consumer, `tileN` (or the
/// forced width) wide, split-K where they leave half of the machine idle. For the few rows
/// the runtime splits in the kernel (SplitOperand.h), 64 x 128 s4 ran M = 128 at 60 TFLOP/s
/// against 40 with 128 x 128 s3 or 64 x 64 s6, and M = 16 at 15 against 10 (H100,
/// bench/NOTES.md).
KernelConfigAttr WgmmaHeuristic::splitTf32Config(int64_t tileN) const {
  int64_t tileM = sm90::kBlockRows;
  // A stage keeps its low parts beside it (twice the bytes): 256 columns would leave 2 stages.
  tileN = std::min<int64_t>(tileN, 128);
  if (forcedN > 0)
    tileN = forcedN;
  int64_t splits = pingpong ? 1 : splitsFor(tileCount(tileM, tileN), /*smallTiles=*/false);
  KernelConfigAttr config = tile(tileM, tileN, stagesFor(tileM, tileN))
                                .withSplits(splits)
                                .withStore(defaultStore(op, tileM, tileN, false, tma));
  return withFittingStages(p, target, config);
}

/// The wgmma heuristic (WgmmaHeuristic's rules): a wide tile where it fills the machine, the
/// swapped form for up to 32 rows, ping-pong or 256-row tiles for many tiles with K <= 4096,
/// smaller tiles or split-K for few tiles, clusters of 2 for 128 x 256 (and the column-fitted
/// 128 x 192), stream-K for a short last wave.
KernelConfigAttr chooseWgmmaConfig(MatmulOp op, const TargetInfo &target, int64_t forcedM,
                                   int64_t forcedN, bool pingpong) {
  return WgmmaHeuristic(op, target, forcedM, forcedN, pingpong).choose();
}

} // namespace mlir::mepi::rules

namespace {
struct SelectKernelConfigPass : mepi::impl::MepiSelectKernelConfigBase<SelectKernelConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!strategy.empty() && strategy != "simt" && strategy != "wgmma") {
      getOperation()->emitError() << "expected strategy simt or wgmma, got '" << strategy << "'";
      return signalPassFailure();
    }
    TargetInfo target = TargetInfo::forChip(chip, multiprocessors);
    // A forced wgmma family without its chip is sized for sm_90a's reference part.
    if (strategy == "wgmma" && !target.hasWgmma())
      target = TargetInfo::forChip("sm_90a", multiprocessors);
    WalkResult result = getOperation()->walk([&](MatmulOp op) {
      if (op.getConfig())
        return WalkResult::advance();
      bool wgmma =
          strategy == "wgmma" || (strategy.empty() && target.hasWgmma() && isWgmmaEligible(op));
      if (wgmma && !isWgmmaEligible(op)) {
        op.emitOpError() << "cannot use the wgmma family: it needs 16-bit A and B (or f32 or an "
                            "fp8 pair, K-major and TMA-addressable, strict f32 unbatched) "
                            "with contiguous rows and static shapes";
        return WalkResult::interrupt();
      }
      // Unforced: the first of the ranked candidates (the rules' choice, or the cost model's).
      KernelConfigAttr config;
      if (!wgmma) {
        config = chooseSimtConfig(op, tileM, tileN);
      } else if (tileM <= 0 && tileN <= 0) {
        SmallVector<KernelConfigAttr> ranked = rankKernelConfigs(op, target);
        config = ranked.empty() ? KernelConfigAttr() : ranked.front();
      } else {
        config = chooseWgmmaConfig(op, target, tileM, tileN);
        if (config && Sm90Problem::of(op).promotesSums)
          config = config.withPromote(sm90::kFp8PromoteKSteps);
      }
      if (!config) {
        op.emitOpError() << "expected a valid wgmma tile, got tile-m " << tileM << " and tile-n "
                         << tileN;
        return WalkResult::interrupt();
      }
      if (config.getStrategy() == KernelStrategy::Simt &&
          config.getTileM() * config.getTileN() > 1024) {
        op.emitOpError() << "expected at most 1024 threads per simt block, got "
                         << config.getTileM() * config.getTileN();
        return WalkResult::interrupt();
      }
      op.setConfigAttr(config);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
