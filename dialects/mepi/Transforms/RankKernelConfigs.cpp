// The ranked candidates of a mepi.matmul (KernelConfigs.h): the heuristic's choice (the rules,
// or the cost model where it decides), then every other form the generator can build for the
// problem, in the cost model's order.
#include "KernelRules.h"
#include "RankCandidates.h"
#include "mepi/Sm90/Sm90CostModel.h"
#include "mepi/Sm90/Sm90Spec.h"
#include "mepi/Transforms/KernelConfigs.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::rules;

namespace {
/// Puts the cost model's fastest candidate first where the 128 x 128 tiles would not give every
/// multiprocessor two (the problems whose time is decided by parallelism: tile shape, split-K,
/// the swapped form) and the model predicts it at least 5 % faster than the rules' choice
/// (ranked.front()). Larger problems keep the rules, which were measured on them (the model
/// there preferred unclustered tiles that measured slower), and so do operands read without
/// TMA (the model was fitted on TMA kernels only). On the sweep's problems, with the
/// model fitted on one half, this chose within 3 % of autotune()'s fastest on 64 of the other
/// 112 (the rules alone: 44), at 1.07x the fastest's time in geometric mean (the rules: 1.14;
/// bench/NOTES.md).
void preferModelChoice(SmallVector<KernelConfigAttr> &ranked, const Sm90Problem &p,
                       const TargetInfo &target, bool costlyEpilog) {
  constexpr double kRequiredGain = 1.05;
  int64_t tiles128 = p.batch * llvm::divideCeil(p.m, 128) * llvm::divideCeil(p.n, 128);
  if (ranked.size() < 2 || !ranked.front() || !ranked.front().getMainloop().getTma() ||
      tiles128 >= 2 * target.multiprocessors)
    return;
  auto predicted = [&](KernelConfigAttr config) {
    return predictMicroseconds(p, config, target, costlyEpilog);
  };
  auto fastest = llvm::min_element(
      ranked, [&](KernelConfigAttr x, KernelConfigAttr y) { return predicted(x) < predicted(y); });
  if (predicted(ranked.front()) > kRequiredGain * predicted(*fastest))
    std::rotate(ranked.begin(), fastest, fastest + 1);
}

/// The chosen configuration (the rules' or the cost model's) as `refine` corrects it, put first;
/// 16-bit operands only (where the corrections were measured).
void refineChosen(SmallVector<KernelConfigAttr> &ranked, const Sm90Problem &p,
                  llvm::function_ref<KernelConfigAttr(KernelConfigAttr)> refine) {
  if (ranked.empty() || p.elementBytes != 2)
    return;
  KernelConfigAttr refined = refine(ranked.front());
  if (!refined || refined == ranked.front())
    return;
  llvm::erase(ranked, refined);
  ranked.insert(ranked.begin(), refined);
}

/// A tileM x tileN tile as the heuristic would build it, and its split-K forms where K is long
/// enough (at least 8 k-steps a split) and the units stay within two per multiprocessor.
void addTile(SmallVector<KernelConfigAttr> &ranked, MatmulOp op, const Sm90Problem &p,
             const TargetInfo &target, int64_t tileM, int64_t tileN) {
  constexpr int64_t kMinStepsPerSplit = 8;
  KernelConfigAttr plain = chooseWgmmaConfig(op, target, tileM, tileN);
  addCandidate(ranked, op, p, target, plain);
  int64_t kSteps = llvm::divideCeil(p.k, p.atom().lineElements());
  int64_t tiles = p.batch * llvm::divideCeil(p.m, tileM) * llvm::divideCeil(p.n, tileN);
  for (int64_t splits : {2, 4, 8})
    if (plain && kSteps >= splits * kMinStepsPerSplit &&
        tiles * splits <= 2 * target.multiprocessors)
      addCandidate(ranked, op, p, target, plain.withSplits(splits));
}

/// The tile shapes (each with its split-K forms), the swapped form for short M, ping-pong and
/// 256 x 128: the forms whose variants (clusters, store forms, stages, stream-K) addVariants
/// then adds, and among which the cost model may choose (preferModelChoice).
void addForms(SmallVector<KernelConfigAttr> &ranked, MatmulOp op, const Sm90Problem &p,
              const TargetInfo &target) {
  auto add = [&](KernelConfigAttr config) { addCandidate(ranked, op, p, target, config); };
  // The narrow tiles only where the 128 x 128 ones leave multiprocessors without a second
  // tile: there they give the parallelism that wide tiles lack.
  int64_t tiles128 = p.batch * llvm::divideCeil(p.m, 128) * llvm::divideCeil(p.n, 128);
  for (auto [tileM, tileN] : {std::pair<int64_t, int64_t>{128, 256},
                              {128, 128},
                              {64, 256},
                              {64, 128},
                              {128, 64},
                              {64, 64},
                              {64, 32}})
    if (tileN >= 128 || tiles128 < 2 * target.multiprocessors)
      addTile(ranked, op, p, target, tileM, tileN);
  // The swapped form for short M, with one or two consumers.
  if (p.m <= 64 && canSwap(op, isTmaOperand(op.getA()) && isTmaOperand(op.getB())))
    for (int64_t tileN : {64, 128})
      add(swappedConfig(op, p.m, tileN));
  // Ping-pong (one consumer's epilog under the other's main loop) for the tiles whose
  // accumulators one warpgroup can hold; not with operand sums.
  if (!p.operandSums())
    for (auto [tileM, tileN] : {std::pair<int64_t, int64_t>{128, 128}, {64, 256}})
      add(chooseWgmmaConfig(op, target, tileM, tileN, /*pingpong=*/true));
  // 256 x 128: two consumers of two 64-row slices each (not with operand sums).
  if (!p.operandSums() && p.m > 128)
    add(chooseWgmmaConfig(op, target, 256, 128));
}

/// The swapped form (Dᵀ = B Aᵀ) with its height fitted to the wave: for one and two consumers
/// (64 and 128 columns) and M over 64 the height, a multiple of 16 from 64 to 256, whose tiles'
/// waves fall most inside D (the taller on ties), and the low heights 32, 48 and 80 (those of
/// at most M rows) split along K into as many ranges as one wave holds (waveSplits). cuBLASLt
/// fits its tiles' height so (ncu, bench/NOTES.md: 176 x 128 on 11520 x 256 x 37312, 96 x 64 on
/// 4800 x 128 x 8064, 80 x 128 in 11 splits on 320 x 384 x 55168), and for a row-major D that
/// is the swapped orientation. The heuristic takes the two-consumer ones where they fill the
/// wave (WgmmaHeuristic::fittedHeight, lowSplitHeight); forced on few-tile long-K problems
/// (H100, 2026-11-27; bench/NOTES.md) the low split heights were the
/// fastest of all candidates on 4800 x 128 x 8064, 768 x 128 x 16128, 128 x 1152 x 8704 (80 x 64
/// in 3) and 64 x 5120 x 7488 (32 x 128), 2-13 % faster than the rules' choice.
void addFittedHeights(SmallVector<KernelConfigAttr> &ranked, MatmulOp op, const Sm90Problem &p,
                      const TargetInfo &target) {
  constexpr int64_t kMinHeight = 64, kMaxHeight = 256, kHeightStep = 16;
  bool tmaLoads = isTmaOperand(op.getA()) && isTmaOperand(op.getB());
  if (p.batch != 1 || !canSwap(op, tmaLoads))
    return;
  for (int64_t tileN : {64, 128}) {
    for (int64_t tileM : {32, 48, 80}) {
      if (tileM > p.m)
        continue;
      int64_t tiles = llvm::divideCeil(p.m, tileM) * llvm::divideCeil(p.n, tileN);
      KernelConfigAttr low = swappedTile(op, tileM, tileN);
      int64_t splits = waveSplits(p, target, tiles);
      addCandidate(ranked, op, p, target, splits > 1 && low ? low.withSplits(splits) : low);
    }
    if (p.m <= 64)
      continue;
    int64_t best = 0;
    double bestShare = 0;
    for (int64_t tileM = kMaxHeight; tileM >= kMinHeight; tileM -= kHeightStep)
      if (double share = waveShare(p, target, tileM, tileN); share > bestShare) {
        best = tileM;
        bestShare = share;
      }
    addCandidate(ranked, op, p, target, swappedTile(op, best, tileN));
  }
}

/// Forms for autotune() that the cost model was not fitted on, after its choice (so that it
/// does not choose them): the swapped form's fitted heights (addFittedHeights), its TMA-store
/// variants and 128 x 192.
/// Forced on every problem of both seeded sweeps (H100, 2026-11-27), 128 x 192 ran 3 % or more
/// faster than the heuristic's choice on 27 of the 248 aligned ones (832 x 1472 x 4032 in a
/// batch of 8 1.18x, 1664 x 2816 x 192 in 38 1.16x, 192 x 46656 x 1408 1.11x, 4992 x 6272 x
/// 1728 1.08x) and lost up to 0.77x on others; the heuristic takes it only in place of 256 x 128
/// (WgmmaHeuristic::narrowerThan256x128) or, in clusters, of 128 x 256 where N is just past a
/// multiple of 256 (columnFitted), the cost model never (bench/NOTES.md).
void addUnfittedForms(SmallVector<KernelConfigAttr> &ranked, MatmulOp op, const Sm90Problem &p,
                      const TargetInfo &target) {
  addTile(ranked, op, p, target, 128, 192);
  addFittedHeights(ranked, op, p, target);
  // The swapped form through TMA stores (2026-11-27): where the model could choose them (they
  // were among the forms before its choice), it took them for two 64-row problems of the
  // sweep that then ran 10 % slower (64 x 18240 x 768 GELU_BIAS 0.952 -> 0.848 of cuBLASLt).
  for (KernelConfigAttr config : SmallVector<KernelConfigAttr>(ranked))
    if (config.getSwapped())
      addCandidate(ranked, op, p, target, withTmaStores(op, p, target, config));
}

/// Each variant of the forms from ranked[first] on: clusters of 2, TMA stores, a shallower
/// pipeline, and stream-K or whole units.
void addVariants(SmallVector<KernelConfigAttr> &ranked, MatmulOp op, const Sm90Problem &p,
                 const TargetInfo &target, size_t first) {
  auto add = [&](KernelConfigAttr config) { addCandidate(ranked, op, p, target, config); };
  auto sofar = [&] {
    return SmallVector<KernelConfigAttr>(ranked.begin() + first, ranked.end());
  };
  // Clusters of 2 (B multicast between vertically adjacent tiles) of each TMA configuration
  // so far, split or not, with at least two tile rows (not swapped: its tile rows are short).
  // Clusters along N (multicast = a) are not candidates: on 23 short-M and few-tile long-K
  // problems the fastest of them took 1.004-1.18x the fastest other form (bench/NOTES.md).
  for (KernelConfigAttr config : sofar())
    if (config.getMainloop().getCluster() == 1 && !config.getSwapped() && p.m > config.getTileM())
      add(config.withCluster(2));
  // D through TMA stores, for each configuration so far that may use them (fewer stages where
  // the two buffers per consumer would not fit beside them).
  // The swapped form's come with the forms the cost model was not fitted on (addUnfittedForms).
  for (KernelConfigAttr config : sofar())
    if (!config.getSwapped())
      add(withTmaStores(op, p, target, config));
  // Fewer stages leave more of the shared memory / L1 to the cache: on the fp16 65536 x 16384
  // x 8192 problem 3 stages of 128 x 256 measured 0.84 of cuBLASLt against 0.68 with 4
  // (bench/NOTES.md). The heuristic keeps the deepest pipeline; autotune() tries both.
  for (KernelConfigAttr config : sofar()) {
    if (config.getScheduler().getSplits() != 1 || config.getMainloop().getStages() <= 2 ||
        config.getMainloop().getPingpong() || config.getMainloop().getCluster() != 1)
      continue;
    add(config.withStages(std::max<int64_t>(2, config.getMainloop().getStages() * 3 / 4)));
  }
  // Stream-K of each configuration so far whose last wave would be short, and the whole-unit
  // form of the heuristic's choice where that is stream-K.
  for (KernelConfigAttr config : sofar()) {
    add(withStreamK(p, target, config));
    if (config.getScheduler().isStreamK())
      add(config.withStreamk(false));
  }
}

/// The candidates after the chosen one (the rules' or, where preferModelChoice took over, the
/// model's), fastest first by the cost model: autotune() times the first 16 by default. On the
/// autotune data of both seeded sweeps (every candidate timed), the model's first 16 held one
/// within 3 % of the fastest on 182 of 182 problems (H100, seed 20261124) and 222 of 224
/// (H200, seed 20261123); the first 12 on 181 and 219 (bench/NOTES.md).
void orderByModel(SmallVector<KernelConfigAttr> &ranked, const Sm90Problem &p,
                  const TargetInfo &target, bool costlyEpilog) {
  if (ranked.size() < 3)
    return;
  SmallVector<std::pair<double, KernelConfigAttr>> predicted;
  for (KernelConfigAttr config : llvm::drop_begin(ranked))
    predicted.push_back({predictMicroseconds(p, config, target, costlyEpilog), config});
  std::stable_sort(predicted.begin(), predicted.end(),
                   [](const auto &x, const auto &y) { return x.first < y.first; });
  for (auto [i, entry] : llvm::enumerate(predicted))
    ranked[i + 1] = entry.second;
}

} // namespace

