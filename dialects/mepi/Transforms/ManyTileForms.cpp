// The wgmma heuristic's forms for problems of many tiles (WgmmaHeuristic::manyTileForm): ping-pong,
// the wide tiles and their narrower fits.
#include "WgmmaHeuristic.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {

/// Problems of at least two 128 x 128 tiles per multiprocessor with K <= 4096 whose D goes through
/// TMA stores, unforced (not with operand sums, which ping-pong cannot compute). Ping-pong runs one
/// consumer's epilog under the other's main loop (pingpongForm): batched problems take it first,
/// then the short-K 64 x 256 ping-pong below, then 128 x 160 where it fits D's columns
/// (narrowLineFit), then ping-pong 128 x 128 for epilogs of special ops. Otherwise the wide
/// forms (wideForm: 256 x 128 tiles of two consumers of two 64-row slices, or the shapes below
/// where those waste rows or waves), which cheap epilogs of 7-16 k-steps (4-16 with 16 or more
/// 128 x 128 tiles per multiprocessor) trade for ping-pong 128 x 128 (shortCheapPingpong).
///
/// Above K = 4096 ping-pong loses: its 4 stages cannot hide the loads of long main loops. On
/// the H200 (2026-11-23, bf16 GELU_BIAS, against 128 x 256 in clusters with TMA stores): 8192^3
/// 735 against 738 TFLOP/s, 16384 x 8192 x 8192 675 / 682, and the sweep's problems
/// 15296 x 45248 x 4352 448 / 643, 7424 x 14272 x 12352 456 / 770, 4224 x 19968 x 11968
/// 457 / 658, 40960 x 1920 x 47488 443 / 715 (bench/NOTES.md).
///
/// The seeded sweeps' autotune data (seed 20261123 on the H200, 20261124 on the H100; each
/// candidate timed) corrected the first three of these rules (bench/NOTES.md, "The rules
/// against autotune"); the fourth was fitted on seeds 20261201-10 (narrowPingpong):
/// - Short K with TMA stores (at most 12 k-steps for an epilog of special ops, Approximate or
///   Expanded, 6 for an Arithmetic one): 64 x 256 ping-pong, 4 stages (192 or 160 columns where
///   that takes fewer waves; for an Arithmetic epilog where 128-row tiles cover no more rows
///   than 64-row ones ping-pong 128 x 128 instead of 64 x 256: shortKPingpong). A tile has so
///   few k-steps that its epilog weighs as much as its main loop, and the 64-row ping-pong hides
///   one consumer's epilog under the other's main loop with the widest tile. Of the 23 problems
///   of both seeds that it took with 12 k-steps for both, it was the fastest candidate on 13 (the
///   rules' choice before on none); but the batched 64 x 512^3 (8 k-steps) DEFAULT ran 406
///   against 426 TFLOP/s on 256 x 128 (GELU_BIAS 395 against 363; H100). Not for cheap
///   epilogs with 16 or more 128 x 128 tiles per multiprocessor (9216 x 11648 x 192: 1.09 of the
///   fastest against 1.04 for 256 x 128, H100; 1.07x faster on the H200 in 2026-12, but at 3
///   k-steps the form did not gain in general; at 4-6 those take ping-pong 128 x 128:
///   shortCheapPingpong), nor for N <= 128, whose 256-column tiles would compute half outside D.
///   With the seven-instruction GELU it still gains (H100, 2026-11-26, GELU_BIAS against 256 x
///   128: 1344 x 18944 x 768 0.988 of cuBLASLt against 0.867, 13248 x 2048 x 640 1.198 against
///   0.986, 13696 x 10816 x 128 0.948 against 0.836; 64608 x 2048 x 768 lost, 550 against 619
///   TFLOP/s on 128 x 256).
/// - 256 x 128 where 256-row tiles add a quarter or more of rows outside D to what 128-row tiles
///   compute: 128 x 256 (320 x 54592 x 3904: 2.30 times the fastest against 1.00). Otherwise
///   128 x 192 where its waves fall at least as much inside D as 256 x 128's
///   (narrowerThan256x128).
/// - A D of at most 256 columns instead of 256 x 128: ping-pong 64 x 128 or 128 x 128
///   (narrowPingpong).
/// - Without TMA stores (D's rows not 16-byte aligned, or aux outputs) no ping-pong 128 x 128
///   with staged D: the wide tile in clusters of 2 below (both seeds: 1.23 and 1.20 times the
///   fastest against 1.07 and 1.07, in geomean over 24 and 16 problems). Null where no rule
///   applies.
KernelConfigAttr WgmmaHeuristic::manyTileChoice(bool huge) const {
  constexpr int64_t kShortKStepsCostly = 12, kShortKStepsCheap = 6;
  bool unforced =
      !pingpong && !forced() && !huge && tma && p.m > 128 && !op.getASums() && !op.getBSums();
  if (!unforced || p.k > 4096)
    return {};
  int64_t tiles128 = tileCount(128, 128);
  if (tiles128 < 2 * target.multiprocessors)
    return {};
  EpilogCost cost = epilogCost(op);
  bool special = cost != EpilogCost::Arithmetic;
  if (!canUseTmaStores(op, tma, 128))
    return special ? stagedPingpongForm() : KernelConfigAttr();
  bool manyPerWalker = tiles128 >= 16 * target.multiprocessors;
  if (p.batch > 1)
    if (KernelConfigAttr form = pingpongForm(special))
      return form;
  int64_t shortKSteps = special ? kShortKStepsCostly : kShortKStepsCheap;
  int64_t kSteps = llvm::divideCeil(p.k, line);
  if (kSteps <= shortKSteps && p.n > 128 && (special || !manyPerWalker))
    if (KernelConfigAttr shortK = shortKPingpong(op, target, tma))
      return shortK;
  if (KernelConfigAttr fitted = narrowLineFit(op, target, tma))
    return fitted;
  if (special && p.batch == 1) // batched problems asked above
    if (KernelConfigAttr form = pingpongForm(special))
      return form;
  KernelConfigAttr wide = wideForm();
  if (KernelConfigAttr cheap = !special ? shortCheapPingpong(wide) : KernelConfigAttr())
    return cheap;
  return wide;
}

