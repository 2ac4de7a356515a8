// SUMMA's plans over block-cyclic operands, run on the host: every rank's schedule is played
// with double matrices (copies as the flags order them, GEMMs over the views) and each rank's
// blocks of D compared with the product of the global operands; plus the refusals.
#include "Distributed/DistPlan.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace mepi::dist;
using namespace mepi::dist::plan;

namespace {
using Matrix = std::vector<double>; // row-major

/// The global index of local index `l` of a dimension dealt in `block`s over `procs`.
int64_t globalOf(int64_t l, int64_t block, int coord, int procs) {
  return (l / block * procs + coord) * block + l % block;
}

/// Rank `rank`'s part of a stored global [rows, cols] matrix under block-cyclic `d`.
Matrix localPart(const Matrix &g, int64_t cols, const Distribution &d, int rank,
                 const std::vector<int64_t> &local) {
  Matrix out(local[0] * local[1]);
  int ri = rank / d.grid.cols, ci = rank % d.grid.cols;
  for (int64_t i = 0; i < local[0]; ++i)
    for (int64_t j = 0; j < local[1]; ++j)
      out[i * local[1] + j] = g[globalOf(i, d.blockRows, ri, d.grid.rows) * cols +
                                globalOf(j, d.blockCols, ci, d.grid.cols)];
  return out;
}

struct Problem {
  int rows, cols; // the process grid
  int64_t m, n, k;
  bool ta, tb;
  int64_t aBlock[2], bBlock[2], dBlock[2]; // stored blocks
  int pieces = 0;
  bool aGridTransposed = false; // A on the cols x rows grid (a transposed view's)
};

/// One rank's buffers, indexed by plan::Buffer.
struct RankState {
  DistPlan plan;
  std::map<Buffer, Matrix> buffers;
};

double &at(Matrix &m, const View &v, int64_t i, int64_t j) {
  return m[v.offset() + i * v.pitch + j];
}

/// Plays every rank's schedule: the copies each GEMM may see are those its waits order before
/// it (a source's copies to this rank up to the one that raised an awaited flag).
void play(std::vector<RankState> &ranks, bool ta, bool tb) {
  int P = ranks.size();
  for (int t = 0; t < P; ++t) {
    const DistPlan &p = ranks[t].plan;
    std::set<int> awaited;
    for (size_t here = 0; here < p.steps.size(); ++here) {
      const Step &s = p.steps[here];
      if (s.kind == Step::Kind::WaitArrived)
        awaited.insert(s.flag);
      if (s.kind != Step::Kind::Gemm)
        continue;
      std::map<Buffer, Matrix> seen = ranks[t].buffers;
      for (Buffer b : {Buffer::Gather, Buffer::GatherB})
        std::fill(seen[b].begin(), seen[b].end(), NAN);
      for (int src = 0; src < P; ++src) {
        const auto &steps = ranks[src].plan.steps;
        // A peer's copies up to one that raised an awaited flag; our own local copies up to
        // this GEMM (the compute stream's order).
        size_t last = src == t ? here : 0;
        for (size_t i = 0; i < steps.size() && src != t; ++i)
          if (steps[i].kind == Step::Kind::Push && steps[i].peer == t && awaited.count(steps[i].flag))
            last = i + 1;
        Step::Kind kind = src == t ? Step::Kind::LocalCopy : Step::Kind::Push;
        for (size_t i = 0; i < last; ++i) {
          const Step &c = steps[i];
          if (c.kind != kind || c.peer != t)
            continue;
          Matrix &from = ranks[src].buffers[c.from.buffer];
          for (int64_t r = 0; r < c.from.rows; ++r)
            for (int64_t q = 0; q < c.from.cols; ++q)
              at(seen[c.to.buffer], c.to, r, q) = at(from, c.from, r, q);
        }
      }
      const Gemm &g = p.gemms[s.gemm];
      int64_t rows = g.d.rows, cols = g.d.cols, kk = ta ? g.a.rows : g.a.cols;
      ASSERT_EQ(kk, tb ? g.b.cols : g.b.rows);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          double acc = 0;
          for (int64_t x = 0; x < kk; ++x)
            acc += (ta ? at(seen[g.a.buffer], g.a, x, i) : at(seen[g.a.buffer], g.a, i, x)) *
                   (tb ? at(seen[g.b.buffer], g.b, j, x) : at(seen[g.b.buffer], g.b, x, j));
          at(ranks[t].buffers[Buffer::D], g.d, i, j) = acc;
        }
    }
  }
}

