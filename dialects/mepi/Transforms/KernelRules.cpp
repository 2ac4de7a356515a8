// The heuristic's shared rules (KernelRules.h): what an operand or epilog allows (TMA, the
// swapped form, TMA stores), the SIMT tile, stream-K's rule, the wave arithmetic and the grouped
// forms. The wgmma heuristic itself: SelectKernelConfig.cpp.
#include "KernelRules.h"
#include "mepi/Library/ApproximateOps.h"
#include "mepi/Sm90/EpilogScratch.h"
#include "mepi/Sm90/L2Sectors.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::rules {
/// SIMT heuristic: 256 threads per block, threadIdx.x along N so that loads of B and stores of D
/// are coalesced; narrow outputs give their unused columns to rows instead of idling threads.
KernelConfigAttr chooseSimtConfig(MatmulOp op, int64_t forcedM, int64_t forcedN) {
  constexpr int64_t kThreads = 256, kDefaultTileN = 16;
  int64_t n = op.getD().getType().getShape().back();
  int64_t tileN = kDefaultTileN;
  if (!ShapedType::isDynamic(n) && n < kDefaultTileN)
    tileN =
        static_cast<int64_t>(llvm::PowerOf2Ceil(static_cast<uint64_t>(std::max<int64_t>(n, 1))));
  if (forcedN > 0)
    tileN = forcedN;
  int64_t tileM = forcedM > 0 ? forcedM : std::max<int64_t>(1, kThreads / tileN);
  return KernelConfigAttr::get(op.getContext(), KernelStrategy::Simt, tileM, tileN, 1);
}

/// A static memref of 8-bit, 16-bit or 32-bit floats with contiguous rows and static strides:
/// K-major (A, or B given as [N, K] with transpose_b) or MN-major (A given as [K, M] with
/// transpose_a, or B [K, N]), with or without batch dimensions.
bool isRowContiguousOperand(Value value) {
  auto type = cast<MemRefType>(value.getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (type.getRank() < 2 || !type.hasStaticShape() || (bits != 8 && bits != 16 && bits != 32) ||
      !isa<FloatType>(type.getElementType()))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) && offset == 0 &&
         strides.back() == 1 && llvm::none_of(strides, ShapedType::isDynamic);
}

/// Whether a TMA descriptor can describe the operand (mepi.tensor_map's rules): rows, and the
/// batch elements of its batch dimensions that do not broadcast, start every 16 bytes, at a
/// 16-byte aligned address.
bool isTmaOperand(Value value) {
  return getPromisedAlignment(value) >= 16 &&
         !whyNotTmaAddressable(cast<MemRefType>(value.getType()));
}

/// Whether the wgmma family can run `op` (see the pass description). Batched problems need
/// TMA loads and an epilog without operand sums or reductions; f32 A and B (at TF32 precision,
/// or at f32's split into TF32 parts, then unbatched) and 8-bit ones (an fp8 pair, which the
/// verifier checks) need them K-major and read through TMA, without operand sums
/// (Sm90Spec::whyNot).
bool isWgmmaEligible(MatmulOp op) {
  Type aElt = op.getA().getType().getElementType();
  bool f32 = aElt.isF32();
  if (f32 && op.getCompute() != ComputeType::TF32 && op.getD().getType().getRank() != 2)
    return false;
  bool fp8 = aElt.getIntOrFloatBitWidth() == 8;
  if (!fp8 &&
      (aElt != op.getB().getType().getElementType() || !(aElt.isBF16() || aElt.isF16() || f32)))
    return false;
  if ((f32 || fp8) && (op.getTransposeA() || !op.getTransposeB() || !isTmaOperand(op.getA()) ||
                        !isTmaOperand(op.getB()) || op.getASums() || op.getBSums()))
    return false;
  MemRefType dType = op.getD().getType();
  if (dType.getRank() < 2 || !dType.hasStaticShape() || !isRowContiguousOperand(op.getA()) ||
      !isRowContiguousOperand(op.getB()))
    return false;
  if (dType.getRank() == 2)
    return true;
  return isTmaOperand(op.getA()) && isTmaOperand(op.getB()) && !op.getASums() && !op.getBSums() &&
         op.getReductions().empty();
}

