// Sm90Spec and TargetInfo: the Hopper kernel's sizes and the reasons a configuration cannot
// run a problem, checked as plain arithmetic (no IR is generated).
#include "mepi/IR/MepiDialect.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::mepi;

namespace {
struct Sm90SpecTest : ::testing::Test {
  Sm90SpecTest() { context.loadDialect<MepiDialect>(); }
  KernelConfigAttr wgmma(int64_t tileM, int64_t tileN, int64_t stages, int64_t tileK = 64) {
    return KernelConfigAttr::get(&context, KernelStrategy::Wgmma, tileM, tileN, tileK, stages);
  }
  /// A K-major bf16 problem that writes D only through a D TMA can address.
  static Sm90Problem problem(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
    Sm90Problem p;
    p.m = m, p.n = n, p.k = k, p.batch = batch;
    p.batched = batch > 1;
    p.dFromRegisters = p.dThroughTma = true;
    p.dLineColumns = 64;
    p.dType = "'memref<bf16>'";
    return p;
  }
  MLIRContext context;
  TargetInfo target = *TargetInfo::forChip("sm_90a");
};
} // namespace

TEST_F(Sm90SpecTest, TargetInfoOfTheReferencePartAndOverrides) {
  EXPECT_EQ(target.multiprocessors, 132);
  EXPECT_EQ(target.sharedBytesPerBlock, 227 * 1024);
  EXPECT_TRUE(target.hasWgmma());
  EXPECT_FALSE(TargetInfo::forChip("sm_80").has_value());
  EXPECT_EQ(TargetInfo::forChip("sm_90a", 114).multiprocessors, 114);
  EXPECT_EQ(TargetInfo::forChip("sm_90a", 0).multiprocessors, 132);
  EXPECT_FALSE(TargetInfo::forChip("sm_80", 0).hasWgmma());
}

TEST_F(Sm90SpecTest, MmaAtomsCoverThirtyTwoBytesOfK) {
  for (int64_t bytes : {1, 2, 4}) {
    MmaAtom atom = *MmaAtom::of(bytes);
    EXPECT_EQ(atom.kBytes(), 32) << bytes;
    EXPECT_EQ(atom.lineElements() * bytes, 128) << bytes;
    EXPECT_EQ(atom.transposable, bytes == 2) << bytes;
  }
  EXPECT_FALSE(MmaAtom::of(8).has_value());
}

TEST_F(Sm90SpecTest, RolesOfEachForm) {
  EXPECT_EQ(Sm90Spec::consumers(wgmma(128, 256, 4)), 2);
  EXPECT_EQ(Sm90Spec::consumers(wgmma(64, 128, 8)), 1);
  EXPECT_EQ(Sm90Spec::rowSlices(wgmma(256, 128, 4)), 4);
  EXPECT_EQ(Sm90Spec::slicesPerConsumer(wgmma(256, 128, 4)), 2);
  KernelConfigAttr pingpong = wgmma(128, 128, 4).withPingpong(true);
  EXPECT_EQ(Sm90Spec::consumers(pingpong), 2);
  EXPECT_EQ(Sm90Spec::slicesPerConsumer(pingpong), 2);
  KernelConfigAttr swapped = wgmma(32, 128, 2).withSwapped(true).withStages(12);
  EXPECT_EQ(Sm90Spec::consumers(swapped), 2);  // one per 64 columns of D
  EXPECT_EQ(Sm90Spec::registers(swapped), 16); // 64 x tile_m accumulators
  EXPECT_EQ(Sm90Spec::threads(wgmma(128, 256, 4)), 384);
}

