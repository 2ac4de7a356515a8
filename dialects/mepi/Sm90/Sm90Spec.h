// Sm90Spec: the sizes of a Hopper (sm_90a) wgmma kernel for one problem, configuration and
// target, in plain arithmetic: roles, work units, shared-memory and workspace layouts, and
// whether the configuration can run the problem at all. The heuristic, the generator and the
// runtime all ask it; none of them restates its arithmetic.
#ifndef MEPI_SM90_SM90SPEC_H
#define MEPI_SM90_SM90SPEC_H

#include "mepi/IR/MepiAttrs.h"
#include "mepi/Sm90/TargetInfo.h"

#include <optional>
#include <string>

namespace mlir::mepi {
class MatmulOp;

namespace sm90 {
constexpr int64_t kWarpgroup = 128;    // threads of a warpgroup (4 warps)
constexpr int64_t kSliceRows = 64;     // rows of one wgmma m64 (a consumer's row slice)
constexpr int64_t kSwizzleBytes = 128; // one line of a stage tile (the 128-byte swizzle)
constexpr int64_t kBlockRows = 64;     // rows of an MN-major tile block (one 128-byte line)
constexpr int64_t kBlockBytes = kBlockRows * kSwizzleBytes; // an MN-major block: 64 k-lines
constexpr int64_t kInstrK = 16;        // K of one wgmma for 16-bit inputs
/// TF32 in an f32's bits: the top 19 (sign, exponent, 10 mantissa bits), which a tf32 wgmma
/// reads. Rounding to TF32 to nearest with ties away from zero (cvt.rna.tf32.f32) adds half of
/// the dropped 13 bits' place, then clears them (the strict f32 split: SplitOperand.h's
/// pre-pass and Tf32Split.h in the kernel).
constexpr int32_t kTf32KeepMask = ~0x1FFF, kTf32RoundHalf = 0x1000;
/// The operand sums' tile of ones: 8 rows of 64 16-bit ones (one 128-byte swizzle atom).
constexpr int64_t kOnesTileBytes = 1024;
constexpr int64_t kWorkspaceAlignment = 256;
/// Stream-K ranges are at least this many k-steps (where the last wave has that many per
/// walker): a shorter one costs more in its records and pipeline refill than it spreads.
constexpr int64_t kMinStreamKSteps = 16;
/// Divisions by a runtime divisor use the approximate reciprocal (emitDivRem), exact for
/// dividends below this.
constexpr int64_t kMaxApproxDividend = int64_t(1) << 22;
/// 8-bit A and B: k-steps (of 128 elements of K) between promotions of the tensor cores' sums
/// into f32: 1, every 4 wgmma k32 instructions, CUTLASS's and DeepGEMM's default interval.
constexpr int64_t kFp8PromoteKSteps = 1;
/// Accumulator registers (both sets) a promoted consumer holds per thread at most: 128 x 192's
/// two sets of 96, which ptxas keeps beside the loop's addresses and scales without spilling.
constexpr int64_t kMaxPromotedAccumulators = 192;
/// The largest index a kernel computes in 32-bit arithmetic (TMA coordinates, rows, units).
constexpr int64_t kMaxIndex = (int64_t(1) << 31) - 1;
/// The stream-K walk divides k-steps in all (work units x k-steps) that way.
constexpr int64_t kMaxStreamKSteps = kMaxApproxDividend;
/// The staged epilog's block: 64 rows of kChunkColumns f32, rows padded by 8 floats so that a
/// warp's 8-byte fragment stores fill all 32 banks twice, the minimum for 256 bytes.
constexpr int64_t kChunkColumns = 32, kStagingPitch = kChunkColumns + 8;
/// A TMA store buffer: 64 rows of one 128-byte line of D; one or two per consumer, taken in
/// turn (the epilogue's `buffers`).
constexpr int64_t kTmaStoreBufferBytes = 64 * kSwizzleBytes;
/// The group table of a grouped kernel: per group its first tile row among all groups' (S + 1
/// entries, the last the total), its first row and its end row, i32 each.
constexpr int64_t groupTableBytes(int64_t groups) { return (3 * groups + 1) * 4; }
} // namespace sm90

/// One wgmma instruction's view of its operands (the MMA-atom table): K per instruction and
/// bytes per element, 32 bytes of K either way (16-bit: k16; tf32: k8; 8-bit: k32). wgmma
/// reads transposed (MN-major) operands of 16-bit types only.
struct MmaAtom {
  int64_t instrK = 16, elementBytes = 2;
  bool transposable = true;
  /// The atom of A and B elements of `elementBytes` (4: f32 read as tf32), or none.
  static std::optional<MmaAtom> of(int64_t elementBytes);
  int64_t kBytes() const { return instrK * elementBytes; }
  /// Elements of K in one 128-byte line of a stage tile: a configuration's tile_k.
  int64_t lineElements() const { return sm90::kSwizzleBytes / elementBytes; }
};

/// What the kernel's sizes depend on, from the problem (Sm90Problem::of a mepi.matmul).
struct Sm90Problem {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1; // D's batch elements (the product of its leading dimensions)
  /// Grouped (rows of A and D in groups whose bounds the kernel reads): the groups S, else 0.
  /// `m` is then all of D's rows, T.
  int64_t groups = 0;
  /// Grouped along K (each group a slice of K and its own D): the groups S, which are D's
  /// batch elements; else 0. `k` is then all of K.
  int64_t kGroups = 0;
  bool batched = false; // D has leading (batch) dimensions, even all of size 1
  bool mnMajorA = false, mnMajorB = false; // A given as [K, M]; B given as [K, N]
  int64_t elementBytes = 2;                // of A and B (4: f32 at TF32 precision)
  /// 8-bit A and B without fast_accumulation: the tensor cores' sums must be promoted into
  /// f32 accumulators (a configuration with promote > 0).
  bool promotesSums = false;
  /// a_block_scales and b_block_scales: each promotion scales its k-step's sums per row of A
  /// and per 128 columns of B.
  bool blockScales = false;
  /// f32 A and B at f32 precision (no fast_tf32): the producer warpgroup's other warps split
  /// each stage's elements into TF32 parts in shared memory and the consumers sum three
  /// products of them (3xTF32, as the runtime's pre-pass does; Sm90SharedLayout::splitLo).
  bool splitsTf32 = false;
  bool aSums = false, bSums = false;       // operand sums (a_sums, b_sums)
  bool reductions = false;                 // declared row/column/scalar reductions
  bool dFromRegisters = false; // the epilog writes D only, into a row-major D (store forms)
  bool dThroughTma = false;    // ... and TMA can address D's rows
  /// The epilog writes D only, into a static row-major D of rank 2 (any pitch): store = tma's
  /// line buffers, stored by TMA where dThroughTma, else by the consumer's threads.
  bool dThroughLines = false;
  int64_t dLineColumns = 0;    // elements of D in one 128-byte line
  std::string dType;           // D's type as diagnostics print it
  int64_t epilogScratchBytes = 0; // per consumer warpgroup (EpilogScratch.h)

