// Sm90Spec::whyNot: whether a wgmma configuration can run a problem on a target, with the reason
// where it cannot (the generator reports it as the op's error; the heuristic skips the
// configuration).
#include "mepi/IR/BlockScaling.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::sm90;

namespace {
/// The store form's needs: an epilog that writes D only, and for TMA stores lines of D (whole
/// 128-byte lines of the tile) that TMA stores or, in a rank-2 D whose rows it cannot address,
/// the consumer's threads.
std::optional<std::string> whyNotStore(const Sm90Problem &p, KernelConfigAttr config) {
  std::string message;
  llvm::raw_string_ostream os(message);
  DStore store = config.getEpilogue().getStore();
  bool lines = store == DStore::Tma && p.dThroughLines;
  if (store != DStore::Staged && !p.dFromRegisters && !lines) {
    os << "store = " << stringifyDStore(config.getEpilogue().getStore())
       << " needs an epilog that writes D only (no aux output, no reduction) into a static "
          "row-major D; use store = staged";
    return message;
  }
  if (config.getEpilogue().getStore() != DStore::Tma)
    return std::nullopt;
  if (!p.dThroughTma && !p.dThroughLines) {
    os << "store = tma needs a bf16, f16 or f32 D with rows of a multiple of 16 bytes at a "
          "16-byte aligned address, or a rank-2 row-major one without mirrors, got "
       << p.dType;
    return message;
  }
  // Swapped, the lines are D's columns: stmatrix.trans and TMA stores only.
  if (!p.dThroughTma && config.getSwapped()) {
    os << "store = tma in the swapped form needs a bf16, f16 or f32 D with rows of a multiple "
          "of 16 bytes at a 16-byte aligned address, got "
       << p.dType;
    return message;
  }
  // No check of tile_n: whole 128-byte lines but for a narrower last line, which the threads
  // store (WgmmaRegisterEpilog.cpp); the epilog's 32-column steps (unswapped) and the swapped
  // form's 64 or 128 columns leave that line whole 32-byte units.
  // Swapped: each consumer's 64 columns are one 128-byte line, written 16 rows at a time
  // (stmatrix.trans of two 8-row groups).
  if (config.getSwapped() && (p.dLineColumns != kSliceRows || config.getTileM() % 16 != 0)) {
    os << "store = tma in the swapped form needs a 16-bit D and tile_m a multiple of 16, got "
       << p.dType << " and tile_m " << config.getTileM();
    return message;
  }
  return std::nullopt;
}

/// What the consumer and scheduler forms (swapped, ping-pong, stream-K) take of the epilog.
std::optional<std::string> whyNotConsumerForm(const Sm90Spec &spec) {
  const Sm90Problem &p = spec.problem();
  KernelConfigAttr config = spec.getConfig();
  std::string message;
  llvm::raw_string_ostream os(message);
  if (config.getSwapped()) {
    // B's rows are the wgmmas' m side, which reads a 16-bit tile transposed as well (as an
    // MN-major A's slices); A's rows are their n side, and 8-bit and TF32 wgmmas read
    // K-major operands only.
    if (p.mnMajorA || (p.mnMajorB && p.elementBytes != 2) || !config.getMainloop().getTma())
      return std::string("swapped wgmma kernels need K-major A (A as [M, K]) and, unless 16-bit, "
                         "K-major B (B as [N, K]), read through TMA");
    if (p.operandSums() || p.reductions)
      return std::string("swapped wgmma kernels take element-wise epilogs only (no operand "
                         "sums or reductions)");
  }
  if (config.getMainloop().getPingpong() && p.operandSums())
    return std::string("ping-pong wgmma kernels take no operand sums (a_sums, b_sums); use the "
                       "cooperative kernel");
  if (config.getScheduler().isStreamK() && spec.workUnits() * spec.kSteps() >= kMaxStreamKSteps) {
    os << "stream-K wgmma kernels need fewer than 2^22 k-steps in all (work units x k-steps), "
          "got "
       << spec.workUnits() << " x " << spec.kSteps();
    return message;
  }
  if (config.getScheduler().isStreamK() && (p.operandSums() || p.reductions))
    return std::string("stream-K wgmma kernels take no operand sums (a_sums, b_sums) or "
                       "reductions; use splits");
  return std::nullopt;
}

/// What batched and grouped problems take of the scheduler and the loads.
std::optional<std::string> whyNotBatchedOrGrouped(const Sm90Spec &spec) {
  const Sm90Problem &p = spec.problem();
  KernelConfigAttr config = spec.getConfig();
  std::string message;
  llvm::raw_string_ostream os(message);
  // Batched: the tile scheduler walks every batch element's units; the operand tiles come in
  // through TMA (a coordinate per batch dimension), and the epilog sees each element's views.
  if (p.batched &&
      (!config.getMainloop().getTma() || config.getScheduler().isStreamK() || config.getSwapped()))
    return std::string("batched wgmma kernels need TMA loads and take no stream-K or swapped "
                       "form");
  // Grouped: each group's tiles start at its own row and read its own matrix of B (a TMA
  // coordinate); D's rows past a group's end belong to the next group, so a TMA store (which
  // clips at D's end only) takes the 64-row slices wholly inside their group, and threads
  // store the others with the group's bound. A cluster's blocks share A's tile along N only:
  // they hold one tile row, so one group (vertically adjacent tiles may not).
  if (p.grouped() && (!config.getMainloop().getTma() || !config.getScheduler().isDataParallel() ||
                      config.getSwapped() ||
                      (config.getMainloop().getCluster() > 1 && Sm90Spec::clusterRows(config) > 1)))
    return std::string("grouped wgmma kernels need TMA loads and take no split-K, stream-K, "
                       "swapped form or clusters sharing B (multicast = a only)");
  // A given as [K, T] (MN-major) in a grouped kernel: its TMA loads stopped every block with an
  // illegal instruction on the H200 (torch._grouped_mm's 3-D x 2-D with B as [K, N], whose
  // transposed problem reads B as A; the cause is not found yet).
  if (p.grouped() && p.mnMajorA)
    return std::string("grouped wgmma kernels read A K-major only (A as [T, K]) for now");
  if (p.grouped() && spec.workUnits() >= kMaxApproxDividend) {
    os << "grouped wgmma kernels walk fewer than " << kMaxApproxDividend
       << " work units (tile rows of all groups x tile columns), got " << spec.workUnits();
    return message;
  }
  // Grouped along K: each unit's k-steps are its group's, and the k-steps at a group's ends
  // are masked in shared memory by the consumers that read them (KGroupMask.h), so units run
  // whole, one block each, with 16-bit operands.
  if (p.kGroups && (!config.getMainloop().getTma() || !config.getScheduler().isDataParallel() ||
                    config.getSwapped() || config.getMainloop().getCluster() > 1 ||
                    config.getMainloop().getPromote() > 0 || p.elementBytes != 2))
    return std::string("wgmma kernels grouped along k need 16-bit operands, TMA loads and "
                       "whole units without split-K, stream-K, swapped form, clusters or "
                       "promoted accumulators");
  if (p.batched && (p.operandSums() || p.reductions))
    return std::string("batched wgmma kernels take no operand sums or reductions yet");
  return std::nullopt;
}

/// What the tile and the accumulator policy take of the operands (sums, 8-bit promotion,
/// block scales) and of K (the splits).
std::optional<std::string> whyNotAccumulation(const Sm90Spec &spec) {
  const Sm90Problem &p = spec.problem();
  KernelConfigAttr config = spec.getConfig();
  std::string message;
  llvm::raw_string_ostream os(message);
  if (config.getTileM() == 256 && p.operandSums())
    return std::string("256-row wgmma tiles take no operand sums (a_sums, b_sums); use 128 rows");
  // The tensor cores sum 8-bit products with about 14 significant bits: without
  // fast_accumulation their sums go into f32 registers every `promote` k-steps.
  if (p.promotesSums && config.getMainloop().getPromote() == 0)
    return std::string("8-bit A and B without fast_accumulation need promoted accumulators "
                       "(promote > 0)");
  // Block scales: a promotion per 128-element block of K (one k-step: the 8-bit tile_k), and
  // a tile's columns in at most two blocks of B's scales: tile_n dividing 128, or a multiple
  // of 64 up to 256 (its tiles start at multiples of 64).
  int64_t tileN = config.getTileN();
  bool twoBlocksAtMost = kScaleBlockElements % tileN == 0 || (tileN % 64 == 0 && tileN <= 256);
  if (p.blockScales &&
      (config.getMainloop().getPromote() != 1 || config.getTileK() != kScaleBlockElements ||
       !twoBlocksAtMost || config.getSwapped() || config.getMainloop().getPingpong() ||
       !config.getMainloop().getTma())) {
    os << "block scales need promote = 1 over k-steps of " << kScaleBlockElements
       << " elements and tile_n dividing " << kScaleBlockElements
       << " or a multiple of 64 up to 256 (not swapped, not ping-pong, TMA loads), got "
       << config;
    return message;
  }
  if (config.getMainloop().getPromote() > 0 &&
      Sm90Spec::accumulatorRegisters(config) > kMaxPromotedAccumulators) {
    os << "promoted accumulators take at most " << kMaxPromotedAccumulators
       << " registers a thread (both sets), got " << Sm90Spec::accumulatorRegisters(config)
       << " for " << config;
    return message;
  }
  // By slice, each slice's sums are added once its wgmmas of the stage are done.
  if (Sm90Spec::promotesBySlice(config) && config.getMainloop().getPromote() != 1) {
    os << "promoted accumulators held one slice at a time need promote = 1, got " << config;
    return message;
  }
  // The promoted accumulators take the registers the operand sums' fragments would.
  if (config.getMainloop().getPromote() > 0 && p.operandSums())
    return std::string("promoted wgmma accumulators take no operand sums (a_sums, b_sums)");
  // The sums add 64-row blocks of a stage tile (one 128-byte line of K each).
  if (p.bSums && config.getTileN() % kBlockRows != 0) {
    os << "b_sums add 64-row blocks of B's stage tile: expected tile_n a multiple of 64, got "
       << config.getTileN();
    return message;
  }
  // Each consumer sums whole 64-row blocks of its share of the tile's columns (bSumRows): 192
  // columns would split into 96-row shares.
  if (p.bSums && Sm90Spec::bSumRows(config) % kBlockRows != 0) {
    int64_t consumers = Sm90Spec::consumers(config);
    os << "b_sums give each of the " << consumers
       << " consumers an equal share of B's stage tile in 64-row blocks: expected tile_n / "
       << consumers << " a multiple of 64, got tile_n " << config.getTileN();
    return message;
  }
  if (config.getScheduler().getSplits() > spec.kSteps()) {
    os << "expected at most " << spec.kSteps() << " splits (one k-step of " << config.getTileK()
       << " each), got " << config.getScheduler().getSplits();
    return message;
  }
  return std::nullopt;
}

/// The tile's shape against what the epilog stages (32 columns at a time) and what MN-major
/// operands load (64-row blocks, those of a shared tile split among the cluster).
std::optional<std::string> whyNotTileShape(const Sm90Problem &p, KernelConfigAttr config) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (config.getTileN() % kChunkColumns != 0) {
    os << "expected tile_n a multiple of 32 for the wgmma epilog (it stages 32 columns at a "
          "time), got "
       << config.getTileN();
    return message;
  }
  // A K-major operand's shared tile is split among the blocks sharing it: tile_m (64 to 256)
  // over at most 4 and tile_n (a multiple of 32) over 2 leave whole 8-line swizzle atoms each.
  int64_t rowsB = Sm90Spec::clusterRows(config), columnsA = Sm90Spec::clusterColumns(config);
  // An MN-major operand loads 64-row blocks: those of a shared tile split among the cluster.
  if (p.mnMajorB && config.getTileN() % (kBlockRows * rowsB) != 0) {
    os << "expected tile_n a multiple of " << kBlockRows * rowsB
       << " for a B given as [K, N] (it loads 64-row blocks"
       << (rowsB > 1 ? ", an equal share per block of its cluster column" : "") << "), got "
       << config.getTileN();
    return message;
  }
  if (p.mnMajorA && config.getTileM() % (kBlockRows * columnsA) != 0) {
    os << "expected tile_m a multiple of " << kBlockRows * columnsA
       << " for an A given as [K, M] in a cluster (it loads 64-row blocks, an equal share per "
          "block of its cluster row), got "
       << config.getTileM();
    return message;
  }
  return std::nullopt;
}