/// The many-tile rules' choice (manyTileChoice), then for a batch whose elements end in a
/// partial tile row the 64-row ping-pong where that fills the waves much more (batchRowFit).
KernelConfigAttr WgmmaHeuristic::manyTileForm(bool huge) const {
  return batchRowFit(manyTileChoice(huge));
}

/// Batched problems of more than 10 k-steps whose elements leave an eighth or more of 128-row
/// tiles' rows outside D (192, 320, 448 rows): ping-pong 64 x 256, 4 stages, TMA stores, where
/// its waves fall at least 1.2 times as much inside D as `chosen`'s (predictedShare). The
/// 64-row tiles compute no rows outside D there, and the batch gives them tiles enough. Forced
/// against the rules' 128-row tiles on the 31 problem-epilogs of seeds 20261201-10 whose
/// elements leave 6 % or more of 128-row tiles outside D (H200, 2026-12-01,
/// `batched-64rows-forms.log`): at 1.2x the share or more 1.03-1.24x (117 x 192 x 3776 x 1536
/// 0.75 -> 0.92 of cuBLASLt, 59 x 320 x 960 x 1344 1.17x, 13 x 448 x 3264 x 1984 1.10x), below
/// it 0.76-1.05x (26 x 576 x 1088 x 3008 0.76x at an equal share: per FLOP the 64-row tiles run
/// slower); at 3 k-steps (99 x 192 x 2944 x 192) 0.96x. On unseen seeds 20261211-60 (H200, the
/// same day, `batch-rows-unseen.log`, config_ab.py) the 28 problem-epilogs it took from 8
/// k-steps ran 1.086x, but those of 8-10 k-steps 0.93-1.07x (113 x 320 x 512 x 640 DEFAULT
/// 0.93x: ping-pong 128 x 128 already hides the epilog there), hence more than 10; the 22 left
/// 1.112x, lowest 0.999 (19 x 192 x 3648 x 2048 0.73 -> 0.90 of cuBLASLt). Null where it does
/// not apply.
KernelConfigAttr WgmmaHeuristic::batchRowFit(KernelConfigAttr chosen) const {
  constexpr int64_t kMinKSteps = 11, kStages = 4;
  constexpr double kMinShareGain = 1.2;
  // An eighth or more of 128-row tiles' rows outside D: 448-row elements (1/8) gained 1.04-1.10x,
  // 704 (1/12) lost 0.94x, 576 (1/10) 0.76x.
  int64_t rows128 = llvm::divideCeil(p.m, int64_t(128)) * 128;
  if (!chosen || p.batch == 1 || chosen.getTileM() < 128 || chosen.getSwapped() ||
      llvm::divideCeil(p.k, line) < kMinKSteps || 7 * rows128 < 8 * p.m ||
      !sectorAlignedRows(op) || !canUseTmaStores(op, tma, 256))
    return chosen;
  KernelConfigAttr rows = tile(64, 256, kStages);
  rows = rows ? rows.withPingpong(true).withStore(DStore::Tma) : rows;
  if (!buildable(p, target, rows) ||
      predictedShare(p, target, rows) < kMinShareGain * predictedShare(p, target, chosen))
    return chosen;
  return rows;
}