  /// The problem of a mepi.matmul with static shapes.
  static Sm90Problem of(MatmulOp op);
  /// Whether `op` may write D through store = tma's line buffers (dThroughLines).
  static bool storesDThroughLines(MatmulOp op);
  bool operandSums() const { return aSums || bSums; }
  bool grouped() const { return groups > 0; }
  /// Bytes of an element of D (from its line: dLineColumns elements are 128 bytes); 0 where
  /// the line is not set.
  int64_t dElementBytes() const { return dLineColumns ? 128 / dLineColumns : 0; }
  /// The MMA atom of A and B (elementBytes is one the table has: Sm90Problem::of checks it).
  MmaAtom atom() const { return *MmaAtom::of(elementBytes); }
};

/// A stage's block scales in shared memory (f32): A's of the tile's rows, then B's of its (at
/// most two) blocks of 128 columns.
struct BlockScaleLayout {
  static constexpr int64_t kScaleBytes = 4;
  static int64_t bOffset(int64_t tileM) { return kScaleBytes * tileM; }
  static int64_t stageBytes(int64_t tileM) {
    return (bOffset(tileM) + 2 * kScaleBytes + 15) / 16 * 16;
  }
};

/// Byte offsets of a block's dynamic shared memory.
struct Sm90SharedLayout {
  int64_t aBytes = 0, bBytes = 0, stageBytes = 0; // one stage: A tile | B tile
  int64_t scales = 0, scaleStageBytes = 0; // block scales: one BlockScaleLayout per stage
  int64_t splitLo = 0;      // 3xTF32: each stage's low parts (A tile | B tile)
  int64_t ones = 0;         // the operand sums' tile of ones (after the stages)
  int64_t staging = 0;      // consumer 0's staging block for D
  int64_t scratch = 0;      // consumer 0's epilog scratch area
  int64_t scratchBytes = 0; // per consumer
  int64_t barriers = 0;     // full[stages] | empty[stages] mbarriers
  int64_t ready = 0;        // 3xTF32: ready[stages] (a stage split) after them, else 0
  int64_t flags = 0;        // split-K flags
  int64_t groupTable = 0;   // grouped: the group table (GroupTable.h), 16-byte aligned
  int64_t total = 0;        // with the slack that aligns the dynamic base to 1024 bytes
};

class Sm90Spec {
public:
  Sm90Spec(const Sm90Problem &problem, KernelConfigAttr config, const TargetInfo &target)
      : p(problem), config(config), target(target) {}

