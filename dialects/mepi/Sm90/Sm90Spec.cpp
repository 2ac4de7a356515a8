// Sm90Spec's arithmetic (see Sm90Spec.h).
#include "mepi/Sm90/Sm90Spec.h"

#include <cstdlib>
#include "mepi/Sm90/PersistentGrid.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::sm90;

std::optional<MmaAtom> MmaAtom::of(int64_t elementBytes) {
  switch (elementBytes) {
  case 1:
    return MmaAtom{32, 1, false};
  case 2:
    return MmaAtom{16, 2, true};
  case 4:
    return MmaAtom{8, 4, false};
  }
  return std::nullopt;
}

int64_t Sm90Spec::consumers(KernelConfigAttr config) {
  if (config.getSwapped()) // one per 64 columns of D (rows of B)
    return config.getTileN() / 64;
  if (config.getMainloop().getPingpong() || config.getTileM() == 256)
    return 2;
  return config.getTileM() / kSliceRows;
}

int64_t Sm90Spec::rowSlices(KernelConfigAttr config) {
  return config.getSwapped() ? 1 : config.getTileM() / kSliceRows;
}

int64_t Sm90Spec::slicesPerConsumer(KernelConfigAttr config) {
  if (config.getSwapped())
    return 1;
  return rowSlices(config) / (config.getMainloop().getPingpong() ? 1 : consumers(config));
}

int64_t Sm90Spec::registers(KernelConfigAttr config) {
  return (config.getSwapped() ? config.getTileM() : config.getTileN()) / 2;
}

int64_t Sm90Spec::clusterRows(KernelConfigAttr config) {
  MainloopConfigAttr mainloop = config.getMainloop();
  switch (mainloop.getMulticast()) {
  case Multicast::B:
    return mainloop.getCluster();
  case Multicast::A:
    return 1;
  case Multicast::AB:
    return kClusterRowsAB;
  }
  llvm_unreachable("multicast");
}

int64_t Sm90Spec::clusterColumns(KernelConfigAttr config) {
  return config.getMainloop().getCluster() / clusterRows(config);
}

int64_t Sm90Spec::bSumRows(KernelConfigAttr config) {
  int64_t tileN = config.getTileN(), share = tileN / consumers(config);
  return share >= kBlockRows ? share : tileN;
}

int64_t Sm90Spec::tilesM() const {
  return llvm::divideCeil(p.m, config.getTileM()) + p.groups;
}
int64_t Sm90Spec::tilesN() const { return llvm::divideCeil(p.n, config.getTileN()); }
int64_t Sm90Spec::kSteps() const { return llvm::divideCeil(p.k, config.getTileK()); }

int64_t Sm90Spec::tileUnitsPerBatch() const {
  return llvm::divideCeil(tilesM(), clusterRows(config)) *
         llvm::divideCeil(tilesN(), clusterColumns(config));
}

int64_t Sm90Spec::unitsPerBatch() const {
  return tileUnitsPerBatch() * config.getScheduler().getSplits();
}

int64_t Sm90Spec::walkers() const {
  int64_t units = workUnits();
  if (!config.getScheduler().isStreamK())
    return units;
  return std::max(units, units * kSteps() / kMinStreamKSteps);
}

std::optional<int64_t> Sm90Spec::fixedStreamKWalkers() const {
  if (!config.getScheduler().isStreamK() || config.getMainloop().getCluster() > 1 ||
      !target.deviceSized)
    return std::nullopt;
  return std::min(walkers(), streamKMaxBlocks());
}

int64_t Sm90Spec::streamKPieces() const {
  std::optional<int64_t> grid = fixedStreamKWalkers();
  int64_t tail = grid ? workUnits() % *grid : 0;
  if (tail == 0)
    return 0;
  int64_t pieces = std::min(*grid / tail, kSteps() / kMinStreamKSteps);
  return pieces >= 2 ? pieces : 0;
}

int64_t Sm90Spec::gridBlocks(int64_t multiprocessors, int64_t clusters) const {
  return sm90::persistentGridBlocks(walkers(), config.getMainloop().getCluster(), multiprocessors,
                                    clusters);
}

bool Sm90Spec::sumsOnTensorCores() const {
  return p.operandSums() && config.getTileM() == 64 && !config.getSwapped();
}

int64_t Sm90Spec::operandSumValues() const {
  int64_t values = 0;
  if (p.aSums)
    values += sumValuesPerGroup(sumsOnTensorCores(), p.mnMajorA);
  if (p.bSums)
    values += bSumRows(config) / kBlockRows * sumValuesPerGroup(sumsOnTensorCores(), p.mnMajorB);
  return values;
}

int64_t Sm90Spec::dStoreBoxRows() const {
  return config.getSwapped() ? std::gcd(config.getTileM(), kSliceRows) : kSliceRows;
}

int64_t Sm90Spec::tmaStoreBuffers() const {
  return config.getEpilogue().getStore() == DStore::Tma ? config.getEpilogue().getBuffers() : 0;
}