TEST_F(Sm90SpecTest, WorkUnitsCountClustersSplitsAndBatches) {
  // 1000 x 1000: 8 x 4 tiles of 128 x 256; 4 pair units of rows in a cluster of 2.
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 1000), wgmma(128, 256, 4), target).workUnits(), 32);
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 1000), wgmma(128, 256, 4).withCluster(2), target)
                .workUnits(),
            16);
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 1000), wgmma(128, 256, 4).withSplits(3), target)
                .workUnits(),
            96);
  // Split-K in clusters: pair units times splits, a counter slot per block of each pair (5
  // tile rows of 64 make 3 pairs, the last one's second tile below D).
  Sm90Spec splitPairs(problem(300, 384, 5000), wgmma(64, 128, 8).withCluster(2).withSplits(6),
                      target);
  EXPECT_EQ(splitPairs.workUnits(), 3 * 3 * 6);
  EXPECT_EQ(splitPairs.counterSlots(), 3 * 3 * 2);
  EXPECT_EQ(Sm90Spec(problem(300, 384, 5000), wgmma(64, 128, 8).withSplits(6), target)
                .counterSlots(),
            5 * 3);
  // A cluster along N pairs tile columns: 64 x 3968 in 64 x 128 tiles is 31 tile columns, 16
  // pairs (the last one's second tile right of D), each of its splits a unit.
  KernelConfigAttr alongN = wgmma(64, 128, 6).withCluster(2, Multicast::A);
  EXPECT_EQ(Sm90Spec::clusterRows(alongN), 1);
  EXPECT_EQ(Sm90Spec::clusterColumns(alongN), 2);
  EXPECT_EQ(Sm90Spec::clusterRows(wgmma(64, 128, 6).withCluster(2)), 2);
  EXPECT_EQ(Sm90Spec(problem(64, 3968, 1024), alongN, target).workUnits(), 16);
  Sm90Spec splitColumns(problem(300, 3968, 5000), alongN.withSplits(4), target);
  EXPECT_EQ(splitColumns.workUnits(), 5 * 16 * 4);
  EXPECT_EQ(splitColumns.counterSlots(), 5 * 16 * 2);
  // An A given as [K, M] loads 64-row blocks: a 64-row tile has no half to share.
  Sm90Problem mnMajorA = problem(64, 3968, 1024);
  mnMajorA.mnMajorA = true;
  EXPECT_NE(Sm90Spec(mnMajorA, alongN, target).whyNot()->find("expected tile_m a multiple of 128"),
            std::string::npos);
  EXPECT_TRUE(Sm90Spec(mnMajorA, wgmma(128, 128, 6).withCluster(2, Multicast::A), target)
                  .canImplement());
  // Clusters sharing both operands: 2 tile rows by cluster / 2 tile columns. 330 x 1088 in
  // 128 x 64 tiles is 3 x 17 tiles, 2 x 5 units of 2 x 4; an A given as [K, M] needs each of
  // a row's 4 blocks to load whole 64-row blocks.
  KernelConfigAttr both = wgmma(128, 64, 8).withCluster(8, Multicast::AB);
  ASSERT_TRUE(both);
  EXPECT_EQ(Sm90Spec::clusterRows(both), 2);
  EXPECT_EQ(Sm90Spec::clusterColumns(both), 4);
  EXPECT_EQ(Sm90Spec::clusterColumns(wgmma(128, 64, 8).withCluster(4, Multicast::AB)), 2);
  EXPECT_EQ(Sm90Spec(problem(330, 1088, 1024), both, target).workUnits(), 2 * 5);
  Sm90Problem bothMnMajorA = problem(330, 1088, 1024);
  bothMnMajorA.mnMajorA = true;
  EXPECT_NE(Sm90Spec(bothMnMajorA, both, target).whyNot()->find("a multiple of 256"),
            std::string::npos);
  EXPECT_FALSE(wgmma(128, 64, 8).withCluster(8, Multicast::AB).withSplits(2));
  EXPECT_FALSE(wgmma(128, 64, 8).withCluster(2, Multicast::AB));
  Sm90Spec batched(problem(1000, 1000, 1000, 7), wgmma(128, 256, 4), target);
  EXPECT_EQ(batched.unitsPerBatch(), 32);
  EXPECT_EQ(batched.workUnits(), 224);
  // The grid: one block per unit at most, per multiprocessor (or cluster).
  EXPECT_EQ(batched.gridBlocks(132, 66), 132);
  EXPECT_EQ(Sm90Spec(problem(100, 100, 64), wgmma(128, 256, 4), target).gridBlocks(132, 66), 1);
  // Stream-K: a walker per 16 of the units' k-steps, so that fewer units than SMs still
  // spread: 1000 x 1000 x 8000 in 32 units of 125 k-steps offers 250 walkers (132 launched);
  // with K = 1000 (16 k-steps) one per unit.
  Sm90Spec longK(problem(1000, 1000, 8000), wgmma(128, 256, 4).withStreamk(true), target);
  EXPECT_EQ(longK.walkers(), 250);
  EXPECT_EQ(longK.gridBlocks(132, 66), 132);
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 1000), wgmma(128, 256, 4).withStreamk(true), target)
                .walkers(),
            32);
  // A walk of constants only for the device's own count (the runtime launches min(walkers,
  // multiprocessors) blocks) and without clusters (their count is the occupancy's).
  EXPECT_FALSE(target.deviceSized);
  EXPECT_EQ(longK.fixedStreamKWalkers(), std::nullopt);
  TargetInfo device = TargetInfo::forChip("sm_90a", 114);
  EXPECT_TRUE(device.deviceSized);
  KernelConfigAttr streamK = wgmma(128, 256, 4).withStreamk(true);
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 8000), streamK, device).fixedStreamKWalkers(), 114);
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 1000), streamK, device).fixedStreamKWalkers(), 32);
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 8000), streamK.withCluster(2), device)
                .fixedStreamKWalkers(),
            std::nullopt);
  EXPECT_EQ(Sm90Spec(problem(1000, 1000, 8000), wgmma(128, 256, 4), device).fixedStreamKWalkers(),
            std::nullopt);
}

