// The FP8 ranking (RankCandidates.h): 8-bit A and B take their tile shapes ranked by a unit's
// time over the shape's measured speed, with clusters, K splits, stream-K and, for short M, the
// swapped form and 64 x 64 first.
#include "KernelRules.h"
#include "RankCandidates.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::rules;

namespace {
/// Waves of `config`'s tiles where stream-K pays for them: W + 1 / pieces + kPieceCost for W
/// whole waves (one or more) and a last wave whose units the walk cuts into pieces of their own
/// (Sm90Spec::streamKPieces: a device-sized target, no clusters), taken where that is 3 %
/// below the W + 1 waves of whole units. The pieces' records and sums cost about a third of a
/// unit, fitted on six FP8 shapes (H100, 2026-11-26, tensor-wise 128 x 192, of cuBLASLt,
/// stream-K against whole units in one call, bench/NOTES.md): 4096^2 x 7168 (W = 5, 3 pieces)
/// 0.935 / 0.909, 4096^3 (5, 2) 0.937 / 0.918, 2048 x 5120 x 5120 (3, 2) 0.882 / 0.848,
/// 4096 x 7168 x 16384 (9, 4) 0.975 / 0.932, 2048 x 5120 x 7168 (3, 3) 0.929 / 0.854, 1920 x
/// 4224 x 7168 (2, 2) 1.233 / 1.152. Block-scaled 4096^3 lost (1080 against 1143 TFLOP/s),
/// and so did row-wise 4096 x 4112 x 4128 (1107 against 1136): both W = 5 in two pieces, a
/// predicted 2.6 %, which the 3 % leaves in whole units. Where the units have too few k-steps
/// for two pieces (4096^2 x 3584, 28) the walk's crossing ranges lost (0.870 / 0.927).
/// One whole wave since the pieces' fixed finisher (H200, 2026-11-29, the only one of the 103
/// FP8 shapes of the set and both sweeps it changes, `fp8-one-wave-stream-k.log`): 6016 x 736 x
/// 4544 (W = 1, 56 units in 2 pieces) tensor-wise 971 -> 1046 TFLOP/s, row-wise 949 -> 1022,
/// block-scaled 837 -> 947.
std::optional<double> streamKWaves(const Sm90Problem &p, const TargetInfo &target,
                                   KernelConfigAttr config) {
  constexpr double kPieceCost = 0.35, kRequiredGain = 1.03;
  constexpr int64_t kMinWholeWaves = 1;
  KernelConfigAttr streamK = config ? config.withStreamk(true) : KernelConfigAttr();
  if (!streamK)
    return std::nullopt;
  Sm90Spec spec(p, streamK, target);
  int64_t pieces = spec.canImplement() ? spec.streamKPieces() : 0;
  if (!pieces)
    return std::nullopt;
  int64_t whole = spec.workUnits() / *spec.fixedStreamKWalkers();
  double waves = double(whole) + 1.0 / double(pieces) + kPieceCost;
  if (whole < kMinWholeWaves || kRequiredGain * waves > double(whole + 1))
    return std::nullopt;
  return waves;
}

/// K splits for `tiles` FP8 tiles (waveSplits: where they leave half of the SMs idle, as many
/// as one wave holds) and their time in k-steps of one unit, whole waves counted. Why: idle
/// multiprocessors in a partial wave cost as much as busy ones, and a split writes and later
/// sums an f32 record of its tile (kSplitCost k-steps, a few microseconds, fitted on promoted
/// kernels so that splits of ~11 k-steps lose). Ranking by this time rather than by waves of
/// whole tiles puts 128 x 192 split over 128 x 64 whole on long-K problems under a wave.
/// Splits stay within one wave: over more, the units of a wave no longer share their operands
/// in L2 (bench/NOTES.md, FP8: the ranking).
std::pair<int64_t, double> fp8Splits(const Sm90Problem &p, const TargetInfo &target,
                                     int64_t tiles) {
  constexpr double kSplitCost = 12;
  int64_t splits = waveSplits(p, target, tiles);
  double kSteps = double(llvm::divideCeil(p.k, p.atom().lineElements()));
  double waves =
      double(llvm::divideCeil(tiles * splits, std::max<int64_t>(target.multiprocessors, 1)));
  return {splits, waves * (kSteps / double(splits) + (splits > 1 ? kSplitCost : 0))};
}

/// An FP8 tile shape and its speed per FLOP relative to 128 x 128 under the problem's
/// accumulation policy, with its configuration and its time once ranked (rankFp8Configs).
struct Fp8Shape {
  int64_t m, n;
  double speed;
  KernelConfigAttr config = {};
  std::optional<double> streamKWaves = std::nullopt;
  double steps = 0; // a unit's k-steps times the waves (fp8Splits), or stream-K's
};

/// Block-scaled 64 x 128 (one consumer, TMA stores, alone) beats 128 x 64 from 4 k-steps on:
/// 128 x 64's two consumers each scale a 64 x 64 slice a k-step, twice the scale loads and
/// multiplies per FLOP of one 64 x 128. H200, 2026-11-29, one call (`fp8-one-wave.log`): 64 x
/// 128 ran 128 x 8192 x 8192 at 660 TFLOP/s against 624, 640 x 1408 x 3584 497 / 452, 320 x
/// 1536 x 2816 249 / 226, 128 x 4288 x 1536 200 / 189, 128 x 1600 x 1152 69 / 60; the problems
/// of 2-3 k-steps (864 x 992 x 256, 2304 x 320 x 384) ran 1-4 % slower on it. In clusters of 2
/// it lost to 128 x 64 (`fp8-block64.log`: 320 x 1536 x 2816 147 TFLOP/s against 226, 128 x
/// 1600 x 1152 57 / 64), so it goes alone first (fp8ClusterFirst).
bool blockScaledNarrowFits(const Sm90Problem &p) {
  constexpr int64_t kMinKSteps = 4;
  return p.blockScales && llvm::divideCeil(p.k, p.atom().lineElements()) >= kMinKSteps;
}

/// Block-scaled 64-row tiles store D through TMA where at least half their rows hold D: 64 x
/// 3584 x 832 59 TFLOP/s against 51 staged, 64 x 42880 x 384 230 / 206, 48 x 640 x 6064 32 / 31,
/// but at 16 rows 6-7 % slower (16 x 44528 x 1840, 16 x 10880 x 512), where the TMA path
/// writes all 64 rows to its buffer (H200, 2026-11-29, `fp8-block64.log`).
bool blockScaledNarrowStores(const Sm90Problem &p) {
  return p.blockScales && p.m >= sm90::kSliceRows / 2;
}

/// The tile shapes 8-bit A and B can take and their speeds per FLOP (fitted on the H200, e4m3,
/// bf16 D, tensor-wise scales; bench/NOTES.md, FP8: the ranking).
/// - Promoted (no fast_accumulation; promoted kernels loaded as whole programs): the second
///   accumulator set leaves room for one 64 x 192 slice per consumer, or for one of the two
///   slices of 256 x 128 (promoted by slice). 128 x 192 1.25 (1.19 at 8192^3, 1.37 at 848 x
///   11984 x 6112), 256 x 128 1.17 tensor- and row-wise, 1.29 block-scaled (8192^3 against
///   128 x 192 in one run: its scales staged, where 128 x 192 loads them from global memory),
///   with TMA stores only (the staged epilog beside block scales spills), 128 x 64 0.85, 64 x
///   128 0.65 (block-scaled 0.9), 64 x 64 0.3 (decode shapes ran slower on it than on 64 x
///   128). A tile of one consumer leaves the tensor cores idle while it adds a block's sums
///   into the second set; two consumers take turns, so 128 x 64 beats 64 x 128 of the same
///   area (H100: 384 x 1680 x 10464 0.947 of cuBLASLt against 0.711, 128 x 8192 x 8192 1.009
///   against 0.954). Block-scaled, the other way (blockScaledNarrowFits).
/// - Fast accumulation: each shape forced on four large problems, the speed over the share of
///   the last wave filled (2026-11-28; bench/NOTES.md, FP8): 128 x 256 1.14, 256 x 128 1.13,
///   128 x 192 1.12, 64 x 128 0.81 (in clusters; alone 0.70), 128 x 64 0.65, 64 x 64 0.59 (0.45
///   here: at 16 x 8192 x 8192 it ran 0.72 of cuBLASLt against 0.89 on 64 x 128 split in 2).
///   8-bit tiles read more shared memory per FLOP than 16-bit ones, so the narrow and the
///   64-row tiles lose more than the 16-bit rules assume.
/// Problems of at most 64 rows take 64-row tiles only (a 128-row tile's second consumer would
/// multiply nothing: 16 x 8192 x 8192 0.76 on 128 x 64 against 0.97 on 64 x 128).
SmallVector<Fp8Shape> fp8Shapes(const Sm90Problem &p) {
  SmallVector<Fp8Shape> shapes;
  if (p.promotesSums)
    shapes = {{128, 128, 1.0}, {128, 192, 1.25}, {256, 128, p.blockScales ? 1.29 : 1.17},
              {64, 128, blockScaledNarrowFits(p) ? 0.9 : 0.65}, {128, 64, 0.85}, {64, 64, 0.3}};
  else
    shapes = {{128, 128, 1.0}, {128, 192, 1.12}, {128, 256, 1.14}, {256, 128, 1.13},
              {64, 128, 0.81}, {128, 64, 0.65}, {64, 64, 0.45}};
  if (!p.grouped() && p.m <= 64)
    llvm::erase_if(shapes, [](const Fp8Shape &s) { return s.m > 64; });
  return shapes;
}

/// Fast accumulation on more than 64 rows takes 64 x 128 only for units of 32 k-steps or more
/// (unsplit): on shorter ones it ran slower than 128 x 64 or 64 x 64 (H200, 2026-11-28: 6352 x
/// 112 x 464 0.93 of cuBLASLt against 1.11 on 128 x 64, 256 x 192 x 15040 split in 14 0.65
/// against 0.92 on 64 x 64 in 8, 256 x 1296 x 4496 in 3 0.82 against 0.89), on longer ones
/// faster (128 x 8192 x 8192: 1.015 against 0.96 on 128 x 128 split in 2).
bool fastNarrowTileFits(const Sm90Problem &p, const Fp8Shape &s, int64_t splits,
                        int64_t kSteps) {
  constexpr int64_t kMinUnitKSteps = 32;
  bool narrow = s.m == 64 && s.n == 128;
  return p.promotesSums || p.grouped() || !narrow || p.m <= 64 ||
         (splits == 1 && kSteps >= kMinUnitKSteps);
}

/// Whether FP8 tile `s` goes in clusters of 2 (B multicast) before alone. Promoted 128 x 128
/// and 64 x 128 tiles went faster in clusters, 128 x 192 and 128 x 64 alone (or B's tile too
/// small to share). With fast accumulation 64 x 128 and 128 x 256 go in clusters first where
/// the tiles take more than a wave: there 64 x 128 ran 1.10 against 0.95 PFLOP/s and 128 x 256
/// 1-2 % faster (28096 x 9232 x 1424: 0.92 of cuBLASLt against 0.81), in one wave slower (944 x
/// 3888 x 1920: 0.93 against 1.00; 6352 x 112 x 464 on 64 x 128: 0.79 against 0.94 on 128 x
/// 64); 128 x 192 ran slower in clusters (3968^2 x 6144: 1278 against 1486 TFLOP/s). Any shape
/// goes in clusters first where rows of A or B start off L2's sectors and the tiles take more
/// than one wave (15984 x 12128 x 10544: 1.14 of cuBLASLt in clusters against 0.81 alone; one
/// wave, 544 x 3776 x 2064: 0.73 against 0.77). Otherwise not where pairing the tile rows adds
/// a wave: with an odd count of tile rows the clusters hold an empty tile per column (fast
/// 1920 x 4224 x 7168 on 128 x 256: 272 blocks, three waves, 0.70 of cuBLASLt).
bool fp8ClusterFirst(const Sm90Problem &p, const TargetInfo &target, const Fp8Shape &s,
                     int64_t tiles, bool alignedRows) {
  int64_t sms = std::max<int64_t>(target.multiprocessors, 1);
  if (!alignedRows && tiles > sms)
    return true;
  int64_t rows = llvm::divideCeil(p.m, s.m);
  int64_t paired = p.batch * (rows + rows % 2) * llvm::divideCeil(p.n, s.n);
  if (llvm::divideCeil(paired, sms) > llvm::divideCeil(tiles, sms))
    return false;
  if (p.promotesSums)
    return s.m <= 128 && s.n == 128 && !(p.blockScales && s.m == 64);
  return tiles > sms && (s.n == 256 || (s.m == 64 && s.n == 128));
}

/// `s`'s whole units in clusters sharing both operands (multicast = ab: 2 tile rows by 4
/// columns of tiles up to 64 wide, else by 2), for autotune only: where the tiles fit one wave,
/// tensor-wise, row-wise or fast. They won where narrow tiles filled a wave (H200, 2026-11-30,
/// 656 x 1184 x 2224 tensor-wise, 128 x 64 in clusters of 8 1.19x the tile alone) and lost
/// 4-14 % on 11 other one-wave problems as a rule (bench/NOTES.md, Clusters), so autotune's
/// timing decides, after every other candidate (for the two fastest shapes).
KernelConfigAttr fp8SharedCluster(const Sm90Problem &p, const TargetInfo &target,
                                  const Fp8Shape &s) {
  if (!s.config || p.grouped() || p.batch != 1 || p.blockScales ||
      !s.config.getScheduler().isDataParallel() || s.config.getMainloop().getPingpong() ||
      Sm90Spec::promotesBySlice(s.config))
    return {};
  int64_t size = s.n <= 64 ? 8 : 4, rows = Sm90Spec::kClusterRowsAB, columns = size / rows;
  int64_t tilesM = llvm::divideCeil(p.m, s.m), tilesN = llvm::divideCeil(p.n, s.n);
  if (tilesM < rows || tilesN < columns || tilesM * tilesN > target.multiprocessors)
    return {};
  return s.config.withCluster(size, Multicast::AB);
}

/// Grouped problems (tiles unknown on the host) take 64 x 128 first where groups average at
/// most 64 rows (a 128-row tile would be mostly outside its group), else 128 x 192 where the
/// tiles of the mean group size give every multiprocessor one, else 128 x 128. On the H100
/// (mepi-bench --grouped --fp8, 2026-11-27, two rounds): 128 x 192 s4 ran the prefill set at
/// 0.744-0.755 of the dense FP8 matmul of the same FLOPs against 0.638-0.648 on 128 x 128
/// (mixtral-up 0.948-0.963 against 0.747-0.755, qwen3-up 0.802-0.806 against 0.695-0.698;
/// DeepSeek-V3 up, bound by its weights' bytes, 0.41 either way); on the decode shapes 64 x 128
/// with TMA stores (1-2 % faster than staged there) streamed the active experts' weights at
/// 0.995-1.000 of the copy bandwidth (dsv3-decode, 32 tokens), 1.015-1.016 and 0.927-0.930
/// (0-8 rows an expert) against 0.742, 1.000 and 0.900 on 128 x 128.
void orderGroupedFp8Shapes(SmallVector<Fp8Shape> &shapes, const Sm90Problem &p,
                           const TargetInfo &target) {
  auto at = [&](int64_t m, int64_t n) {
    return llvm::find_if(shapes, [&](const Fp8Shape &s) { return s.m == m && s.n == n; });
  };
  int64_t meanRows = std::max<int64_t>(1, p.m / p.groups);
  bool wide = p.groups * int64_t(llvm::divideCeil(meanRows, 128)) *
                  int64_t(llvm::divideCeil(p.n, 192)) >=
              target.multiprocessors;
  auto first = meanRows <= 64 ? at(64, 128) : wide ? at(128, 192) : at(128, 128);
  std::rotate(shapes.begin(), first, first + 1);
}

/// Problems of at most 64 rows without block scales stream B (N x K bytes) at a few FLOPs a
/// byte, so the form with the most units in a wave wins, not the one of most FLOPs a clock:
/// the swapped form (16 or 32 rows a tile: no padding rows of A) for at most 32 rows, else 64
/// x 64 (orderShortFp8Shapes). Against 64 x 128 (H200, 2026-11-30, `fp8-short-ab.log`: 38
/// short-M shapes of both FP8 sweeps and LLM decoding, two rounds): the swapped form 1.02-1.72x
/// tensor-wise on the 18 of at most 32 rows but 16 x 10880 x 512 (1.00; its width:
/// firstSwappedForm); row-wise and fast alike (one 0.94). Block scales keep 64 x 128 (their
/// staged scales: 1.32 of cuBLASLt on 16 rows).
bool streamsB(const Sm90Problem &p) {
  return !p.grouped() && !p.blockScales && p.m <= sm90::kSliceRows;
}
constexpr int64_t kSwappedFirstRows = 32;

/// 64 x 64 first (streamsB) where its units, split as ranked, fit one wave and are at least
/// as many as 64 x 128's: where they take more than a wave or fewer units than 64 x 128 split
/// further, it lost 4-15 % (64 x 13632 x 14528, 213 tiles: 0.86; 64 x 4416 x 26816, 69 units
/// against 105: 0.89).
void orderShortFp8Shapes(SmallVector<Fp8Shape> &shapes, const TargetInfo &target,
                         function_ref<int64_t(const Fp8Shape &)> tilesOf) {
  auto find = [&](int64_t n) {
    return llvm::find_if(shapes, [&](const Fp8Shape &s) { return s.m == 64 && s.n == n; });
  };
  auto units = [&](const Fp8Shape &s) {
    return tilesOf(s) * (s.config ? s.config.getScheduler().getSplits() : 1);
  };
  auto narrow = find(64), wide = find(128);
  if (narrow == shapes.end() || !narrow->config || units(*narrow) > target.multiprocessors ||
      (wide != shapes.end() && wide->config && units(*narrow) < units(*wide)))
    return;
  std::rotate(shapes.begin(), narrow, narrow + 1);
}

/// The swapped form (Dᵀ = B Aᵀ) for at most 64 rows: M is each wgmma's n side, so a block
/// reads no padding rows of A and streams 64 or 128 rows of B through up to 16 stages; split
/// along K where its tiles leave half of the SMs idle (waveSplits), D stored from the
/// registers or through TMA (withTmaStores; null where D cannot take them, which addCandidate
/// skips).
SmallVector<KernelConfigAttr> fp8SwappedForms(MatmulOp op, const Sm90Problem &p,
                                              const TargetInfo &target) {
  SmallVector<KernelConfigAttr> forms;
  if (p.m > sm90::kSliceRows || p.grouped() ||
      !canSwap(op, isTmaOperand(op.getA()) && isTmaOperand(op.getB())))
    return forms;
  for (int64_t tileN : {64, 128}) {
    KernelConfigAttr config = swappedConfig(op, p.m, tileN);
    int64_t tiles = llvm::divideCeil(p.m, config.getTileM()) * llvm::divideCeil(p.n, tileN);
    if (int64_t splits = waveSplits(p, target, tiles); splits > 1)
      config = config.withSplits(splits);
    forms.push_back(config);
    forms.push_back(withTmaStores(op, p, target, config));
  }
  return forms;
}

/// The swapped form ranked first: fp8SwappedForms' register form of swappedWidth's columns.
KernelConfigAttr firstSwappedForm(ArrayRef<KernelConfigAttr> forms, const Sm90Problem &p,
                                  const TargetInfo &target) {
  int64_t width = swappedWidth(p, target);
  for (KernelConfigAttr config : forms)
    if (config && config.getTileN() == width &&
        config.getEpilogue().getStore() != DStore::Tma)
      return config;
  return forms.front();
}

/// `config` (TMA stores) with one TMA store buffer a consumer and one stage more, where that
/// fits. Promoted by slice, block-scaled 256 x 128 (the scales staged) has 3 stages beside two
/// buffers and 4 beside one: on seven large shapes 4 ran 0-4.6 % faster but for one 0.3 %
/// slower (H200, 2026-11-29, bench/NOTES.md, FP8): its main loop waits on the stages more than
/// the lines of its epilog wait on each other's stores.
KernelConfigAttr withStageForBuffer(const Sm90Problem &p, const TargetInfo &target,
                                    KernelConfigAttr config) {
  KernelConfigAttr more =
      config.withTmaBuffers(1).withStages(config.getMainloop().getStages() + 1);
  return more && Sm90Spec(p, more, target).canImplement() ? more : config;
}

} // namespace