  const Sm90Problem &problem() const { return p; }
  KernelConfigAttr getConfig() const { return config; }
  const TargetInfo &getTarget() const { return target; }

  // Roles: what depends on the configuration alone.
  /// Consumer warpgroups: one per 64-row slice (two for a 256-row tile, which gives each two),
  /// two ping-pong ones, or one per 64 columns of D when swapped.
  static int64_t consumers(KernelConfigAttr config);
  /// The registers a thread of the producer and of each consumer keeps (setmaxnreg), within
  /// the multiprocessor's 64 K for one block: 40 and 232 beside one or two consumers, 24 and
  /// 160 beside three.
  static std::pair<int64_t, int64_t> registerSplit(KernelConfigAttr config) {
    return consumers(config) > 2 ? std::pair<int64_t, int64_t>{24, 160}
                                 : std::pair<int64_t, int64_t>{40, 232};
  }
  static int64_t threads(KernelConfigAttr config) {
    return sm90::kWarpgroup * (1 + consumers(config));
  }
  /// 64-row slices of a tile (one wgmma m64 each); a consumer computes one, or all (ping-pong).
  static int64_t rowSlices(KernelConfigAttr config);
  static int64_t slicesPerConsumer(KernelConfigAttr config);
  /// f32 accumulators per thread of a slice: 64 x tile_n, or 64 x tile_m swapped.
  static int64_t registers(KernelConfigAttr config);
  /// Promoted accumulators of a consumer of several slices (256-row tiles): where a second set
  /// for all of them would not fit (kMaxPromotedAccumulators), the tensor cores' sums of one
  /// slice at a time are issued, waited for and added, slice after slice, from the same stage.
  static bool promotesBySlice(KernelConfigAttr config) {
    int64_t slices = slicesPerConsumer(config);
    return config.getMainloop().getPromote() > 0 && slices > 1 &&
           2 * slices * registers(config) > sm90::kMaxPromotedAccumulators;
  }
  /// Accumulator registers per consumer thread: the slices' (and, promoted, the tensor cores'
  /// sums of one slice by slice, else of every slice).
  static int64_t accumulatorRegisters(KernelConfigAttr config) {
    int64_t slices = slicesPerConsumer(config), promoted = 0;
    if (config.getMainloop().getPromote() > 0)
      promoted = promotesBySlice(config) ? 1 : slices;
    return (slices + promoted) * registers(config);
  }
  /// Rows of B each consumer sums for b_sums: an even share in 64-row groups, or all of them
  /// (consumer 0) when a share would be less than 64.
  static int64_t bSumRows(KernelConfigAttr config);
  /// The blocks of a cluster along M (tile rows sharing B's tile) and along N (tile columns
  /// sharing A's): (cluster, 1) with multicast = b, (1, cluster) with multicast = a,
  /// (kClusterRowsAB, cluster / kClusterRowsAB) with multicast = ab. Block r of a cluster
  /// computes tile (r % rows, r / rows) of it.
  static constexpr int64_t kClusterRowsAB = 2;
  static int64_t clusterRows(KernelConfigAttr config);
  static int64_t clusterColumns(KernelConfigAttr config);
  int64_t consumers() const { return consumers(config); }
  int64_t threads() const { return threads(config); }
  int64_t rowSlices() const { return rowSlices(config); }
  int64_t registers() const { return registers(config); }