/// What the kernel forms (swapped, ping-pong, stream-K, batched, grouped, 256-row tiles,
/// promoted accumulators) take of the problem, checked in that order.
std::optional<std::string> whyNotForm(const Sm90Spec &spec) {
  if (std::optional<std::string> why = whyNotConsumerForm(spec))
    return why;
  if (std::optional<std::string> why = whyNotBatchedOrGrouped(spec))
    return why;
  return whyNotAccumulation(spec);
}
} // namespace

std::optional<std::string> Sm90Spec::whyNot() const {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (config.getStrategy() != KernelStrategy::Wgmma || !target.hasWgmma()) {
    os << "expected a wgmma configuration on sm_90a, got " << target.chip;
    return message;
  }
  // TMA coordinates and the kernel's row, column and work-unit indices are 32-bit signed.
  if (std::max({p.m, p.n, p.k}) > kMaxIndex) {
    os << "wgmma kernels take M, N and K of at most 2^31 - 1 (32-bit TMA coordinates and "
          "indices), got "
       << p.m << " x " << p.n << " x " << p.k;
    return message;
  }
  if (workUnits() > kMaxIndex) {
    os << "wgmma kernels walk at most 2^31 - 1 work units (32-bit indices), got " << workUnits();
    return message;
  }
  std::optional<MmaAtom> atom = MmaAtom::of(p.elementBytes);
  if (!atom) {
    os << "expected A and B of 1, 2 or 4 bytes an element for wgmma, got " << p.elementBytes;
    return message;
  }
  // A stage holds one 128-byte swizzled line of K per row.
  if (config.getTileK() != atom->lineElements()) {
    os << "expected tile_k " << atom->lineElements() << " for " << p.elementBytes * 8
       << "-bit A and B (one 128-byte line), got " << config.getTileK();
    return message;
  }
  if (!atom->transposable && (p.mnMajorA || p.mnMajorB))
    return std::string("wgmma reads 32-bit (tf32) and 8-bit A and B K-major only (A as [M, "
                       "K], B as [N, K])");
  if (p.elementBytes != 2 && (!config.getMainloop().getTma() || p.operandSums()))
    return std::string("tf32 and 8-bit wgmma kernels need TMA loads and take no operand sums");
  // Swapped, an 8-bit kernel's accumulator rows are D's columns: the block scales' factors
  // (per row of A, per 128 columns of B) are applied by row slices only.
  if (config.getSwapped() && (p.elementBytes == 4 || p.blockScales))
    return std::string("swapped wgmma kernels take 16-bit or 8-bit A and B without block "
                       "scales");
  // 3xTF32: the split stage's low parts are not masked to a group's rows or k-steps.
  if (p.splitsTf32 && (p.grouped() || p.kGroups)) {
    os << "f32 A and B at f32 precision (split into TF32 parts in shared memory) take no "
          "groups; got "
       << config;
    return message;
  }
  if (std::optional<std::string> why = whyNotTileShape(p, config))
    return why;
  int64_t cluster = config.getMainloop().getCluster();
  if (int64_t bytes = sharedLayout().total; !fitsSharedMemory()) {
    os << "needs " << bytes << " bytes of shared memory for " << config.getMainloop().getStages()
       << " stages and the epilog, more than the " << target.sharedBytesPerBlock
       << " a block can have; use fewer stages";
    return message;
  }
  if (cluster > target.maxClusterSize) {
    os << "expected a cluster of at most " << target.maxClusterSize << " blocks, got " << cluster;
    return message;
  }
  if (std::optional<std::string> why = whyNotStore(p, config))
    return why;
  return whyNotForm(*this);
}