/// What the epilog spends per element (EpilogCost): a call, a division or a transcendental math
/// op makes it Approximate where each is one approximate instruction (ApproximateOps.h), else
/// Expanded.
EpilogCost epilogCost(MatmulOp op) {
  EpilogCost cost = EpilogCost::Arithmetic;
  op.getEpilog().walk([&](Operation *inner) {
    StringRef name = inner->getName().getStringRef();
    bool special = isa<CallOpInterface>(inner) || name == "arith.divf" || name == "arith.remf" ||
                   (name.starts_with("math.") && name != "math.fma" && name != "math.absf" &&
                    name != "math.copysign");
    if (!special)
      return WalkResult::advance();
    if (approximateInstruction(inner)) {
      cost = EpilogCost::Approximate;
      return WalkResult::advance();
    }
    cost = EpilogCost::Expanded;
    return WalkResult::interrupt();
  });
  return cost;
}

/// Whether the swapped form (Dᵀ = B Aᵀ) can run `op`: 16- or 8-bit K-major A through TMA,
/// B K-major too or (16-bit) MN-major (B as [K, N], torch.mm's), 8-bit without block scales,
/// and an element-wise epilog (no operand sums or reductions; matrix and bitmask aux outputs).
bool canSwap(MatmulOp op, bool tmaLoads) {
  unsigned bits = op.getA().getType().getElementTypeBitWidth();
  return tmaLoads && op.getD().getType().getRank() == 2 && (bits == 16 || bits == 8) &&
         !op.getABlockScales() && !op.getTransposeA() && (op.getTransposeB() || bits == 16) &&
         !op.getASums() && !op.getBSums() && op.getReductions().empty();
}

/// The swapped configuration for `m` rows: A's rows rounded up to 16, 32 or 64, `tileN`
/// columns (one consumer per 64).
namespace {
/// A's rows per swapped tile for `m` rows of D: 16, 32 or 64.
int64_t swappedRows(int64_t m) { return m <= 16 ? 16 : m <= 32 ? 32 : 64; }
} // namespace

KernelConfigAttr swappedConfig(MatmulOp op, int64_t m, int64_t tileN) {
  return swappedTile(op, swappedRows(m), tileN);
}

/// Past one wave a block streams twice B's rows per A fragment it holds, and the ramp and tail
/// of each tile come half as often: forced against each other (H200, 2026-11-30, 8-bit,
/// `fp8-swapped-width.log`, two rounds in opposite orders) the 128-column form ran 1.04-1.23x
/// on six 16-row shapes of 139-696 64-column tiles, 0.98 and 1.04x on two of 32 rows; within
/// one wave 64 columns (16 x 8192², 128 tiles: 1.02x). On 16-bit operands, A/B against 64
/// columns on 22 problems of both sweeps and LLM decoding (`rules-ab.log`): 1.027x, none slower.
int64_t swappedWidth(const Sm90Problem &p, const TargetInfo &target) {
  int64_t tiles = p.batch * llvm::divideCeil(p.m, swappedRows(p.m)) * llvm::divideCeil(p.n, 64);
  return tiles > target.multiprocessors ? 128 : 64;
}

int64_t budgetStages(const Sm90Problem &p, KernelConfigAttr shape) {
  constexpr int64_t kBudget = 200 * 1024, kFreeScratch = 8 * 1024, kMaxStages = 8;
  int64_t consumers = shape ? Sm90Spec::consumers(shape) : 2;
  int64_t budget = kBudget - std::max<int64_t>(0, consumers * p.epilogScratchBytes - kFreeScratch);
  int64_t rows = shape ? shape.getTileM() + shape.getTileN() : 256;
  return std::min<int64_t>(kMaxStages, budget / (rows * sm90::kSwizzleBytes));
}

