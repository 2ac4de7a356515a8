// Which local GEMMs of a distributed matmul compute its bias gradient, without GPUs: for every
// algorithm on 2 and 3 ranks, the blocks a rank takes tile the vector it returns (or, where the
// ranks' vectors are added, what the all-reduce needs); all-reduce's chunks of D start at
// multiples of 128 rows when the epilog reads or writes aux matrices.
#include "Distributed/BiasGradients.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace mepi;
using namespace mepi::dist;
using namespace mepi::dist::plan;

namespace {
Request request(int ranks, int rank, Distribution a, Distribution b, Distribution d,
                std::vector<int64_t> aGlobal, std::vector<int64_t> bGlobal) {
  Request q;
  q.ranks = ranks;
  q.rank = rank;
  for (int r = 0; r < ranks; ++r) {
    q.aShapes.push_back(a.shape(r, ranks, aGlobal));
    q.bShapes.push_back(b.shape(r, ranks, bGlobal));
  }
  q.distributions = {a, b, d};
  return q;
}

/// The blocks the GEMMs that compute take, sorted; they must not overlap.
std::vector<Range> taken(const GradientPlan &g) {
  std::vector<Range> out;
  for (size_t i = 0; i < g.computes.size(); ++i)
    if (g.computes[i])
      out.push_back(g.at[i]);
  std::sort(out.begin(), out.end(),
            [](const Range &x, const Range &y) { return x.offset < y.offset; });
  return out;
}

/// Whether sorted blocks tile `whole` exactly (no gap, no overlap).
bool tiles(const std::vector<Range> &blocks, Range whole) {
  int64_t at = whole.offset;
  for (const Range &b : blocks) {
    if (b.offset != at)
      return false;
    at += b.size;
  }
  return at == whole.offset + whole.size;
}

struct Layout {
  const char *name;
  Distribution a, b, d;
  bool ta, tb;
  Algorithm algorithm;
};
} // namespace

TEST(BiasGradients, TakenBlocksTileWhatEachRankNeeds) {
  Distribution rep = Distribution::replicated();
  Layout layouts[] = {
      {"all-gather A", Slab::X, Slab::X, Slab::Y, false, true, Algorithm::AllGatherA},
      {"all-gather B", Slab::X, Slab::Y, Slab::X, false, false, Algorithm::AllGatherB},
      {"reduce-scatter rows", Slab::Y, Slab::X, Slab::X, false, false,
       Algorithm::ReduceScatterRows},
      {"reduce-scatter columns", Slab::Y, Slab::X, Slab::Y, false, false,
       Algorithm::ReduceScatterCols},
      {"all-reduce", Slab::Y, Slab::X, rep, false, false, Algorithm::AllReduce},
  };
  const int64_t M = 1300, N = 700, K = 640;
  for (const Layout &l : layouts)
    for (int ranks : {2, 3})
      for (GradientSum sum :
           {GradientSum::RowsOfD, GradientSum::RowsOfA, GradientSum::ColumnsOfB}) {
        std::vector<Range> ownRows; // all-reduce of D's rows: each rank's block
        for (int rank = 0; rank < ranks; ++rank) {
          SCOPED_TRACE(std::string(l.name) + ", " + std::to_string(ranks) + " ranks, rank " +
                       std::to_string(rank) + ", sum " + std::to_string(int(sum)));
          Request q = request(ranks, rank, l.a, l.b, l.d, l.ta ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K},
                              l.tb ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N});
          q.transposeA = l.ta;
          q.transposeB = l.tb;
          q.identityEpilog = false;
          q.alignedFinalRows = sum == GradientSum::RowsOfD;
          q.bands = ranks == 3 ? 2 : 0; // all-reduce's bands: each rank's rows in several blocks
          llvm::Expected<DistPlan> p = makePlan(q);
          ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
          ASSERT_EQ(p->algorithm, l.algorithm);
          llvm::Expected<GradientPlan> g = planGradient(*p, q, sum);
          ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
          ASSERT_EQ(g->computes.size(), p->gemms.size());
          bool rows = sum != GradientSum::ColumnsOfB;
          EXPECT_EQ(g->length, rows ? M : N);
          // The returned block is this rank's D's rows (columns for B's sums).
          EXPECT_EQ(g->mine.size, rows ? p->dLocal[0] : p->dLocal[1]);
          bool splitK = l.algorithm == Algorithm::ReduceScatterRows ||
                        l.algorithm == Algorithm::ReduceScatterCols ||
                        l.algorithm == Algorithm::AllReduce;
          bool dColumnsSplit = l.algorithm == Algorithm::AllGatherA ||
                               l.algorithm == Algorithm::ReduceScatterCols;
          bool partial = sum == GradientSum::RowsOfD ? dColumnsSplit : splitK;
          std::vector<Range> blocks = taken(*g);
          if (sum == GradientSum::RowsOfD && l.algorithm == Algorithm::AllReduce) {
            // Each rank its own rows (a chunk of each band); the all-reduce adds the
            // disjoint blocks of all ranks.
            EXPECT_TRUE(g->allReduce);
            ASSERT_FALSE(blocks.empty());
            for (const Range &b : blocks) {
              EXPECT_EQ(b.offset % 128, 0); // the DRELU mask's whole bytes
              ownRows.push_back(b);
            }
            continue;
          }
          EXPECT_EQ(g->allReduce, partial);
          // Partial sums are added over all of the vector; complete ones cover this rank's.
          EXPECT_TRUE(tiles(blocks, partial ? Range{0, g->length} : g->mine));
          // Final GEMMs alone compute D's row sums.
          for (size_t i = 0; i < p->gemms.size(); ++i) {
            if (sum == GradientSum::RowsOfD) {
              EXPECT_EQ(g->computes[i], p->gemms[i].final);
            }
          }
        }
        if (!ownRows.empty()) {
          std::sort(ownRows.begin(), ownRows.end(),
                    [](const Range &x, const Range &y) { return x.offset < y.offset; });
          EXPECT_TRUE(tiles(ownRows, Range{0, M})) << l.name << ", " << ranks << " ranks";
        }
      }
}