  // Work units.
  /// Tile rows of D; grouped, at most the groups' tile rows all together, ceil(T / tile_m) +
  /// S (each group's last tile may be partial), which the grid and the walk are sized for.
  int64_t tilesM() const;
  int64_t tilesN() const;
  int64_t tiles() const { return tilesM() * tilesN(); }
  int64_t kSteps() const;
  /// Work units of one batch element: (tile, split) pairs, or a cluster's pair units of two
  /// tile rows (or two tile columns).
  int64_t unitsPerBatch() const;
  /// The tiles of one batch element as the units walk them: tiles, or a cluster's pair units
  /// (unitsPerBatch without the splits).
  int64_t tileUnitsPerBatch() const;
  /// Work units of the grid: those of every batch element, batch element by batch element.
  int64_t workUnits() const { return p.batch * unitsPerBatch(); }
  /// Walkers (blocks, or clusters) a persistent grid can use: one per work unit, or under
  /// stream-K one per kMinStreamKSteps of all the units' k-steps, so that fewer units than
  /// multiprocessors still spread over all of them.
  int64_t walkers() const;
  /// Blocks a persistent grid launches on `multiprocessors` SMs (or `clusters` clusters): one
  /// per walker at most.
  int64_t gridBlocks(int64_t multiprocessors, int64_t clusters) const;
  /// Stream-K keeps a counter and two records per walker block, for the target's
  /// multiprocessors; walkers beyond them stay idle.
  int64_t streamKMaxBlocks() const { return target.multiprocessors; }
  /// Stream-K without clusters for the device's own multiprocessors: the walkers the runtime
  /// launches (min(walkers(), multiprocessors)), known when the kernel is generated, so that
  /// the walk is constants. Computed from gridDim otherwise, the walk went through the float
  /// reciprocal of emitDivRem, which kept the unit loop's k-step counts and the consumers'
  /// stage counter off the uniform datapath: each k-step then moved its descriptors with
  /// R2UR, and the stream-K kernel ran 3.5-4.6 % slower than the whole-unit one even where no
  /// unit is shared (H100, FP8 3840 x 4224 x 7168, bench/NOTES.md).
  std::optional<int64_t> fixedStreamKWalkers() const;
  /// Stream-K with a fixed walk: into how many ranges of its own the walk cuts each unit of the
  /// last wave, where each can take two or more of kMinStreamKSteps k-steps or more (0: the last
  /// wave's k-steps are cut end to end into equal ranges, which may cross from one unit into
  /// the next). A crossing range pays a second pipeline fill, record and sum for its few
  /// k-steps, and each shared unit's sum waits for its slowest range (bench/NOTES.md, "Split-K
  /// and stream-K").
  int64_t streamKPieces() const;