/// The forms of two consumers over a wide tile, where no ping-pong form took the problem
/// (manyTileForm).
KernelConfigAttr WgmmaHeuristic::wideForm() const {
  // Batched, rows of A or B off L2's sectors: 128 x 256 in clusters of 2, whose B multicast
  // halves B's L2 requests (TMA reads such rows with ~4x the requests). Against the rules
  // before (256 x 128 or 128 x 192; H200, 2026-11-30, `rules-ab.log`, A B B A) on eight such
  // shapes, the 11 problems it changed ran 1.19x in geomean, from 1.08x (7 x 1000^3 GELU_BIAS)
  // to 1.35x (3 x 4000 x 1000 x 2040: 0.73 -> 0.99 of cuBLASLt). 16-bit operands: TF32's not
  // measured.
  if (p.batch > 1 && p.elementBytes == 2 && !sectorAlignedRows(op)) {
    KernelConfigAttr paired = tile(128, 256, /*stages=*/4).withCluster(2).withStore(DStore::Tma);
    if (buildable(p, target, paired))
      return paired;
  }
  // 128 x 256 where 256-row tiles waste rows, or (batched, rows on L2's sectors) where its
  // waves fall at least as much inside D: batched bf16 DEFAULT of 32-64 k-steps ran it 1.0-1.5 %
  // faster than 256 x 128 on four shapes of equal waves (H200, 2026-11-29,
  // `batched-long-k.log`: 8 x 2048^3 1.000 against 0.986 of cuBLASLt, 4 x 2048^2 x 4096 1.006
  // against 0.991).
  if (4 * llvm::divideCeil(p.m, 256) * 256 >= 5 * llvm::divideCeil(p.m, 128) * 128 ||
      (p.batch > 1 && sectorAlignedRows(op) && waveShare(128, 256, 1) >= waveShare(256, 128, 1)))
    return tile(128, 256, /*stages=*/4).withStore(DStore::Tma);
  if (KernelConfigAttr narrower = narrowerThan256x128())
    return narrower;
  if (KernelConfigAttr narrow = narrowPingpong(op, target, tma))
    return narrow;
  return tile(256, 128, /*stages=*/4).withStore(DStore::Tma);
}