bool Sm90Spec::streamsD() const {
  const Sm90Problem &p = problem();
  return kSteps() <= kStreamsDKSteps && p.m * p.n * p.dElementBytes() >= target.l2Bytes;
}

int64_t Sm90Spec::stagingBytes() const {
  switch (config.getEpilogue().getStore()) {
  case DStore::Staged:
    return kSliceRows * kStagingPitch * 4;
  case DStore::Registers:
    return 0;
  case DStore::Tma:
    return tmaStoreBuffers() * kTmaStoreBufferBytes;
  }
  return 0;
}

Sm90SharedLayout Sm90Spec::sharedLayout() const {
  Sm90SharedLayout l;
  l.aBytes = config.getTileM() * kSwizzleBytes;
  l.bBytes = config.getTileN() * kSwizzleBytes;
  l.stageBytes = l.aBytes + l.bBytes;
  // The stages' block scales after them; the operand sums' tile of ones 1024-aligned after.
  l.scales = config.getMainloop().getStages() * l.stageBytes;
  l.scaleStageBytes = stagesBlockScales() ? BlockScaleLayout::stageBytes(config.getTileM()) : 0;
  // 3xTF32: each stage's low parts beside it (the producer warpgroup's splitters fill stage
  // s's while the consumers read earlier stages), 1024-aligned for the swizzle.
  int64_t stages = config.getMainloop().getStages();
  l.splitLo = llvm::alignTo(l.scales + stages * l.scaleStageBytes, 1024);
  l.ones = llvm::alignTo(l.splitLo + (p.splitsTf32 ? stages * l.stageBytes : 0), 1024);
  l.staging = l.ones + (sumsOnTensorCores() ? kOnesTileBytes : 0);
  // The swapped form stores straight from the registers unless through TMA stores.
  DStore store = config.getEpilogue().getStore();
  l.scratch = l.staging + (config.getSwapped() && store != DStore::Tma
                               ? 0
                               : consumers() * stagingBytes());
  l.scratchBytes = p.epilogScratchBytes;
  l.barriers = l.scratch + consumers() * l.scratchBytes;
  // Two 8-byte mbarriers per stage (3xTF32: a third, the stage split), one split-K flag per
  // consumer, plus slack to align the dynamic base to 1024 bytes.
  l.ready = p.splitsTf32 ? l.barriers + 16 * stages : 0;
  l.flags = l.barriers + (p.splitsTf32 ? 24 : 16) * stages;
  l.groupTable = l.flags + 16;
  l.total = l.groupTable + (p.grouped() ? llvm::alignTo(groupTableBytes(p.groups), 16) : 0) +
            1024;
  return l;
}

bool Sm90Spec::needsWorkspace() const {
  return !config.getScheduler().isDataParallel() || p.reductions;
}

int64_t Sm90Spec::recordsPerSlot() const {
  return config.getScheduler().isStreamK() ? 2 : config.getScheduler().getSplits();
}

int64_t Sm90Spec::counterSlots() const {
  // Split-K in clusters: a slot per block of each pair unit, the pairs' tiles below D included.
  return config.getScheduler().isStreamK()
             ? streamKMaxBlocks()
             : p.batch * tileUnitsPerBatch() * config.getMainloop().getCluster();
}

/// Split-K sums up a tree from this many splits, in tiles of two consumers (not swapped): a
/// level's count, wait and fences cost about as much as the last arrival's read of several
/// records, so the tree gains only where the last arrival reads many, and reads them for both
/// consumers through one SM (bench/NOTES.md, Split-K: narrower and swapped tiles, or fewer
/// splits, lost with it).
constexpr int64_t kTreeMinSplits = 11;

Sm90Spec::SplitSum Sm90Spec::splitSum() const {
  if (config.getScheduler().isStreamK())
    return streamKPieces() >= 2 ? SplitSum::Finisher : SplitSum::LastArrival;
  bool tree = !config.getSwapped() && consumers() >= 2 &&
              config.getScheduler().getSplits() >= kTreeMinSplits;
  return tree ? SplitSum::Tree : SplitSum::LastArrival;
}

int64_t Sm90Spec::countersPerSlot() const {
  return splitSum() == SplitSum::Tree ? config.getScheduler().getSplits() - 1 : 1;
}

int64_t Sm90Spec::counterBytes() const {
  return llvm::alignTo(counterSlots() * consumers() * countersPerSlot() * 4, kWorkspaceAlignment);
}

int64_t Sm90Spec::splitRecordFloats() const {
  return registers() + llvm::alignTo(operandSumValues(), 4);
}

int64_t Sm90Spec::splitKBytes() const {
  if (config.getScheduler().isDataParallel())
    return 0;
  return counterBytes() +
         counterSlots() * recordsPerSlot() * consumers() * kWarpgroup * splitRecordFloats() * 4;
}
