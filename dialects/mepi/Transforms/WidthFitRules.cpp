// The heuristic's width fits (KernelRules.h): tiles narrower than the forms' 256 or 192
// columns where D's columns leave the wider tiles' last column, and so their waves, partly
// outside D; for a narrow D, ping-pong tiles as wide as D. 160 columns end TMA's stores in half
// a line (canUseTmaStores).
#include "KernelRules.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {
namespace {

/// `config` where the spec builds it, else null.
KernelConfigAttr ifBuildable(const Sm90Problem &p, const TargetInfo &target,
                             KernelConfigAttr config) {
  return buildable(p, target, config) ? config : KernelConfigAttr();
}

/// For a cheap epilog (Arithmetic) the short-K ping-pong's 64 x 256 becomes ping-pong 128 x 128
/// (6 stages or the most that fit, TMA stores) where 128-row tiles cover no more of M than
/// 64-row ones and rows start on L2's sectors: the same area per consumer, but a k-step reads 256
/// lines of A and B, not 320, and a short epilog needs no 64-row slice to hide. Forced against
/// 64 x 256 (H200, 2026-12-01, config_ab.py, bf16, `short-k-square-pingpong-ab.log`): DEFAULT
/// on the sweeps and seeds 20262001-03 1.050x over 17, but 192 rows (a quarter of 128-row
/// tiles outside D) 0.93-0.99x and 4800 rows 0.96x, hence the rows; with them 1.079x over 11,
/// lowest 1.018; unseen seeds 20262004-10 1.095x over 15, lowest 1.007 (768 x 32448 x 320
/// 0.94 -> 1.22 of cuBLASLt). GELU_BIAS's class keeps 64 x 256 (0.989x over 42, 0.85 lowest).
KernelConfigAttr cheapSquarePingpong(MatmulOp op, const Sm90Problem &p,
                                     const TargetInfo &target, bool tma) {
  constexpr int64_t kSquare = 128, kSlice = 64;
  if (epilogCost(op) != EpilogCost::Arithmetic || !sectorAlignedRows(op) ||
      llvm::alignTo(p.m, kSquare) != llvm::alignTo(p.m, kSlice))
    return {};
  return pingpongTmaStored(op, p, target, tma, kSquare, kSquare);
}
} // namespace

/// The short-K ping-pong of manyTileForm: 64 x 256, or a narrower width (192, then 160) where
/// the columns its waves compute (waves of tiles, times the width) are at most 0.90 of the
/// wider one's: its waves fall that much more inside D (waveShare), and a narrower tile runs
/// ~5 % slower per FLOP, so that smaller gains do not pay. Forced on the ten sweep problems
/// whose waves 192 narrows (H200, 2026-12-01, `short-k-pingpong-width.log`, of cuBLASLt, bf16
/// DEFAULT / GELU_BIAS): 1.100x in geomean, 18 of 20 faster; 45 x 832 x 320 x 256 DEFAULT
/// 0.73 -> 0.88, 4928 x 832 x 128 GELU_BIAS 0.78 -> 0.90; where 192's columns were 0.92-0.94
/// of 256's it moved within 4 % either way; on unseen seeds 1.127x (36 problems,
/// `short-k-narrow-unseen.log`). 160 columns (half a line at the end of TMA's stores) against
/// 192 on D of 320 columns (`narrow-line-forms.log`): 38848 x 320 x 512 GELU_BIAS 1.23x,
/// 7 x 1920 x 320 x 256 1.06x / 1.10x; at 0.95 of 192's columns (11008 x 960 x 320) DEFAULT
/// lost 4 %.
KernelConfigAttr shortKPingpong(MatmulOp op, const TargetInfo &target, bool tma) {
  Sm90Problem p = Sm90Problem::of(op);
  auto columns = [&](int64_t width) {
    return llvm::divideCeil(tileCount(p, 64, width), target.multiprocessors) * width;
  };
  int64_t width = 256;
  for (int64_t narrower : {192, 160})
    if (10 * columns(narrower) <= 9 * columns(width) && canUseTmaStores(op, tma, narrower))
      width = narrower;
  if (width == 256)
    if (KernelConfigAttr square = cheapSquarePingpong(op, p, target, tma))
      return square;
  return ifBuildable(p, target,
                     wgmmaTile(op, p, 64, width, tma).withPingpong(true).withStore(DStore::Tma));
}