  // Operand sums.
  /// On the tensor cores (wgmmas by a tile of ones) in the 64-row kernels of short M, which
  /// wait on memory; by the consumer threads elsewhere (bench/NOTES.md).
  bool sumsOnTensorCores() const;
  /// Block scales staged in shared memory by the producer (BlockScales.h) where a k-step's
  /// wgmmas are short (tile_n up to 128: ~300 ns or less, under a load from DRAM); wider tiles'
  /// consumers load theirs a k-step ahead (measured faster there: bench/NOTES.md).
  bool stagesBlockScales() const { return p.blockScales && config.getTileN() <= 128; }
  /// f32 values per thread of one 64-row group's combined sums.
  static int64_t sumValuesPerGroup(bool onTensorCores, bool mnMajor) {
    return onTensorCores ? 4 : mnMajor ? 8 : 1;
  }
  /// Per-thread partial operand sums (a_sums' then b_sums').
  int64_t operandSumValues() const;

  // Shared memory.
  /// TMA store buffers per consumer (store = tma; the epilogue's `buffers`), written line
  /// after line in turn; 0 for other stores.
  int64_t tmaStoreBuffers() const;
  /// Whether D's TMA stores carry L2's evict-first policy: where one matrix of D is at least
  /// L2's size and the main loop at most kStreamsDKSteps long. D's lines are written once and
  /// not read again by the kernel; without the policy they evict the operands' lines, which
  /// the later tiles of the matrix then read again from DRAM, and short main loops are bound
  /// by those DRAM bytes. Where D fits, a later kernel may read it from L2 (and the policy
  /// cost µs problems ~1 %); over longer main loops it gained nothing measurable; a batch
  /// element's tiles read its operands within a wave or two, and batches of small matrices
  /// lost with it.
  bool streamsD() const;
  static constexpr int64_t kStreamsDKSteps = 4;
  /// One consumer's staging block for D: padded f32 rows (staged), none (registers), its TMA
  /// store buffers (tma).
  int64_t stagingBytes() const;
  /// Rows of D's TMA store box: a slice's 64, or in the swapped form the largest that divides
  /// both its height and 64 (its 64-row buffers hold up to 64 of the tile's rows, and a box
  /// must not reach into the next tile row, which another block writes).
  int64_t dStoreBoxRows() const;
  Sm90SharedLayout sharedLayout() const;
  bool fitsSharedMemory() const { return sharedLayout().total <= target.sharedBytesPerBlock; }

  // Workspace: split-K / stream-K counters and partials (the reductions' follow, Reductions.h).
  bool needsWorkspace() const;
  /// How the units that share a tile sum their records (SplitReduction.cpp): the last to
  /// arrive sums them all; a stream-K piece that waits for the others (pieces of their own,
  /// streamKPieces); or split-K's pairs meeting up a binary tree (SplitTreeSum.cpp).
  enum class SplitSum { LastArrival, Finisher, Tree };
  SplitSum splitSum() const;
  /// Split-K records per counter slot: the splits, or two (stream-K's shared units).
  int64_t recordsPerSlot() const;
  /// Counters per slot: one, or a tree's nodes (the splits less one).
  int64_t countersPerSlot() const;
  /// Counter slots (each times the consumers): the tiles of every batch element (in clusters,
  /// the blocks of every pair unit), or stream-K's walker blocks.
  int64_t counterSlots() const;
  int64_t counterBytes() const;
  /// f32 values per thread in a split-K record: the accumulators, then the partial operand
  /// sums padded to float4.
  int64_t splitRecordFloats() const;
  int64_t splitKBytes() const;

  /// Why the configuration cannot run the problem on the target, or none where it can. The
  /// message completes "<op> ..." (lowercase, expected ..., got ...).
  std::optional<std::string> whyNot() const;
  bool canImplement() const { return !whyNot(); }

private:
  Sm90Problem p;
  KernelConfigAttr config;
  TargetInfo target;
};

} // namespace mlir::mepi

#endif // MEPI_SM90_SM90SPEC_H