TEST_F(Sm90SpecTest, StreamKCutsTheLastWavesUnitsIntoPiecesOfTheirOwn) {
  TargetInfo device = TargetInfo::forChip("sm_90a", 132);
  KernelConfigAttr streamK = wgmma(128, 128, 6).withStreamk(true);
  auto pieces = [&](int64_t m, int64_t n, int64_t k, const TargetInfo &t) {
    return Sm90Spec(problem(m, n, k), streamK, t).streamKPieces();
  };
  // 1792 x 1408: 154 tiles of 128 x 128 on 132 walkers, 22 in the last wave, six walkers for
  // each; K = 4096 (64 k-steps) takes four ranges of 16, K = 2048 two.
  EXPECT_EQ(pieces(1792, 1408, 4096, device), 4);
  EXPECT_EQ(pieces(1792, 1408, 2048, device), 2);
  // 28 k-steps hold one range of 16: the last wave's k-steps are cut end to end instead.
  EXPECT_EQ(pieces(1792, 1408, 1792, device), 0);
  // 256 tiles leave 124 units in the last wave: one walker each at most.
  EXPECT_EQ(pieces(2048, 2048, 8192, device), 0);
  // Whole waves only (12 x 11 = 132 tiles), and a walk worked out from the grid: no pieces.
  EXPECT_EQ(pieces(1536, 1408, 4096, device), 0);
  EXPECT_EQ(pieces(1792, 1408, 4096, target), 0);
}