/// 128 x 160 with TMA stores (half a line at the end of each slice's) where its waves fall at
/// least 1/0.9 times as much inside D as those of the many-tile forms' other widths (waveShare
/// of 128 x 128, 128 x 192, 128 x 256 and 256 x 128; a narrower tile runs slower per FLOP): D
/// of 257-320 columns, which 160-column tiles cover and 128- or 192-column ones with a sixth
/// outside, where the waves do not make up for it. Unbatched, at least a wave of tiles. Forced
/// against the rules' choices (H200, 2026-12-01, `narrow-line-forms.log`, bf16 DEFAULT /
/// GELU_BIAS): 39872 x 320 x 2304 1.27x / 1.44x (128 x 192, ping-pong 128 x 128), 53184 x 320
/// x 1920 1.11x / 1.42x (256 x 128, ping-pong), 16384 x 320 x 8192 1.23x / 1.24x (128 x 192 in
/// clusters), 12224 x 320 x 832 1.07x / 1.07x. 8576 x 320 x 53568 lost (0.76x: 134 tiles of
/// 160 make two waves, 256 x 128's 102 one), which the shares predict.
KernelConfigAttr narrowLineFit(MatmulOp op, const TargetInfo &target, bool tma) {
  constexpr int64_t kWidth = 160;
  Sm90Problem p = Sm90Problem::of(op);
  if (p.batch != 1 || p.m <= 128 || !canUseTmaStores(op, tma, kWidth) || op.getASums() ||
      op.getBSums() || tileCount(p, 128, kWidth) < target.multiprocessors)
    return {};
  auto share = [&](int64_t tileM, int64_t tileN) {
    return waveShare(p, target, tileM, tileN);
  };
  double others = std::max({share(128, 128), share(128, 192), share(128, 256), share(256, 128)});
  if (9 * share(128, kWidth) < 10 * others)
    return {};
  return ifBuildable(p, target, wgmmaTile(op, p, 128, kWidth, tma).withStore(DStore::Tma));
}

/// D of at most 256 columns (whose many-tile form was 256 x 128): ping-pong tiles as wide as D
/// (64 x 128 up to 128 columns, 128 x 128 above), 6 stages or the most that fit, TMA stores,
/// rows on L2's sectors. Up to 16 k-steps a tile's epilog weighs much against its main loop,
/// and ping-pong runs one consumer's under the other's; the 64-row tiles also split the waves
/// finer. Above, only where 128 x 128's waves fall 1.2 times as much inside D as 256 x 128's:
/// with a longer main loop the smaller tiles' extra operand reads cost more, and they gained
/// only where the 256-row waves were far from full. Forced against 256 x 128 s4 on the 36
/// problem-epilogs of seeds 20261201-10 it took (H200, 2026-12-01, bf16, `narrow-n-forms.log`,
/// forms.py): up to 16 k-steps 64 x 128 at N = 128 1.10-1.59x (37120 x 128 x 128 DEFAULT 0.66
/// -> 1.04 of cuBLASLt; 8 x 3328 x 128 x 960 DEFAULT lost 4 %, 128 x 128 1 %), 128 x 128 at
/// N = 256 1.07x (64 x 128: 0.94-0.98x); above, 128 x 128 at shares 1.33x 256 x 128's 1.16-1.25x
/// (40128 x 128 x 2368, 23488 x 256 x 1472), at equal shares 0.77-0.92x (15 x 1216 x 128 x
/// 4032, 19 x 1024 x 128 x 2112, 38 x 1408 x 128 x 2880). D of 320 columns kept 256 x 128
/// (20992 x 320 x 576: ping-pong 0.70-0.89x).
KernelConfigAttr narrowPingpong(MatmulOp op, const TargetInfo &target, bool tma) {
  constexpr int64_t kMaxColumns = 256, kShortKSteps = 16;
  constexpr double kMinShareGain = 1.2;
  Sm90Problem p = Sm90Problem::of(op);
  if (p.n > kMaxColumns || !sectorAlignedRows(op) || !canUseTmaStores(op, tma, 128))
    return {};
  int64_t tileM = p.n <= 128 ? 64 : 128;
  if (llvm::divideCeil(p.k, p.atom().lineElements()) > kShortKSteps) {
    if (waveShare(p, target, 128, 128) < kMinShareGain * waveShare(p, target, 256, 128))
      return {};
    tileM = 128;
  }
  return pingpongTmaStored(op, p, target, tma, tileM, 128);
}

