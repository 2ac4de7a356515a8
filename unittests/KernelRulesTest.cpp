// The heuristic's share arithmetic (KernelRules.h): how much of the walkers' time a
// configuration's work units spend inside D, checked as plain arithmetic (no IR).
#include "mepi/IR/MepiDialect.h"
#include "mepi/Sm90/Sm90Spec.h"
#include "mepi/Transforms/KernelRules.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::mepi;

namespace {
struct KernelRulesTest : ::testing::Test {
  KernelRulesTest() { context.loadDialect<MepiDialect>(); }
  KernelConfigAttr wgmma(int64_t tileM, int64_t tileN, int64_t cluster = 1) {
    return KernelConfigAttr::get(&context, KernelStrategy::Wgmma, tileM, tileN, 64, 4)
        .withCluster(cluster);
  }
  /// A K-major bf16 problem whose D goes through TMA stores.
  static Sm90Problem problem(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
    Sm90Problem p;
    p.m = m, p.n = n, p.k = k, p.batch = batch;
    p.batched = batch > 1;
    p.elementBytes = 2;
    p.dFromRegisters = p.dThroughTma = true;
    p.dLineColumns = 64;
    return p;
  }
  MLIRContext context;
  TargetInfo target = *TargetInfo::forChip("sm_90a");
};
} // namespace

// Whole units without clusters: waveShare's count.
TEST_F(KernelRulesTest, PredictedShareOfWholeUnitsIsWaveShare) {
  for (Sm90Problem p : {problem(4096, 4096, 4096), problem(300, 500, 256, 3),
                        problem(16384, 576, 8192), problem(2112, 1856, 11136)})
    for (auto [tileM, tileN] : {std::pair<int64_t, int64_t>{128, 128}, {128, 256}, {128, 192}})
      EXPECT_DOUBLE_EQ(rules::predictedShare(p, target, wgmma(tileM, tileN)),
                       rules::waveShare(p, target, tileM, tileN))
          << p.m << "x" << p.n << " " << tileM << "x" << tileN;
  // 3 x 3 x 4 = 36 tiles of 128 x 128 on 132 multiprocessors, 300 x 500 of their 384 x 512.
  EXPECT_DOUBLE_EQ(rules::predictedShare(problem(300, 500, 256, 3), target, wgmma(128, 128)),
                   36.0 / 132 * (300.0 * 500) / (384.0 * 512));
}

// Clusters of 2: pair units on 66 clusters. 16384 x 576: 64 pair rows of 3 tile columns, 192
// units in 3 waves either way; 256-column tiles put 576 of 768 columns inside D, 192-column
// ones all.
TEST_F(KernelRulesTest, PredictedShareCountsPairUnitsOnClusters) {
  Sm90Problem p = problem(16384, 576, 8192);
  EXPECT_DOUBLE_EQ(rules::predictedShare(p, target, wgmma(128, 256, 2)),
                   192.0 / (3 * 66) * 576.0 / 768.0);
  EXPECT_DOUBLE_EQ(rules::predictedShare(p, target, wgmma(128, 192, 2)), 192.0 / (3 * 66));
}

// Stream-K's last wave of R units on G walkers costs 1.5 R / G of a wave (withStreamK's
// prediction): 4096 x 4224 in pair units of 128 x 256, 16 x 17 = 272 on 66 clusters, 4 waves
// and 8.
TEST_F(KernelRulesTest, PredictedShareOfStreamKTail) {
  Sm90Problem p = problem(4096, 4224, 8192);
  KernelConfigAttr streamK = wgmma(128, 256, 2).withStreamk(true);
  ASSERT_TRUE(streamK);
  EXPECT_DOUBLE_EQ(rules::predictedShare(p, target, streamK),
                   272.0 / ((4 + 1.5 * 8 / 66) * 66) * 4224.0 / 4352.0);
  EXPECT_DOUBLE_EQ(rules::predictedShare(p, target, wgmma(128, 256, 2)),
                   272.0 / (5 * 66) * 4224.0 / 4352.0);
}
