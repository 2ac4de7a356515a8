// The heuristic's rules for a D narrow on one side and long on the other (KernelRules.h): one
// tile as wide (or tall) as that side, so that the large operand is read once. Two tile columns
// (rows) read it twice and compute the short side's residue twice over.
#include "KernelRules.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {
namespace {
constexpr int64_t kMinK = 1024, kMaxWaves = 2;
constexpr double kMinShare = 0.6;
constexpr double kTie = 1e-6; // equal shares in floating point

/// A plain (not swapped) tile with the stages the budget gives, through TMA loads or not.
KernelConfigAttr plainTile(MatmulOp op, const Sm90Problem &p, int64_t tileM, int64_t tileN,
                           bool tma) {
  KernelConfigAttr shape = KernelConfigAttr::get(op.getContext(), KernelStrategy::Wgmma, tileM,
                                                 tileN, p.atom().lineElements(), 2)
                               .withTma(tma);
  return shape ? shape.withStages(budgetStages(p, shape)) : shape;
}

/// The share of the waves inside D of 128 x 128 tiles split along K as the rules would split
/// them (waveSplits): a one-tile form must fill the waves no less.
double splitShare(const Sm90Problem &p, const TargetInfo &target) {
  return waveShare(p, target, 128, 128, waveSplits(p, target, tileCount(p, 128, 128)));
}

/// TMA stores where D's lines fit the width, else staged ones, as measured (not from
/// registers: the epilog is a small part of these tiles; nor TMA stores ending in a narrower
/// line, not measured on these forms).
KernelConfigAttr withMeasuredStore(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                                   KernelConfigAttr config, bool tma) {
  if (!config)
    return config;
  KernelConfigAttr staged = config.withStore(DStore::Staged);
  KernelConfigAttr stored = withFittingStages(p, target, config.withStore(DStore::Tma));
  if (canUseTmaStores(op, tma, config.getTileN()) &&
      config.getTileN() % tmaStoreLineColumns(op) == 0 && buildable(p, target, stored))
    return stored;
  return withFittingStages(p, target, staged);
}

/// The share of `units` work units' waves they fill.
double waveFill(const TargetInfo &target, int64_t units) {
  int64_t waves = llvm::divideCeil(units, target.multiprocessors);
  return units > 0 ? double(units) / double(waves * target.multiprocessors) : 0.0;
}

/// Where the narrow swapped tiles (`narrowUnits` of them) leave a partial wave: 64 x 256 tiles
/// (three tile rows of one consumer, TMA stores) whose units fill 0.8 of their waves (at most
/// two) and more than the narrow ones do; null elsewhere. On these memory-bound tiles the third
/// row's idle rows cost little, which the wave share (rows inside D) does not see. Forced on the
/// H200 (2026-11-30, bf16, of torch.mm, both B layouts; `one-tile-forms.log`):
/// 156 x 11072 x 14080 0.91-0.93 against the rules' 0.55-0.57, 164 x 9792 x 16000 0.95-1.09
/// against 0.60-0.84, 146 x 10368 x 1216 0.94-0.99, 173 x 18368 x 2112 (1.6 waves) 0.95 against
/// 0.74-0.75; 132 x 14080 x 9728 (165 tiles, 0.63) keeps [144, 64] (0.75-0.83 against 0.54).
/// Then A B B A against the choices before it (`wide-rows-ab.log`): on those and six problems of
/// an unseen seeded sample (seed 20261201) 1.19-1.51x, geomean 1.31; 192 x 20800 x 11520
/// GELU_BIAS 0.82 -> 0.98 of cuBLASLt.
KernelConfigAttr wideRows(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                          int64_t narrowUnits, bool tma) {
  constexpr double kMinFill = 0.8;
  int64_t tiles = tileCount(p, 64, 256);
  double fill = waveFill(target, tiles);
  if (tiles > kMaxWaves * target.multiprocessors || fill < kMinFill ||
      fill <= waveFill(target, narrowUnits))
    return {};
  KernelConfigAttr config = withMeasuredStore(op, p, target, plainTile(op, p, 64, 256, tma), tma);
  return buildable(p, target, config) ? config : KernelConfigAttr();
}
} // namespace