/// Plans `pr` on every rank, plays the schedules and checks each rank's D.
void checkProblem(const Problem &pr) {
  int P = pr.rows * pr.cols;
  ProcessGrid grid{pr.rows, pr.cols};
  ProcessGrid aGrid = pr.aGridTransposed ? ProcessGrid{pr.cols, pr.rows} : grid;
  Distribution a = Distribution::blockCyclic(aGrid, pr.aBlock[0], pr.aBlock[1]),
               b = Distribution::blockCyclic(grid, pr.bBlock[0], pr.bBlock[1]),
               d = Distribution::blockCyclic(grid, pr.dBlock[0], pr.dBlock[1]);
  std::vector<int64_t> aStored = pr.ta ? std::vector<int64_t>{pr.k, pr.m} : std::vector<int64_t>{pr.m, pr.k};
  std::vector<int64_t> bStored = pr.tb ? std::vector<int64_t>{pr.n, pr.k} : std::vector<int64_t>{pr.k, pr.n};
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> u(-4, 4);
  Matrix A(pr.m * pr.k), B(pr.k * pr.n);
  for (double &x : A)
    x = u(gen);
  for (double &x : B)
    x = u(gen);
  Request q;
  q.ranks = P;
  q.distributions = {a, b, d};
  q.transposeA = pr.ta;
  q.transposeB = pr.tb;
  q.pieces = pr.pieces;
  for (int r = 0; r < P; ++r) {
    q.aShapes.push_back(a.shape(r, P, aStored));
    q.bShapes.push_back(b.shape(r, P, bStored));
  }
  std::vector<RankState> ranks(P);
  for (int r = 0; r < P; ++r) {
    q.rank = r;
    auto p = makePlan(q);
    ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
    ASSERT_EQ(p->algorithm, Algorithm::Summa);
    ASSERT_EQ((p->m), pr.m);
    ranks[r].plan = std::move(*p);
    const DistPlan &pl = ranks[r].plan;
    ranks[r].buffers[Buffer::A] = localPart(A, aStored[1], a, r, q.aShapes[r]);
    ranks[r].buffers[Buffer::B] = localPart(B, bStored[1], b, r, q.bShapes[r]);
    ranks[r].buffers[Buffer::Gather].resize(pl.gatherShape.empty() ? 0 : pl.gatherShape[0] * pl.gatherShape[1]);
    ranks[r].buffers[Buffer::GatherB].resize(pl.gatherBShape.empty() ? 0 : pl.gatherBShape[0] * pl.gatherBShape[1]);
    ranks[r].buffers[Buffer::D].assign(pl.dLocal[0] * pl.dLocal[1], NAN);
    for (const Step &s : pl.steps)
      ASSERT_LT(s.flag, pl.flags) << pl.str();
  }
  play(ranks, pr.ta, pr.tb);
  for (int r = 0; r < P; ++r) {
    const DistPlan &pl = ranks[r].plan;
    int ri = r / pr.cols, ci = r % pr.cols;
    int64_t bad = 0;
    for (int64_t i = 0; i < pl.dLocal[0]; ++i)
      for (int64_t j = 0; j < pl.dLocal[1]; ++j) {
        int64_t gi = globalOf(i, pr.dBlock[0], ri, pr.rows), gj = globalOf(j, pr.dBlock[1], ci, pr.cols);
        double ref = 0;
        for (int64_t x = 0; x < pr.k; ++x)
          ref += (pr.ta ? A[x * pr.m + gi] : A[gi * pr.k + x]) *
                 (pr.tb ? B[gj * pr.k + x] : B[x * pr.n + gj]);
        double got = ranks[r].buffers[Buffer::D][i * pl.dLocal[1] + j];
        if (!(got == ref) && bad++ < 3)
          ADD_FAILURE() << "rank " << r << " D[" << gi << ", " << gj << "] = " << got
                        << ", expected " << ref << "\n"
                        << pl.str();
      }
  }
}
} // namespace

TEST(SummaPlan, OneRowOfProcessesGathersAOnly) {
  // 1 x 2: K of A split, B's columns as D's: A travels, B is used as given.
  checkProblem({1, 2, 300, 200, 250, false, false, {64, 32}, {48, 32}, {64, 32}});
}

TEST(SummaPlan, OneColumnOfProcessesGathersBOnly) {
  checkProblem({2, 1, 300, 200, 250, false, false, {32, 40}, {24, 16}, {32, 16}});
}