TEST_F(Sm90SpecTest, SplitKSumsUpATreeInWideTilesOfManySplits) {
  using SplitSum = Sm90Spec::SplitSum;
  auto spec = [&](KernelConfigAttr config) {
    return Sm90Spec(problem(256, 256, 20000), config, target);
  };
  // 128 x 128 in 13 splits: a tree of 12 nodes a tile and consumer, its counters before the
  // records (4 tiles x 2 consumers x 12 x 4 bytes, padded to 256).
  Sm90Spec tree = spec(wgmma(128, 128, 6).withSplits(13));
  EXPECT_EQ(tree.splitSum(), SplitSum::Tree);
  EXPECT_EQ(tree.countersPerSlot(), 12);
  EXPECT_EQ(tree.counterBytes(), 512);
  EXPECT_EQ(tree.splitKBytes(), 512 + 4 * 13 * 2 * 128 * 64 * 4);
  // Fewer splits, one consumer (64 rows) or the swapped form: the last arrival sums, one
  // counter a slot.
  for (KernelConfigAttr config :
       {wgmma(128, 128, 6).withSplits(10), wgmma(64, 128, 8).withSplits(16),
        wgmma(80, 128, 8).withSwapped(true).withSplits(16)}) {
    EXPECT_EQ(spec(config).splitSum(), SplitSum::LastArrival);
    EXPECT_EQ(spec(config).countersPerSlot(), 1);
  }
  EXPECT_EQ(spec(wgmma(128, 128, 6).withStreamk(true)).splitSum(), SplitSum::LastArrival);
}

TEST_F(Sm90SpecTest, SharedMemoryLayoutAndItsLimit) {
  Sm90Spec spec(problem(4096, 4096, 4096), wgmma(128, 256, 4).withStore(DStore::Tma), target);
  Sm90SharedLayout l = spec.sharedLayout();
  EXPECT_EQ(l.stageBytes, (128 + 256) * 128);
  EXPECT_EQ(l.staging, 4 * l.stageBytes);
  EXPECT_EQ(l.scratch, l.staging + 2 * spec.stagingBytes());
  EXPECT_EQ(l.total, l.barriers + 16 * 4 + 16 + 1024);
  EXPECT_TRUE(spec.canImplement());
  Sm90Spec five(problem(4096, 4096, 4096), wgmma(128, 256, 5).withStore(DStore::Tma), target);
  EXPECT_FALSE(five.fitsSharedMemory());
  EXPECT_NE(five.whyNot()->find("more than the 232448 a block can have; use fewer stages"),
            std::string::npos)
      << *five.whyNot();
}

TEST_F(Sm90SpecTest, OneTmaStoreBufferLeavesRoomForAStage) {
  // Block-scaled 8-bit 256 x 128 promoted by slice: its staged scales leave 3 stages beside
  // two 8-KiB buffers a consumer, 4 beside one.
  Sm90Problem fp8 = problem(4096, 7168, 16384);
  fp8.elementBytes = 1;
  fp8.blockScales = fp8.promotesSums = true;
  KernelConfigAttr two = wgmma(256, 128, 4, 128).withPromote(1).withStore(DStore::Tma);
  KernelConfigAttr one = two.withTmaBuffers(1);
  ASSERT_TRUE(one);
  EXPECT_EQ(Sm90Spec(fp8, two, target).tmaStoreBuffers(), 2);
  EXPECT_EQ(Sm90Spec(fp8, one, target).tmaStoreBuffers(), 1);
  EXPECT_EQ(Sm90Spec(fp8, one, target).stagingBytes(), sm90::kTmaStoreBufferBytes);
  EXPECT_FALSE(Sm90Spec(fp8, two, target).fitsSharedMemory());
  EXPECT_TRUE(Sm90Spec(fp8, two.withStages(3), target).canImplement());
  EXPECT_TRUE(Sm90Spec(fp8, one, target).canImplement());
  EXPECT_EQ(Sm90Spec(fp8, two.withStore(DStore::Staged), target).tmaStoreBuffers(), 0);
  // Buffers belong to TMA stores: another store drops them.
  EXPECT_EQ(one.withStore(DStore::Staged).getEpilogue().getBuffers(), 2);
  EXPECT_FALSE(wgmma(256, 128, 4).withTmaBuffers(1));
}