/// The swapped form of tileM x tileN tiles with as many stages as fit in ~200 KiB, at most 16;
/// 8-bit sums promoted as the problem needs.
KernelConfigAttr swappedTile(MatmulOp op, int64_t tileM, int64_t tileN) {
  int64_t stages = std::min<int64_t>(16, 200 * 1024 / ((tileM + tileN) * sm90::kSwizzleBytes));
  Sm90Problem p = Sm90Problem::of(op);
  int64_t promote = p.promotesSums ? sm90::kFp8PromoteKSteps : 0;
  // Built whole: a 16- or 32-row tile exists only in the swapped form.
  MLIRContext *ctx = op.getContext();
  return KernelConfigAttr::get(ctx, KernelStrategy::Wgmma, tileM, tileN,
                               p.atom().lineElements(),
                               MainloopConfigAttr::get(ctx, stages, /*tma=*/true,
                                                       /*pingpong=*/false, /*cluster=*/1,
                                                       promote, Multicast::B),
                               SchedulerConfigAttr::get(ctx), EpilogueConfigAttr::get(ctx),
                               /*swapped=*/true);
}

bool buildable(const Sm90Problem &p, const TargetInfo &target, KernelConfigAttr config) {
  return config && Sm90Spec(p, config, target).canImplement();
}

KernelConfigAttr wgmmaTile(MatmulOp op, const Sm90Problem &p, int64_t tileM, int64_t tileN,
                           bool tma, int64_t stages) {
  return KernelConfigAttr::get(op.getContext(), KernelStrategy::Wgmma, tileM, tileN,
                               p.atom().lineElements(), stages)
      .withTma(tma);
}

KernelConfigAttr pingpongTmaStored(MatmulOp op, const Sm90Problem &p, const TargetInfo &target,
                                   bool tma, int64_t tileM, int64_t tileN) {
  for (int64_t stages : {6, 5, 4}) {
    KernelConfigAttr config = wgmmaTile(op, p, tileM, tileN, tma, stages);
    config = config ? config.withPingpong(true).withStore(DStore::Tma) : config;
    if (buildable(p, target, config))
      return config;
  }
  return {};
}

bool plainCooperative(KernelConfigAttr config) {
  return config && !config.getSwapped() && !config.getMainloop().getPingpong() &&
         config.getMainloop().getCluster() == 1;
}

int64_t tileCount(const Sm90Problem &p, int64_t tileM, int64_t tileN) {
  return p.batch * llvm::divideCeil(p.m, tileM) * llvm::divideCeil(p.n, tileN);
}

double waveShare(const Sm90Problem &p, const TargetInfo &target, int64_t tileM, int64_t tileN,
                 int64_t splits) {
  int64_t rows = llvm::divideCeil(p.m, tileM), cols = llvm::divideCeil(p.n, tileN);
  int64_t units = p.batch * rows * cols * splits;
  int64_t waves = llvm::divideCeil(units, target.multiprocessors);
  return double(units) / double(waves * target.multiprocessors) * double(p.m) * double(p.n) /
         (double(rows * tileM) * double(cols * tileN));
}

int64_t waveSplits(const Sm90Problem &p, const TargetInfo &target, int64_t tiles) {
  // Each range long enough that the pipeline's fill stays a small part of a unit.
  constexpr int64_t kMinStepsPerSplit = 8, kMaxSplits = 16;
  if (tiles == 0 || 2 * tiles > target.multiprocessors)
    return 1;
  int64_t kSteps = llvm::divideCeil(p.k, p.atom().lineElements());
  return std::max<int64_t>(
      1, std::min({target.multiprocessors / tiles, kSteps / kMinStepsPerSplit, kMaxSplits}));
}