/// Batches whose chosen 128 x 256 or 256 x 128 tiles are fewer than the multiprocessors: each
/// runs at most one tile, so the kernel takes one tile's time, and a narrower tile whose count
/// still fits one wave takes less. 128 x 160 (5 stages) or else 128 x 192 (4), TMA stores, where
/// its tiles fit one wave: 0.625 or 0.75 of the area per multiprocessor. From 8 k-steps
/// (shorter K not measured). Forced against the rules' choice on the 19 batched problem-epilogs
/// of seeds 20261123/24 and 20261201-10 under one wave of those tiles (H200, 2026-12-01, bf16,
/// `batch-wave-fit-forms.log`, forms.py): where it applies, 8 x 448 x 640 x 1024 1.38x (0.79 ->
/// 1.08 of cuBLASLt), 10 x 512 x 512 x 3136 1.24x; where the narrower tiles make two waves they
/// lost as their area predicts (5 x 2240 x 256 x 1728, 128 x 192: 0.57x). On the 37 of unseen
/// seeds 20261211-40, the 13 it takes ran 1.02-1.43x (the same file): 18 x 768 x 192 x 960
/// 1.30x, 9 x 256 x 1024 x 896 1.43x (0.79 -> 1.13), 65 x 192 x 192 x 3648 1.02x (130 tiles of
/// either: only the columns outside D go).
KernelConfigAttr batchWaveFit(MatmulOp op, const TargetInfo &target, bool tma,
                              KernelConfigAttr chosen) {
  constexpr int64_t kMinKSteps = 8;
  Sm90Problem p = Sm90Problem::of(op);
  if (!plainCooperative(chosen) || p.batch == 1 || !chosen.getScheduler().isDataParallel() ||
      chosen.getScheduler().getSplits() != 1 ||
      chosen.getTileM() * chosen.getTileN() != 128 * 256 ||
      llvm::divideCeil(p.k, p.atom().lineElements()) < kMinKSteps || op.getASums() ||
      op.getBSums() || tileCount(p, chosen.getTileM(), chosen.getTileN()) >= target.multiprocessors)
    return chosen;
  for (auto [width, stages] : {std::pair<int64_t, int64_t>{160, 5}, {192, 4}}) {
    if (tileCount(p, 128, width) > target.multiprocessors || !canUseTmaStores(op, tma, width))
      continue;
    KernelConfigAttr fitted = wgmmaTile(op, p, 128, width, tma);
    fitted = fitted ? fitted.withStages(stages).withStore(DStore::Tma) : fitted;
    if (KernelConfigAttr built = ifBuildable(p, target, fitted))
      return built;
  }
  return chosen;
}

/// One row of 64-row tiles (at most 64 rows of D) past one wave: such a problem streams B from
/// DRAM at a few FLOPs a byte, and a last wave of few tiles streams each at one
/// multiprocessor's rate, not the wave's share of DRAM's: 64 x 34432 x 3136 took 135 tiles of
/// 64 x 256, 57 us for the first 132 and 16 more for the last 3. So the width (256 down to 96
/// in 32s) whose waves fall most inside D (as waveShare counts them; the wider on ties), with
/// as many stages as fit, where its share is at least 1.2 times the chosen width's: a narrower
/// tile runs slower per FLOP, and narrowing 256 to 224 in as many waves (8 / 7 the share) moved
/// 0.97-1.06x. From 16 k-steps (shorter K not measured); not with reductions (not measured).
/// H200, 2026-12-01, forms.py and config_ab.py in bf16 (the sweeps draw fp16 too):
/// - forced on the 31 problem-epilogs of seeds 20261201-60 whose 64 x 256 or 64 x 128 tiles
///   (stream-K among them) leave a last wave of at most 44 (`short-row-wave-fit-forms.log`):
///   the widths this takes 1.11x (64 x 34432 x 3136 1.19x; 64 x 43648 x 5568 on 192 1.14x,
///   where 160's 273 tiles leave a last wave of 9: 1.01x);
/// - without the 1.2, seeds 20261261-300 (`short-row-wave-fit-unseen.log`, 67): 1.064x, the
///   28 under 1.2 the share 0.95-1.06x, the 39 over 1.025-1.28x (1.112x);
/// - with it, unseen seeds 20261301-40 (`short-row-wave-fit-unseen2.log`, 47): 1.116x, lowest
///   1.012; the 38 of inputs over twice L2 (not rotated, so not warmed by mepi-bench's
///   --against before 059ef38) 1.129x, lowest 1.046. Those runs broke the ties of equal
///   waves x width by rounding (5 took 128, not 192); 192 was measured on their neighbours;
/// - single pass of sweep 20261201 (each kernel alone): 64 x 34432 x 3136 fp16 0.786 -> 0.974
///   of cuBLASLt.
KernelConfigAttr shortRowWaveFit(MatmulOp op, const TargetInfo &target, bool tma,
                                 KernelConfigAttr chosen) {
  constexpr int64_t kMinKSteps = 16, kMaxStages = 8;
  constexpr std::pair<int64_t, int64_t> kShareGain = {6, 5};
  Sm90Problem p = Sm90Problem::of(op);
  if (!plainCooperative(chosen) || p.batch != 1 || p.m > sm90::kSliceRows ||
      chosen.getTileM() != sm90::kSliceRows || chosen.getScheduler().getSplits() != 1 ||
      llvm::divideCeil(p.k, p.atom().lineElements()) < kMinKSteps || op.getASums() ||
      op.getBSums() || !op.getReductions().empty() ||
      tileCount(p, chosen.getTileM(), chosen.getTileN()) <= target.multiprocessors)
    return chosen;
  // One row of tiles: a width's share of its waves inside D is N / (waves x width x SMs), so
  // the columns its waves compute, in whole numbers, order the widths (and ties go wider).
  auto columns = [&](int64_t width) {
    return llvm::divideCeil(llvm::divideCeil(p.n, width), target.multiprocessors) * width;
  };
  int64_t best = 0;
  for (int64_t width : {256, 224, 192, 160, 128, 96})
    if (!best || columns(width) < columns(best))
      best = width;
  // At least kShareGain (6 / 5) the chosen width's share: 64 x 40960 x 1024's 256 tiles of
  // 160 against 320 of 128 are exactly that.
  if (kShareGain.second * columns(chosen.getTileN()) < kShareGain.first * columns(best))
    return chosen;
  KernelConfigAttr fitted = wgmmaTile(op, p, sm90::kSliceRows, best, tma);
  fitted = fitted ? withFittingStages(p, target, fitted.withStages(kMaxStages)) : fitted;
  KernelConfigAttr built = ifBuildable(p, target, fitted);
  return built ? built : chosen;
}