/// See KernelRules.h. 64 or 128 rows, whichever fills the waves more (the taller on ties: fewer
/// reads of B) in at most two waves, where that fills 0.6 of them and no less than 128 x 128
/// tiles split along K would; then stream-K where its rule takes a short last wave. Forced on
/// the H200 (2026-11-30, bf16, of torch; bench/NOTES.md "Short M") against the rules' 128 x 64
/// or 128 x 128: 8192 x 128 x 8192 0.71 -> 0.97, 14336 x 16 x 4096 (128 x 32) 1.07-1.10x,
/// 11008 x 96 x 4096 (86 tiles, a share of 0.65) 1.13-1.14x, 8192 x 192 x 2048 (64 x 192) 0.61
/// -> 0.96-0.98, 8192 x 160 x 4096 0.54 -> 0.94-0.97. Split-K filling more: 5227 x 98 x 56928
/// ran 3 splits of 128 x 128 1.10x as fast as the cost model's pick in place of 64 x 96 (0.62),
/// 4096 x 256 x 14336 2 splits 0.84-0.94 against 64 x 256 (0.48) 0.66-0.72.
KernelConfigAttr oneTileColumn(MatmulOp op, const TargetInfo &target, bool tma) {
  constexpr int64_t kMaxColumns = 256;
  Sm90Problem p = Sm90Problem::of(op);
  // Not with two 128 x 128 tiles per multiprocessor, the many-tile forms' problems (ping-pong
  // 128 x 128 ran 29568 x 256 x 1472 GELU_BIAS 1.09x as fast as one column of 128 x 256).
  if (!tma || p.batch != 1 || p.m <= 128 || p.n > kMaxColumns || p.k < kMinK ||
      tileCount(p, 128, 128) >= 2 * target.multiprocessors)
    return {};
  int64_t narrowest = llvm::alignTo(p.n, sm90::kChunkColumns), bestM = 0, width = 0;
  double bestShare = 0;
  for (int64_t tileM : {128, 64}) {
    // The narrowest the spec builds (an MN-major B loads 64-row blocks).
    int64_t w = narrowest;
    while (w <= kMaxColumns && !buildable(p, target, plainTile(op, p, tileM, w, tma)))
      w += sm90::kChunkColumns;
    // The share of the waves' rows inside D (D's columns fill a tile column alike).
    double share = waveShare(p, target, tileM, w) * double(w) / double(p.n);
    if (w <= kMaxColumns && tileCount(p, tileM, w) <= kMaxWaves * target.multiprocessors &&
        share > bestShare) {
      bestM = tileM;
      bestShare = share;
      width = w;
    }
  }
  double split = splitShare(p, target) * double(llvm::alignTo(p.n, int64_t(128))) / double(p.n);
  if (bestShare < kMinShare || bestShare + kTie < split)
    return {};
  KernelConfigAttr config = withMeasuredStore(op, p, target, plainTile(op, p, bestM, width, tma),
                                              tma);
  return config ? withStreamK(p, target, config, /*heuristic=*/true) : config;
}