/// 8-bit A and B (promoted every kFp8PromoteKSteps k-steps, or with fast accumulation): the
/// tile shapes of fp8Shapes ranked by a unit's time (fp8Splits) x tile area / the shape's speed.
/// So 128 x 192 in one wave beats 128 x 128 in two (promoted 1168 x 1920 x 2848: 0.958 of
/// cuBLASLt against 0.628), problems of a few dozen tiles take 128 x 64 where promoted, and
/// fast accumulation takes 128 x 192 where 128 x 256 leaves most of a wave idle (6016 x 736 x
/// 4544: 141 tiles of 128 x 256, 188 of 128 x 192 in the same two waves). Each shape's K is
/// split as fp8Splits says and ranked by its time, or, where stream-K's pieces pay for a
/// partial last wave (streamKWaves) and beat the splits, by those waves, its stream-K form
/// before its whole units; clusters as fp8ClusterFirst says.
SmallVector<KernelConfigAttr> rules::rankFp8Configs(MatmulOp op, const TargetInfo &target) {
  Sm90Problem p = Sm90Problem::of(op);
  SmallVector<KernelConfigAttr> ranked;
  auto add = [&](KernelConfigAttr config) { addCandidate(ranked, op, p, target, config); };
  SmallVector<Fp8Shape> shapes = fp8Shapes(p);
  auto tilesOf = [&](const Fp8Shape &s) -> int64_t {
    return p.batch * llvm::divideCeil(p.m, s.m) * llvm::divideCeil(p.n, s.n);
  };
  double kSteps = double(llvm::divideCeil(p.k, p.atom().lineElements()));
  for (Fp8Shape &s : shapes) {
    s.config = chooseWgmmaConfig(op, target, s.m, s.n);
    if (p.promotesSums)
      s.config = s.config.withPromote(sm90::kFp8PromoteKSteps);
    // Promoted by slice: measured with TMA stores on whole problems only (fp8Shapes).
    if (s.config && Sm90Spec::promotesBySlice(s.config) &&
        (p.grouped() || s.config.getEpilogue().getStore() != DStore::Tma))
      s.config = {};
    if (s.config && Sm90Spec::promotesBySlice(s.config))
      s.config = withStageForBuffer(p, target, s.config);
    // 64-row tiles store D through TMA where they were measured so: grouped decode
    // (orderGroupedFp8Shapes) and block-scaled (fp8Shapes).
    if (s.config && s.m == 64 && (p.grouped() || blockScaledNarrowStores(p)) &&
        canUseTmaStores(op, true, s.n)) {
      KernelConfigAttr tma = s.config.withStore(DStore::Tma);
      if (Sm90Spec(p, tma, target).canImplement())
        s.config = tma;
    }
    if (p.grouped())
      continue;
    s.streamKWaves = streamKWaves(p, target, s.config);
    auto [splits, steps] = fp8Splits(p, target, tilesOf(s));
    if (!fastNarrowTileFits(p, s, splits, int64_t(kSteps)))
      s.config = {};
    s.steps = steps;
    if (s.streamKWaves && *s.streamKWaves * kSteps < steps)
      s.steps = *s.streamKWaves * kSteps;
    else if (s.config && splits > 1)
      s.config = s.config.withSplits(splits), s.streamKWaves = std::nullopt;
  }
  auto cost = [&](const Fp8Shape &s) { return s.steps * double(s.m * s.n) / s.speed; };
  if (p.grouped())
    orderGroupedFp8Shapes(shapes, p, target);
  else
    llvm::stable_sort(shapes,
                      [&](const Fp8Shape &x, const Fp8Shape &y) { return cost(x) < cost(y); });
  SmallVector<KernelConfigAttr> swapped = fp8SwappedForms(op, p, target);
  if (streamsB(p) && p.m <= kSwappedFirstRows && !swapped.empty())
    add(firstSwappedForm(swapped, p, target));
  else if (streamsB(p))
    orderShortFp8Shapes(shapes, target, tilesOf);
  bool aligned = sectorAlignedRows(op);
  for (const Fp8Shape &s : shapes) {
    KernelConfigAttr config = s.config;
    bool cluster = config && !config.getSwapped() && !p.grouped() && p.m > s.m;
    bool clusterFirst = cluster && fp8ClusterFirst(p, target, s, tilesOf(s), aligned);
    if (clusterFirst)
      add(config.withCluster(2));
    if (s.streamKWaves)
      add(config.withStreamk(true));
    add(config);
    if (cluster && !clusterFirst)
      add(config.withCluster(2));
  }
  // The two fastest shapes' only: autotune times every 8-bit candidate.
  for (const Fp8Shape &s : ArrayRef<Fp8Shape>(shapes).take_front(2))
    add(fp8SharedCluster(p, target, s));
  for (KernelConfigAttr config : swapped)
    add(config);
  return ranked;
}