/// One wave of 128 x 64 tiles over at most 100 k-steps, not of an expanded epilog, takes 64 x 128
/// of one consumer (8 stages, with TMA stores) where its columns cover no more of N than 64's
/// (then its tiles are no more than 128 x 64's, so they fit the wave too): the same wave, but
/// each k-step's wgmma is 64 x 128 (B read once for 128 columns, not twice for 64) and D leaves
/// through TMA. Over a long
/// K two consumers hide latency better (1664 x 448 x 9472 GELU_BIAS 0.70x); where 128's last
/// column tile lies half outside D (N of 192, 320) it lost up to 21 %. H200, 2026-12-01,
/// config_ab.py forced old/new, bf16 (`wide-one-wave-ab.log`): fitted on seeds 20261801-08 and
/// the sweeps; unseen seeds 20261901-40 DEFAULT 1.065x over 71, lowest 0.998; GELU_BIAS's class
/// 1.042x over 82, lowest 0.991. So only where measured: a 16-bit D through TMA stores, no
/// operand sums or reductions.
KernelConfigAttr wideOneWave(MatmulOp op, const TargetInfo &target, bool tma,
                             KernelConfigAttr chosen) {
  constexpr int64_t kMaxKSteps = 100, kNarrow = 64, kWide = 128, kStages = 8, kDBits = 16;
  Sm90Problem p = Sm90Problem::of(op);
  if (!plainCooperative(chosen) || chosen.getTileM() != kWide || chosen.getTileN() != kNarrow ||
      !chosen.getScheduler().isDataParallel() || epilogCost(op) == EpilogCost::Expanded ||
      op.getASums() || op.getBSums() || !op.getReductions().empty() ||
      op.getD().getType().getElementTypeBitWidth() != kDBits ||
      !canUseTmaStores(op, tma, kWide) ||
      llvm::alignTo(p.n, kWide) != llvm::alignTo(p.n, kNarrow))
    return chosen;
  int64_t kSteps = llvm::divideCeil(p.k, p.atom().lineElements());
  if (kSteps > kMaxKSteps || tileCount(p, kWide, kNarrow) > target.multiprocessors)
    return chosen;
  KernelConfigAttr wide = wgmmaTile(op, p, kNarrow, kWide, tma, kStages);
  if (!wide)
    return chosen;
  wide = withFittingStages(p, target, wide.withStore(DStore::Tma));
  KernelConfigAttr built = ifBuildable(p, target, wide);
  return built ? built : chosen;
}

} // namespace mlir::mepi::rules