SmallVector<KernelConfigAttr> mlir::mepi::rankKernelConfigs(MatmulOp op, const TargetInfo &target) {
  if (!target.hasWgmma() || !isWgmmaEligible(op))
    return {chooseSimtConfig(op, 0, 0)};
  Sm90Problem p = Sm90Problem::of(op);
  if (p.promotesSums)
    return rankFp8Configs(op, target);
  SmallVector<KernelConfigAttr> ranked = {p.grouped()  ? chooseGroupedConfig(op, target)
                                          : p.kGroups ? chooseKGroupedConfig(op, target)
                                                      : chooseWgmmaConfig(op, target, 0, 0)};
  // Dense 8-bit A and B with fast accumulation: the FP8 shapes first, then the 16-bit forms
  // (for autotune); but the 16-bit rules' ping-pong first where they take it (K of a few
  // k-steps, where the epilog's overlap decides: 4800 x 1792 x 384 1.08 of cuBLASLt on 64 x 256
  // ping-pong against 0.97 on 128 x 192, 2128 x 3056 x 224 0.97 against 0.89 on 128 x 256).
  bool fastFp8 = p.elementBytes == 1 && !p.grouped() && !p.kGroups &&
                 !(ranked.front() && ranked.front().getMainloop().getPingpong());
  SmallVector<KernelConfigAttr> fp8First = fastFp8 ? rankFp8Configs(op, target)
                                                   : SmallVector<KernelConfigAttr>();
  addForms(ranked, op, p, target);
  addVariants(ranked, op, p, target, 0);
  // The cost model was fitted on dense and batched problems only, of element-wise epilogs: it
  // does not choose for reductions or operand sums (the bias gradients), whose cost it does not
  // know. It chose 64 x 64 for decode16's DGELU_BGRAD and BGRADB (16 x 8192 x 8192; H200,
  // 2026-12-01, `catalog.json`): 0.84 and 0.78 of cuBLASLt, where the rules' 64 x 128 in 2 splits
  // ran 1.04 and 0.96 (2026-11-22's catalog run).
  bool modelled = !p.grouped() && !p.kGroups;
  bool elementWise = op.getReductions().empty() && !op.getASums() && !op.getBSums();
  bool special = epilogCost(op) != EpilogCost::Arithmetic;
  if (modelled) {
    if (elementWise)
      preferModelChoice(ranked, p, target, special);
    // Split-K of narrow tiles: the splits that fill the machine (narrowSplitFill). Split-K with
    // its tile rows paired where B is larger than half of L2 (pairedSplits): the
    // model was fitted on unclustered split-K, so the pairs apply to its choice, not in its
    // place. A batch under one wave of wide tiles: narrower tiles that still fit that wave
    // (batchWaveFit, which needs TMA loads). At most 64 rows past one wave of 64-row tiles: the
    // width whose last wave is fuller (shortRowWaveFit). One wave of 128 x 64 tiles over a
    // short K: 64 x 128 of one consumer (wideOneWave). A 64-row tile of one consumer in whole
    // units: D through TMA stores (oneConsumerTmaStores).
    bool tma = isTmaOperand(op.getA()) && isTmaOperand(op.getB());
    refineChosen(ranked, p,
                 [&](KernelConfigAttr c) { return narrowSplitFill(op, target, tma, c); });
    refineChosen(ranked, p, [&](KernelConfigAttr c) { return pairedSplits(op, p, target, c); });
    refineChosen(ranked, p, [&](KernelConfigAttr c) { return batchWaveFit(op, target, tma, c); });
    refineChosen(ranked, p,
                 [&](KernelConfigAttr c) { return shortRowWaveFit(op, target, tma, c); });
    refineChosen(ranked, p, [&](KernelConfigAttr c) { return wideOneWave(op, target, tma, c); });
    refineChosen(ranked, p,
                 [&](KernelConfigAttr c) { return oneConsumerTmaStores(op, target, c); });
  }
  size_t fitted = ranked.size();
  addUnfittedForms(ranked, op, p, target);
  addVariants(ranked, op, p, target, fitted);
  if (modelled)
    orderByModel(ranked, p, target, special);
  for (KernelConfigAttr config : ranked)
    if (!llvm::is_contained(fp8First, config))
      fp8First.push_back(config);
  return fp8First;
}