/// Whether the rows of A and B start on L2 sectors. TMA reads rows that do not with ~4x the L2
/// requests (L2Sectors.h), so that large problems of such rows are limited by L2's requests,
/// and B multicast in clusters of 2 halves B's.
bool sectorAlignedRows(MatmulOp op) {
  return llvm::all_of(SmallVector<Value>{op.getA(), op.getB()}, [](Value operand) {
    auto type = cast<MemRefType>(operand.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (type.getRank() < 2 || failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(strides[type.getRank() - 2]))
      return true;
    int64_t pitch = strides[type.getRank() - 2] * type.getElementTypeBitWidth() / 8;
    return sm90::rowsStartOnSectors(pitch);
  });
}

/// Whether the epilog may write D through TMA stores (`store = tma`): D-only epilogs, with TMA
/// loads, into a D whose rows TMA addresses, in tiles of whole 128-byte lines, or of one or more
/// and then a narrower line of whole 32-byte units, which the consumer's threads store. 128 x
/// 160 with them against register stores (H200, 2026-12-01, `narrow-line-forms.log`, bf16
/// DEFAULT / GELU_BIAS): 2752 x 832 x 3648 1.12x / 1.06x, 1000 x 2304 x 1032 1.21x / 1.12x.
/// Not tiles narrower than a line (64 x 32 of short M), whose stores were not measured so.
bool canUseTmaStores(MatmulOp op, bool tmaLoads, int64_t tileN) {
  constexpr int64_t kUnitBytes = 32;
  if (!tmaLoads || !canStoreDThroughTma(op))
    return false;
  int64_t dBytes = op.getD().getType().getElementTypeBitWidth() / 8;
  return tileN % tmaStoreLineColumns(op) == 0 ||
         (tileN > tmaStoreLineColumns(op) && (tileN * dBytes) % kUnitBytes == 0);
}

/// How the epilog writes D by default. Through TMA stores where it may in the kernels with
/// 128-row slices pairs (the stores leave the consumer's path; on the H200 against the
/// previous choice, interleaved: 128 x 256 in clusters +4 to +11 %, ping-pong +2 to +6 %,
/// bench/NOTES.md); the 64-row kernels of short M stage D here and take TMA stores as the
/// chosen tile (WgmmaHeuristic::shortMStore, oneConsumerTmaStores). Else
/// from the registers in the cooperative 128-row kernels when the epilog writes D only, which
/// gained 1-12 % there; the ping-pong and 256-row kernels lost 2-6 % by it (their epilog
/// overlaps a main loop, which the scattered 4-byte stores slow down), and so did the 64-row
/// ones of short M (decode16 GELU_BIAS 0.83 -> 0.77). Elsewhere through shared memory.
///
/// Where TMA cannot address D's rows, the cooperative 128- and 256-row kernels still take
/// store = tma: its line buffers, stored by the consumer's threads (H100, bench/NOTES.md,
/// against the registers or staged form of the same tile: 52408 x 4166 x 112 GELU_BIAS 57 ->
/// 146 TFLOP/s, 8704 x 1133 x 824 216 -> 377 (256 x 128: 198 -> 321), 10862 x 927 x 213 61 ->
/// 106, 4095 x 4097 x 4099 420 -> 480, 2056 x 2665 x 2472 GELU_BIAS 301 -> 386). Ping-pong was
/// not measured.
DStore defaultStore(MatmulOp op, int64_t tileM, int64_t tileN, bool pingpong, bool tmaLoads) {
  if (tileM >= 128 && canUseTmaStores(op, tmaLoads, tileN))
    return DStore::Tma;
  if (tileM >= 128 && !pingpong && tmaLoads && Sm90Problem::storesDThroughLines(op) &&
      tileN % tmaStoreLineColumns(op) == 0)
    return DStore::Tma;
  return !pingpong && tileM == 128 && canStoreDFromRegisters(op) ? DStore::Registers
                                                                 : DStore::Staged;
}

namespace {
/// A stream-K range's cost over a whole unit's (withStreamK): a last wave of R units on G
/// walkers takes about 1.5 R / G of a wave.
constexpr double kStreamKTailCost = 1.5;

/// A configuration's work units on its walkers (the multiprocessors, or their clusters): whole
/// waves and the units of the last, partial one.
struct Waves {
  int64_t units, walkers, waves, tail;
  static Waves of(const Sm90Spec &spec, const TargetInfo &target) {
    int64_t units = spec.workUnits();
    int64_t walkers = std::max<int64_t>(
        1, target.multiprocessors / spec.getConfig().getMainloop().getCluster());
    return {units, walkers, units / walkers, units % walkers};
  }
};
} // namespace

/// The stream-K form of a cooperative configuration whose last wave of work units leaves
/// walkers (the multiprocessors, or their clusters) idle, for autotune(); with `heuristic`,
/// only where the heuristic takes it. Of U = W * G + R units on G walkers, whole units take
/// W + 1 waves, stream-K about W + 1.5 R / G (its ranges ran up to ~1.5x slower than whole
/// units on the H200: each starts at its own k-step, and the shared units' records). Measured
/// on the H200 (bench/NOTES.md): 2100 x 2000 x 4096 (72 pair units on 66 clusters) 397 -> 482
/// TFLOP/s, 4096 x 4224 x 8192 (272) 693 -> 757; 16384 x 8192 x 8192 (2048, a predicted 3 %)
/// 700-744 -> 710-733, within the spread; 4095 x 4097 x 4099 (272 too, but with D staged at
/// 345 TFLOP/s the tail is not its time) 349 -> 346; 4096 x 14336 x 4096 (a last wave of 38 of
/// 66) 808 -> 796, 4096 x 4096 x 14336 (58 of 66) 831 -> 818. So the heuristic takes it where
/// the last wave is at most half full, the prediction gains 5 % or more and D goes through TMA
/// stores, or the same line buffers stored by the consumer's threads (D rows TMA cannot
/// address: on 15 sweep problems whole units ran 0.9 % slower in geomean, bench/NOTES.md).
KernelConfigAttr withStreamK(const Sm90Problem &p, const TargetInfo &target,
                             KernelConfigAttr config, bool heuristic) {
  KernelConfigAttr streamK = config.withStreamk(true);
  // Not for operand sums, reductions or batched problems (Sm90Spec::whyNot).
  if (!streamK || !Sm90Spec(p, streamK, target).canImplement())
    return config;
  Sm90Spec spec(p, streamK, target);
  auto [units, walkers, waves, tail] = Waves::of(spec, target);
  // Ranges need k-steps to share (kMinStreamKSteps or more a range), and the kernel's walk
  // divides exactly below kMaxStreamKSteps in all.
  int64_t kSteps = spec.kSteps();
  if (units <= walkers || tail == 0 || kSteps < sm90::kMinStreamKSteps ||
      units * kSteps >= sm90::kMaxStreamKSteps)
    return config;
  // R <= G / 2 and (1 - 1.5 R / G) / (W + 1) >= 0.05, in integers. Not for 8-bit A and B:
  // on the H200 (e4m3, fast accumulation) each problem the rule gave stream-K ran at 0.57-0.91
  // of cuBLASLt (2048 x 5120 x 5120 0.77, 4096 x 4112 x 4128 0.81, the sweep's 6016 x 736 x
  // 4544 0.60 and 1168 x 1920 x 2848 0.57) against 0.98-1.00 for the whole-unit kernels of the
  // large shapes (bench/NOTES.md).
  if (heuristic && p.elementBytes == 1)
    return config;
  if (heuristic && (config.getEpilogue().getStore() != DStore::Tma || 2 * tail > walkers ||
                    10 * (2 * walkers - 3 * tail) < walkers * (waves + 1)))
    return config;
  return streamK;
}

/// The share of the walkers' time that a (not swapped) configuration's work units spend inside
/// D: waveShare's count over its own units (a cluster's pair units on the clusters), where a
/// partial last wave of R units on G walkers costs a whole wave, or under stream-K 1.5 R / G of
/// one (withStreamK's prediction).
double predictedShare(const Sm90Problem &p, const TargetInfo &target, KernelConfigAttr config) {
  Sm90Spec spec(p, config, target);
  auto [units, walkers, waves, tail] = Waves::of(spec, target);
  if (units == 0)
    return 0;
  double time = tail == 0 ? double(waves)
                : config.getScheduler().isStreamK()
                    ? waves + kStreamKTailCost * double(tail) / double(walkers)
                    : double(waves + 1);
  double covered = double(spec.tilesM() * config.getTileM()) *
                   double(spec.tilesN() * config.getTileN());
  return double(units) / (time * double(walkers)) * double(p.m) * double(p.n) / covered;
}

KernelConfigAttr withFittingStages(const Sm90Problem &p, const TargetInfo &target,
                                   KernelConfigAttr config) {
  while (config && config.getMainloop().getStages() > 2 &&
         !Sm90Spec(p, config, target).fitsSharedMemory())
    config = config.withStages(config.getMainloop().getStages() - 1);
  return config;
}

/// `config` in the form a grouped problem takes (Sm90Spec::whyNot): whole units (no split-K
/// or stream-K), no clusters. TMA stores stay: the slices inside their group take them.
KernelConfigAttr asGrouped(MatmulOp op, KernelConfigAttr config) {
  if (!config || config.getStrategy() != KernelStrategy::Wgmma)
    return config;
  return config.withSplits(1).withStreamk(false).withCluster(1);
}

namespace {
/// A ping-pong grouped form of tileM x tileN tiles with TMA stores and as many of `stages` as
/// fit beside the group table; null where the spec cannot build it.
KernelConfigAttr groupedPingpong(MatmulOp op, const TargetInfo &target, int64_t tileM,
                                 int64_t tileN, int64_t stages) {
  Sm90Problem p = Sm90Problem::of(op);
  KernelConfigAttr config = chooseWgmmaConfig(op, target, tileM, tileN);
  if (!config)
    return {};
  config = config.withPingpong(true).withStages(stages).withStore(DStore::Tma);
  config = withFittingStages(p, target, asGrouped(op, config));
  return config && Sm90Spec(p, config, target).canImplement() ? config : KernelConfigAttr();
}

/// Short main loops of 128-row grouped tiles: ping-pong, whose consumers each run their epilog
/// under the other's main loop, as dense problems of short K do (ManyTileForms.cpp,
/// manyTileChoice): 64 x 256 for an epilog of special ops over at most 12 k-steps, 128 x 128 for
/// one over at most 32 k-steps or a cheap one over at most 12. On the H200 (2026-11-30,
/// `grouped-qwen3-forms.log`, `grouped-pingpong-forms.log`, TFLOP/s against 128 x 256 s4, two
/// rounds each): Qwen3 down (768: 12 k-steps) GELU_BIAS 497 -> 564 on 64 x 256 (128 x 128:
/// 516-533), DEFAULT 618 -> 649 on 128 x 128; Qwen3 up (2048: 32 k-steps) GELU_BIAS 603 -> 621,
/// DEFAULT 653 either way (hence cheap epilogs only to 12 k-steps); Mixtral (K >= 4096) down
/// 3 % slower on 128 x 128, so not there. 16-bit operands (FP8's not measured).
KernelConfigAttr shortGroupedForm(MatmulOp op, const TargetInfo &target, int64_t tileM) {
  constexpr int64_t kShortKSteps = 12, kCostlyKSteps = 32;
  Sm90Problem p = Sm90Problem::of(op);
  if (tileM != 128 || p.elementBytes != 2 || !canUseTmaStores(op, true, 128))
    return {};
  int64_t kSteps = llvm::divideCeil(p.k, p.atom().lineElements());
  bool costly = epilogCost(op) != EpilogCost::Arithmetic;
  if (costly && kSteps <= kShortKSteps && p.n > 128)
    if (KernelConfigAttr wide = groupedPingpong(op, target, 64, 256, /*stages=*/4))
      return wide;
  if (kSteps <= (costly ? kCostlyKSteps : kShortKSteps))
    return groupedPingpong(op, target, 128, 128, /*stages=*/6);
  return {};
}
} // namespace

/// A grouped problem's configuration, from the groups' mean rows T / S (their sizes are known
/// on the device only): 64-row tiles where groups average 64 rows or fewer (decode-like
/// calls: a 128-row tile would be mostly outside its group), else 128; 256 columns where the
/// tiles of the mean group sizes still give each multiprocessor one, else 128 (64 for a D of
/// at most 64 columns). Short main loops take ping-pong (shortGroupedForm).
///
/// An Expanded epilog over a main loop of K <= 4096 takes ping-pong 128 x 128 with TMA stores,
/// as dense problems do (each consumer's epilog runs under the other's main loop). On the H200
/// (mepi-bench --grouped, 2026-11-23, against the dense GEMM of the same FLOPs), GELU_BIAS
/// (then Expanded) cooperative 128 x 256 -> ping-pong: mixtral-up (K = 4096) 0.81 -> 0.99,
/// qwen3-up (2048) 0.66 -> 0.74; qwen3-down (768) 0.48 either way; mixtral-down (14336)
/// 0.92 -> 0.49, and DEFAULT within 1 % at K = 4096. Since the seven-instruction GELU and the
/// column inputs loaded a line ahead, cooperative 128 x 256 wins at K = 4096 (H100, 2026-11-26,
/// TFLOP/s against ping-pong): mixtral-up 677 / 646 (bench/NOTES.md).
KernelConfigAttr chooseGroupedConfig(MatmulOp op, const TargetInfo &target) {
  Sm90Problem p = Sm90Problem::of(op);
  int64_t meanRows = std::max<int64_t>(1, p.m / p.groups);
  int64_t tileM = meanRows <= 64 ? 64 : 128;
  auto tileRows = [&](int64_t rows) -> int64_t {
    return p.groups * llvm::divideCeil(meanRows, rows);
  };
  int64_t tileN = p.n <= 64 ? 64 : 128;
  if (KernelConfigAttr shortK = shortGroupedForm(op, target, tileM))
    return shortK;
  if (tileM == 128 && p.k <= 4096 && epilogCost(op) == EpilogCost::Expanded &&
      canUseTmaStores(op, true, 128))
    if (KernelConfigAttr config = chooseWgmmaConfig(op, target, 128, 128)) {
      config = config.withPingpong(true).withStages(4).withStore(DStore::Tma);
      if (config && Sm90Spec(p, config, target).canImplement())
        return asGrouped(op, config);
    }
  if (tileM == 128 && p.n >= 256 &&
      tileRows(tileM) * int64_t(llvm::divideCeil(p.n, 256)) >= target.multiprocessors)
    tileN = 256;
  return asGrouped(op, chooseWgmmaConfig(op, target, tileM, tileN));
}

/// Grouped along K (weight gradients: each group's own D over its slice of K): S batch
/// elements of M x N, each of K / S elements of K on average. 128 x 256 where those tiles
/// still give every multiprocessor one, else 128 x 128 (64 columns for a D of at most 64).
/// Cooperative with TMA stores: on the H200 (mepi-bench --grouped-k, 2026-11-26) 128 x 256 s4
/// beat 128 x 128 s6, 256 x 128 s4, ping-pong 128 x 128 and 64 x 256, and register stores on
/// all five shapes (bench/NOTES.md, Grouped GEMM, groups along K).
KernelConfigAttr chooseKGroupedConfig(MatmulOp op, const TargetInfo &target) {
  Sm90Problem p = Sm90Problem::of(op);
  int64_t tileN = p.n <= 64 ? 64 : 128;
  int64_t wideTiles = p.batch * llvm::divideCeil(p.m, 128) * llvm::divideCeil(p.n, 256);
  if (p.n >= 256 && wideTiles >= target.multiprocessors)
    tileN = 256;
  return asGrouped(op, chooseWgmmaConfig(op, target, 128, tileN));
}

} // namespace mlir::mepi::rules