/// Unbatched cheap (Arithmetic) epilogs of 4-16 k-steps (8-16 for operands other than 16-bit,
/// where the shorter ones were not measured) over D of more than 384 columns:
/// ping-pong 128 x 128 (pingpongForm) where its waves fall at least 0.97 times as much inside D
/// as those of `wide`, the form the rules would take instead (predictedShare). A tile of
/// so few k-steps spends much of its time in the epilog, which ping-pong runs under the other
/// consumer's main loop. (At 4-6 k-steps only problems of 16 or more 128 x 128 tiles per
/// multiprocessor get here; shortKPingpong takes the others.) Against the rules before (256 x
/// 128 or 128 x 192), H200, bf16 DEFAULT:
/// - 8-16 k-steps (2026-12-01, `pp-short-k-ab.log`, config_ab.py, interleaved; the 54
///   problem-epilogs of seeds 20261123-24 and 20261201-12 and four shapes of 16 k-steps): 1.091x
///   in geomean, 48 faster by more than 3 % (to 1.33x, 12416 x 512 x 896), 16384 x 1024 x 1024
///   1.065x, 4096^2 x 1024 1.063x, 33984 x 20160 x 640 1.17x at a share 0.997 of 128 x 192's;
///   lost where 128 x 192 fills the waves much more (31872 x 1728 x 960 0.89x at 0.944 of its
///   share, 56512 x 192 x 640 0.77x at 0.86) and at equal shares on 320 columns (20992 x 320 x
///   576 0.88x, whose third tile column is half outside D; narrowPingpong takes D of at most 256
///   columns). 15616 x 1856 x 960 moved 0.98x.
/// - 4-6 k-steps, 16+ tiles per multiprocessor (2026-12-02, forms.py,
///   `many-short-pingpong-forms.log`, seeds 20261123-24 and 20261201-60): the 26 it takes 1.21x,
///   lowest 1.072 (6464 x 11520 x 256 1.47x). On unseen seeds 20261261-300 (config_ab.py,
///   `many-short-pingpong-ab.log`) the 56 it takes and the sweeps' 2432 x 59136 x 320: 1.16x,
///   lowest 1.071. At 3 k-steps ping-pong did not gain in general (64 x 256 ping-pong 1.012x over
///   24 unseen, 0.93-0.96x on five of the seven past N = 30000), at 1-2 neither (0.98-1.03x).
/// - 7 k-steps (2026-12-02, forms.py, `short-cheap-pingpong-k7-forms.log`): predicted to gain as
///   4-6 and 8-16 do, then forced on 51 DEFAULT problems of K = 448 of the same seeds: ping-pong
///   128 x 128 1.128x over 51; the 39 this rule takes 1.147x, lowest 1.044.
KernelConfigAttr WgmmaHeuristic::shortCheapPingpong(KernelConfigAttr wide) const {
  // 4-7 k-steps were measured on 16-bit operands only.
  constexpr int64_t kMinKSteps = 4, kMinKStepsOther = 8, kMaxKSteps = 16, kMinColumns = 385;
  // Ping-pong gained 5-17 % where its waves filled within 1.3 % of wide's; the losses filled
  // 5.9 % less or more.
  constexpr double kMinShareRatio = 0.97;
  int64_t kSteps = llvm::divideCeil(p.k, line);
  int64_t minKSteps = p.elementBytes == 2 ? kMinKSteps : kMinKStepsOther;
  if (p.batch != 1 || kSteps < minKSteps || kSteps > kMaxKSteps || p.n < kMinColumns || !wide ||
      wide.getMainloop().getPingpong())
    return {};
  KernelConfigAttr form = pingpongForm(/*special=*/false);
  if (!form || predictedShare(p, target, form) < kMinShareRatio * predictedShare(p, target, wide))
    return {};
  return form;
}

/// Without TMA stores, ping-pong 128 x 128 with 4 stages and D staged for an unbatched epilog of
/// special ops that reads a matrix input per element (DGELU_BGRAD's gelu_aux): one consumer's
/// loads and sigmoid run under the other's main loop. On the H200 (2026-12-01, `catalog.json`
/// against 2026-11-22's run, which took this form; fp16 DGELU_BGRAD, of cuBLASLt): 4096^3 1.06
/// on 128 x 256 in clusters against 1.22, llm-up 0.91 against 1.27, m16384-up 0.88 against 1.10.
/// Epilogs without such an input keep the wide tile in clusters (manyTileForm): RELU_AUX_BIAS,
/// GELU_AUX_BIAS and DRELU_BGRAD ran 1.00-1.13x faster there than on this form.
KernelConfigAttr WgmmaHeuristic::stagedPingpongForm() const {
  constexpr int64_t kStages = 4;
  bool matrixInput = llvm::any_of(llvm::seq<unsigned>(0, op.getEpilogInputs().size()),
                                  [&](unsigned i) {
                                    return op.getInputKind(i) == BroadcastKind::Matrix;
                                  });
  if (p.batch != 1 || !matrixInput)
    return {};
  KernelConfigAttr config =
      tile(128, 128, kStages).withPingpong(true).withStore(DStore::Staged);
  return buildable(p, target, config) ? config : KernelConfigAttr();
}