TEST(BiasGradients, OperandSumsAreTakenOncePerBlock) {
  // Reduce-scatter of rows: every step multiplies all of B's columns; one GEMM computes
  // B's sums, the others run without the epilog.
  Request q = request(2, 0, Slab::Y, Slab::X, Slab::X, {1024, 512}, {512, 256});
  q.identityEpilog = false;
  llvm::Expected<DistPlan> p = makePlan(q);
  ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
  ASSERT_GT(p->gemms.size(), 1u);
  llvm::Expected<GradientPlan> g = planGradient(*p, q, GradientSum::ColumnsOfB);
  ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
  EXPECT_EQ(std::count(g->computes.begin(), g->computes.end(), true), 1);
  EXPECT_TRUE(g->allReduce);
  EXPECT_EQ(g->mine, (Range{0, 256}));
}

TEST(BiasGradients, SummaRowsOfDNeedAGridOfOneColumn) {
  auto bc = [](int rows, int cols) { return Distribution::blockCyclic({rows, cols}, 128, 64); };
  // 1 x 2: each rank holds some columns of every row of D: no collective adds them.
  Request q = request(2, 0, bc(1, 2), bc(1, 2), bc(1, 2), {512, 640}, {640, 512});
  llvm::Expected<DistPlan> p = makePlan(q);
  ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
  llvm::Expected<GradientPlan> g = planGradient(*p, q, GradientSum::RowsOfD);
  ASSERT_FALSE(bool(g));
  EXPECT_NE(llvm::toString(g.takeError()).find("grid of 2 columns"), std::string::npos);
  // Operand sums are whole there: op(A)'s rows and op(B)'s columns are gathered over all K.
  for (GradientSum sum : {GradientSum::RowsOfA, GradientSum::ColumnsOfB}) {
    llvm::Expected<GradientPlan> s = planGradient(*p, q, sum);
    ASSERT_TRUE(bool(s)) << llvm::toString(s.takeError());
    EXPECT_FALSE(s->allReduce);
    EXPECT_TRUE(tiles(taken(*s), s->mine));
  }
  // 2 x 1: whole rows of D on each rank.
  q = request(2, 1, bc(2, 1), bc(2, 1), bc(2, 1), {512, 640}, {640, 512});
  p = makePlan(q);
  ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
  g = planGradient(*p, q, GradientSum::RowsOfD);
  ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
  EXPECT_FALSE(g->allReduce);
  EXPECT_TRUE(tiles(taken(*g), g->mine));
  EXPECT_EQ(g->mine, (Range{0, p->dLocal[0]}));
}

TEST(BiasGradients, AllReduceCutsRowsAtMultiplesOf128ForAuxMatrices) {
  // 1000 rows over 3 ranks: slabs start at 0, 334, 667; with aux matrices 0, 384, 768.
  for (bool aligned : {false, true}) {
    Request q = request(3, 2, Slab::Y, Slab::X, Distribution::replicated(), {1000, 600},
                        {600, 256});
    q.identityEpilog = false;
    q.alignedFinalRows = aligned;
    llvm::Expected<DistPlan> p = makePlan(q);
    ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
    ASSERT_EQ(p->chunks.size(), 3u);
    EXPECT_EQ(p->chunks[1].offset, aligned ? 384 : 334);
    EXPECT_EQ(p->chunks[2], aligned ? (Range{768, 232}) : (Range{667, 333}));
  }
}