TEST(SummaPlan, EveryTransposeOnATwoByTwoGrid) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      SCOPED_TRACE(testing::Message() << "ta " << ta << " tb " << tb);
      int64_t aBlock[2] = {ta ? 24 : 40, ta ? 40 : 24}; // M blocks of 40 as D's rows
      int64_t bBlock[2] = {tb ? 16 : 56, tb ? 56 : 16}; // N blocks of 16 as D's columns
      Problem p{2, 2, 297, 131, 203, ta, tb, {aBlock[0], aBlock[1]}, {bBlock[0], bBlock[1]},
                {40, 16}};
      checkProblem(p);
    }
}

TEST(SummaPlan, UnevenGridsAndForcedPieces) {
  // 3 x 2 with remainders everywhere; rows in pieces so GEMMs wait on each piece's copies.
  Problem p{3, 2, 1300, 77, 130, false, true, {128, 16}, {11, 32}, {128, 11}, 3};
  checkProblem(p);
  Problem whole{2, 2, 2100, 90, 200, true, false, {64, 256}, {64, 45}, {256, 45}};
  checkProblem(whole); // pieces chosen by the planner (2: 1076 rows)
}

TEST(SummaPlan, AnOperandOnTheTransposedGrid) {
  // A [K, M] on a P x 1 grid (the stored form of an M x K view on 1 x P): dealt along M by
  // the grid's rows, which D deals along its columns: every rank needs all of A.
  Problem p{1, 2, 200, 150, 180, true, false, {60, 64}, {60, 48}, {64, 48}};
  p.aGridTransposed = true;
  checkProblem(p);
  Problem q{3, 1, 200, 150, 180, false, false, {64, 60}, {60, 48}, {64, 48}};
  q.aGridTransposed = true; // A [M, K] on 1 x 3: K split, M whole
  checkProblem(q);
}

TEST(SummaPlan, BlockCyclicRefusals) {
  auto plan = [](Distribution a, Distribution b, Distribution d, int ranks,
                 std::vector<int64_t> aGlobal, std::vector<int64_t> bGlobal) {
    Request q;
    q.ranks = ranks;
    q.distributions = {a, b, d};
    for (int r = 0; r < ranks; ++r) {
      q.aShapes.push_back(a.shape(r, ranks, aGlobal));
      q.bShapes.push_back(b.shape(r, ranks, bGlobal));
    }
    auto p = makePlan(q);
    return p ? std::string("planned") : llvm::toString(p.takeError());
  };
  Distribution bc = Distribution::blockCyclic({1, 2}, 64, 64);
  EXPECT_NE(plan(bc, bc, Distribution::slabY(), 2, {256, 256}, {256, 256})
                .find("operand d: Slab.Y with a block-cyclic distribution elsewhere"),
            std::string::npos);
  EXPECT_NE(plan(bc, bc, bc, 4, {256, 256}, {256, 256})
                .find("the process grid has 2 processes, expected 4 (the ranks)"),
            std::string::npos);
  Distribution rows32 = Distribution::blockCyclic({1, 2}, 32, 64);
  EXPECT_NE(plan(rows32, bc, bc, 2, {256, 256}, {256, 256})
                .find("op(A)'s blocks of rows are 32 long and D's 64"),
            std::string::npos);
  Distribution cols32 = Distribution::blockCyclic({1, 2}, 64, 32);
  EXPECT_NE(plan(bc, cols32, bc, 2, {256, 256}, {256, 256})
                .find("op(B)'s blocks of columns are 32 long and D's 64"),
            std::string::npos);
  // A block-cyclic part that is not numroc's.
  Request q;
  q.ranks = 2;
  q.distributions = {bc, bc, bc};
  q.aShapes = {{256, 120}, {256, 128}};
  q.bShapes = {{248, 128}, {248, 128}};
  auto p = makePlan(q);
  ASSERT_FALSE(bool(p));
  EXPECT_NE(llvm::toString(p.takeError())
                .find("operand a (BlockCyclic(1x2, 64x64)): rank 0 holds [256, 120]; expected "
                      "[256, 128] (of [256, 248]"),
            std::string::npos);
  // Too few blocks for every rank.
  EXPECT_NE(plan(bc, bc, bc, 2, {32, 32}, {32, 32}).find("rank 1 holds no blocks"),
            std::string::npos);
}