TEST_F(Sm90SpecTest, DStreamsThroughL2WhereOneMatrixFillsItOverAShortMainLoop) {
  // One bf16 matrix of D of at least L2's size (50 MiB on the reference part: 6400 x 4096 x 2
  // bytes) over at most 4 k-steps takes the evict-first stores; a smaller D, a longer main
  // loop or a batch of small matrices does not.
  KernelConfigAttr config = wgmma(128, 256, 4).withStore(DStore::Tma);
  EXPECT_EQ(target.l2Bytes, 50 * 1024 * 1024);
  EXPECT_TRUE(Sm90Spec(problem(6400, 4096, 256), config, target).streamsD());
  EXPECT_FALSE(Sm90Spec(problem(6399, 4096, 256), config, target).streamsD());
  EXPECT_FALSE(Sm90Spec(problem(6400, 4096, 257), config, target).streamsD());
  EXPECT_FALSE(Sm90Spec(problem(640, 4096, 128, 10), config, target).streamsD());
  EXPECT_TRUE(Sm90Spec(problem(6400, 4096, 128, 10), config, target).streamsD());
  // The bound is in k-steps, so 8-bit operands (tile_k 128) stream D up to K = 512, and an
  // 8-bit D needs twice the elements.
  Sm90Problem fp8 = problem(12800, 4096, 512);
  fp8.elementBytes = 1;
  fp8.dLineColumns = 128;
  KernelConfigAttr fp8Config = wgmma(128, 256, 4, 128).withStore(DStore::Tma);
  EXPECT_TRUE(Sm90Spec(fp8, fp8Config, target).streamsD());
  fp8.m = 12799;
  EXPECT_FALSE(Sm90Spec(fp8, fp8Config, target).streamsD());
}

TEST_F(Sm90SpecTest, SplitStagesKeepTheirLowPartsAndAReadyBarrier) {
  // Strict f32 split in the kernel: each stage's low parts beside it, a third barrier per
  // stage; any number of consumers reads a stage split once, groups take no split.
  Sm90Problem f32 = problem(128, 8192, 8192);
  f32.elementBytes = 4;
  f32.splitsTf32 = true;
  Sm90Spec spec(f32, wgmma(128, 128, 3, 32), target);
  Sm90SharedLayout l = spec.sharedLayout();
  EXPECT_EQ(l.splitLo, 3 * l.stageBytes);
  EXPECT_EQ(l.ones, l.splitLo + 3 * l.stageBytes);
  EXPECT_EQ(l.ready, l.barriers + 16 * 3);
  EXPECT_EQ(l.flags, l.barriers + 24 * 3);
  EXPECT_TRUE(spec.canImplement()) << *spec.whyNot();
  EXPECT_TRUE(Sm90Spec(f32, wgmma(64, 128, 4, 32).withPingpong(true), target).canImplement());
  EXPECT_FALSE(Sm90Spec(f32, wgmma(128, 128, 4, 32), target).fitsSharedMemory());
  Sm90Problem grouped = f32;
  grouped.groups = 8;
  EXPECT_NE(Sm90Spec(grouped, wgmma(64, 128, 4, 32), target).whyNot()->find("take no groups"),
            std::string::npos);
  f32.splitsTf32 = false;
  EXPECT_EQ(Sm90Spec(f32, wgmma(128, 128, 3, 32), target).sharedLayout().ready, 0);
}