/// Ping-pong 128 x 128 with TMA stores and the most stages that fit (6, else 5 or 4), where A's and
/// B's rows start on L2 sectors and its waves fall at least as much inside D as 256 x 128's; for
/// batched problems of 8 k-steps or more (from 32 with an Arithmetic epilog only where its waves
/// fall more inside D than 128 x 256's: 8 x 1536^2 x 2048 1.01 of cuBLASLt against 0.91, while 128
/// x 256 ran four shapes of equal waves 0.2-3.5 % faster than it, `batched-long-k.log`), and for
/// unbatched ones whose epilog has special ops. Its epilog runs under the other consumer's main
/// loop, which outweighs 128 x 128's extra operand traffic where the epilog is a large part of a
/// tile: short K, or special ops. Against the rules before (256 x 128, 128 x 192 or the short-K 64
/// x 256; H200, 2026-11-29, bench/NOTES.md "Ping-pong"): the batched set's 40 changed problems
/// 1.047x faster (every one within 0.3 % or faster: 16 x 1024^3 GELU_BIAS 1.12x, 64 x 512^3 DEFAULT
/// 1.08x, 8 x 2048^3 DEFAULT 1.005x), the sweep's GELU_BIAS rows 512 x 46848 x 896 1.17x, 81 x 3584
/// x 1408 x 1920 1.12x, 24 x 2304 x 448 x 896 1.08x, the dense set's GELU rows within noise
/// (0.94-1.06x, geomean 0.996). At 3 and 4 k-steps the 64 x 256 ping-pong stayed faster (12 x 2368
/// x 3136 x 256: 0.968x), and so did 256 x 128 for 7 x 1000^3 (rows off L2's sectors: 0.69 against
/// 0.92 of cuBLASLt). Six stages ran 0-6 % faster than four here (the 3, 5, 6 below 4 of 2026-11-23
/// predate TMA stores).
KernelConfigAttr WgmmaHeuristic::pingpongForm(bool special) const {
  constexpr int64_t kMinKSteps = 8, kCheapKSteps = 32;
  int64_t kSteps = llvm::divideCeil(p.k, line);
  double share = waveShare(128, 128, 1);
  if (p.n <= 128 || !sectorAlignedRows(op) || share < waveShare(256, 128, 1))
    return {};
  bool longCheap = !special && kSteps >= kCheapKSteps;
  if (p.batch > 1 && (kSteps < kMinKSteps || (longCheap && share <= waveShare(128, 256, 1))))
    return {};
  return pingpongTmaStored(op, p, target, tma, 128, 128);
}

/// Instead of 256 x 128 tiles, 128 x 192 (the same two consumers, three quarters of the area)
/// where its waves fall at least as much inside D (waveShare, ties included). Forced on every
/// aligned problem of both seeded sweeps (H100, 2026-11-27; bench/NOTES.md), of the 30
/// the rules gave 256 x 128 the comparison named the faster of the two on all 21 that differed
/// by more than 3 %: 38 x 1664 x 2816 x 192 1.16x, 43 x 896 x 512 x 576 1.10x, 8 x 1216 x 384
/// x 3456 0.73x (160 tiles of 192 in two waves against 120 of 256 in one), 68 x 1664 x 256 x
/// 2624 0.73x; equal shares went to 128 x 192 by 0-18 % (8 x 832 x 1472 x 4032 GELU_BIAS 1.18x,
/// 192 x 46656 x 1408 1.11x), and the other nine moved within 3 % either way.
KernelConfigAttr WgmmaHeuristic::narrowerThan256x128() const {
  constexpr int64_t kWidth = 192;
  if (!canUseTmaStores(op, tma, kWidth) ||
      waveShare(128, kWidth, 1) < waveShare(256, 128, 1))
    return {};
  KernelConfigAttr config = tile(128, kWidth, /*stages=*/4).withStore(DStore::Tma);
  return buildable(p, target, config) ? config : KernelConfigAttr();
}

} // namespace mlir::mepi::rules