/// See KernelRules.h. 64 x 256 where the narrow tiles leave a partial wave (wideRows); else of the
/// swapped form [h, 64] (one consumer, h = M rounded up to 16; split along K as waveSplits would
/// where its tiles are few) and 192 x 128 (three consumers), the one
/// whose waves fall more inside D (the wider on ties) in at most two waves, where that fills 0.75
/// of them and no less than 128 x 128 tiles split along K would. 16-bit operands the swapped form
/// takes, as measured (H200, 2026-11-30, bf16 DEFAULT, of torch.mm, B as [K, N] and [N, K];
/// bench/NOTES.md "Short M", `one-tile-forms.log`) against the rules' 128 x 128:
/// 192 x 8192 x 2048 [192, 64] 0.74 -> 0.98, 192 x 8192 x 8192 0.68 -> 0.96-1.04, 160 x 8192 x
/// 4096 0.57-0.60 -> 0.97, 144 x 8192 x 4096 0.58 -> 1.04-1.05; 192 x 14336 x 4096 192 x 128
/// 0.83 -> 0.93-0.96 ([192, 64] 0.85-0.86), 192 x 28672 x 4096 0.74-0.75 -> 0.95-0.97; split:
/// 138 x 3584 x 8960 [144, 64] in 2 0.37 -> 0.87, 152 x 2368 x 8192 in 3 (a share of 0.80)
/// 0.79 -> 0.97, 158 x 2560 x 7168 0.76 -> 0.92, 162 x 2496 x 10432 0.83 -> 0.93. Not above 192
/// rows: ptxas serializes the wgmmas of taller swapped tiles (C7514; 224 x 5120 x 5120 [224, 64]
/// 0.86-0.90 against 0.81-0.82 even so), and 256 rows leave 128-row tiles no rows outside D
/// (256 x 8192 x 8192 [256, 64] 0.94-0.98 against 0.97-0.98).
KernelConfigAttr oneTileRow(MatmulOp op, const TargetInfo &target, bool tma) {
  constexpr int64_t kMaxRows = 192, kWideStages = 4;
  // 0.75: where the rules' choice takes stream-K over a partial wave, a one-tile row of 0.62
  // lost (192 x 20800 x 11520 GELU_BIAS: 192 x 128 0.70 of cuBLASLt against 128 x 256 in
  // clusters with stream-K 0.80); the gains measured filled 0.80 or more.
  constexpr double kMinRowShare = 0.75;
  Sm90Problem p = Sm90Problem::of(op);
  if (!tma || p.batch != 1 || p.elementBytes != 2 || p.m <= 128 || p.m > kMaxRows ||
      p.k < kMinK || !canSwap(op, tma))
    return {};
  KernelConfigAttr narrow = swappedTile(op, llvm::alignTo(p.m, int64_t(16)), 64);
  // Few columns: the narrow tiles split along K into as many ranges as one wave holds.
  int64_t splits =
      narrow ? waveSplits(p, target, tileCount(p, narrow.getTileM(), narrow.getTileN())) : 1;
  if (splits > 1)
    narrow = narrow.withSplits(splits);
  if (narrow)
    if (KernelConfigAttr rows = wideRows(op, p, target,
                                         tileCount(p, narrow.getTileM(), 64) * splits, tma))
      return rows;
  // Four stages, as measured (the budget gives five).
  KernelConfigAttr wide = plainTile(op, p, kMaxRows, 128, tma);
  wide = wide ? withFittingStages(p, target, wide.withStages(kWideStages)) : wide;
  auto share = [&](KernelConfigAttr config) {
    int64_t units = tileCount(p, config.getTileM(), config.getTileN()) *
                    config.getScheduler().getSplits();
    return buildable(p, target, config) && units <= kMaxWaves * target.multiprocessors
               ? waveShare(p, target, config.getTileM(), config.getTileN(),
                           config.getScheduler().getSplits())
               : 0.0;
  };
  double narrowShare = narrow ? share(narrow) : 0, wideShare = wide ? share(wide) : 0;
  KernelConfigAttr best = wideShare + kTie >= narrowShare ? wide : narrow;
  double bestShare = std::max(narrowShare, wideShare);
  if (!best || bestShare < kMinRowShare || bestShare + kTie < splitShare(p, target))
    return {};
  // The swapped form's TMA stores (measured 1.00-1.05x its staged ones) over whole K, staged
  // ones split along K and for the three consumers, as measured.
  return best.getSwapped() && splits == 1 ? withMeasuredStore(op, p, target, best, tma) : best;
}
} // namespace mlir::mepi::rules