TEST_F(Sm90SpecTest, WhyNotNamesTheRule) {
  Sm90Problem tf32 = problem(256, 256, 256);
  tf32.elementBytes = 4;
  EXPECT_EQ(*Sm90Spec(tf32, wgmma(128, 128, 4), target).whyNot(),
            "expected tile_k 32 for 32-bit A and B (one 128-byte line), got 64");
  tf32.mnMajorB = true;
  EXPECT_NE(Sm90Spec(tf32, wgmma(128, 128, 4, 32), target).whyNot()->find("K-major only"),
            std::string::npos);
  Sm90Spec batchedStreamK(problem(4096, 4096, 4096, 2), wgmma(128, 128, 4).withStreamk(true),
                          target);
  EXPECT_NE(batchedStreamK.whyNot()->find("batched wgmma kernels"), std::string::npos);
  Sm90Problem sums = problem(256, 256, 4096);
  sums.aSums = true;
  EXPECT_EQ(*Sm90Spec(sums, wgmma(128, 128, 4).withPingpong(true), target).whyNot(),
            "ping-pong wgmma kernels take no operand sums (a_sums, b_sums); use the "
            "cooperative kernel");
  EXPECT_EQ(*Sm90Spec(problem(256, 256, 128), wgmma(128, 128, 4).withSplits(3), target)
                 .whyNot(),
            "expected at most 2 splits (one k-step of 64 each), got 3");
  // b_sums: each consumer sums whole 64-row blocks of its half of the tile's columns (or
  // consumer 0 all of them when a half is narrower): 128 and 256 columns, not 192.
  Sm90Problem bSums = problem(1000, 1000, 4096);
  bSums.bSums = true;
  for (int64_t tileN : {64, 128, 256})
    EXPECT_TRUE(Sm90Spec(bSums, wgmma(128, tileN, 4), target).canImplement()) << tileN;
  EXPECT_EQ(*Sm90Spec(bSums, wgmma(128, 192, 4), target).whyNot(),
            "b_sums give each of the 2 consumers an equal share of B's stage tile in 64-row "
            "blocks: expected tile_n / 2 a multiple of 64, got tile_n 192");
}

TEST_F(Sm90SpecTest, PromotedAccumulatorsFitTheirRegistersAndTakeNoSums) {
  // The verifier takes any promoted tile but the swapped form; what the sets take of the
  // registers is the spec's: a second set for every slice, or for one (promoted by slice:
  // 256 x 128, ping-pong 128 x 128) where that would not fit, at most 192 registers in all.
  EXPECT_TRUE(wgmma(128, 128, 6).withPromote(4));
  EXPECT_TRUE(wgmma(64, 128, 8).withSplits(4).withPromote(2));
  EXPECT_FALSE(wgmma(128, 128, 6).withPromote(-1));
  Sm90Problem p = problem(1000, 1000, 4096);
  auto why = [&](KernelConfigAttr config) {
    return Sm90Spec(p, config, target).whyNot().value_or("");
  };
  EXPECT_TRUE(Sm90Spec(p, wgmma(128, 128, 6).withPromote(4), target).canImplement());
  EXPECT_TRUE(Sm90Spec(p, wgmma(128, 192, 4).withPromote(1), target).canImplement());
  KernelConfigAttr bySlice = wgmma(256, 128, 4).withPromote(1);
  EXPECT_TRUE(Sm90Spec::promotesBySlice(bySlice));
  EXPECT_EQ(Sm90Spec::accumulatorRegisters(bySlice), 192);
  EXPECT_TRUE(Sm90Spec(p, bySlice, target).canImplement());
  KernelConfigAttr pingpong = wgmma(128, 128, 4).withPingpong(true).withPromote(1);
  EXPECT_TRUE(Sm90Spec::promotesBySlice(pingpong));
  EXPECT_TRUE(Sm90Spec(p, pingpong, target).canImplement());
  EXPECT_FALSE(Sm90Spec::promotesBySlice(wgmma(128, 64, 8).withPingpong(true).withPromote(1)));
  EXPECT_EQ(why(wgmma(128, 256, 4).withPromote(1)),
            "promoted accumulators take at most 192 registers a thread (both sets), got 256 for "
            "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, promote = "
            "1>>");
  EXPECT_NE(why(bySlice.withPromote(4)).find("one slice at a time need promote = 1"),
            std::string::npos);
  p.aSums = true;
  p.dFromRegisters = p.dThroughTma = false;
  EXPECT_EQ(why(wgmma(128, 128, 6).withPromote(4)),
            "promoted wgmma accumulators take no operand sums (a_sums, b_sums)");
}
