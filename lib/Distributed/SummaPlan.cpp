// The plan of a matmul over block-cyclic operands (ScaLAPACK's layout; DistPlan.h describes the
// schedule): the global problem from every rank's blocks, and the copies that assemble, on each
// rank, the rows of op(A) and the columns of op(B) that its blocks of D need.
#include "Distributed/DistPlan.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mepi::dist;
using namespace mepi::dist::plan;
using Kind = mepi::dist::Distribution::Kind;

namespace {
/// How one stored dimension is dealt: blocks of `block` indices round-robin over `procs`
/// processes, this one at `coord`.
struct Dealing {
  int64_t block = 1;
  int procs = 1, coord = 0;
  int64_t global(int64_t local) const {
    return (local / block * procs + coord) * block + local % block;
  }
};

/// A run of a rank's local indices [src, src + size) that lands at [dst, dst + size) of the
/// process `owner` (along D's dealing of that dimension; 0 for K, which every rank needs).
struct Segment {
  int64_t src = 0, dst = 0, size = 0;
  int owner = 0;
};

/// This rank's local indices of a dimension of `extent` dealt by `from`, mapped onto `to`
/// (D's dealing: owner and local index there) or, without `to`, onto the global index.
/// Blocks that stay contiguous on both sides are merged. `from` and `to` deal in equal blocks
/// (checked by the planner), so that no block is split between two owners.
std::vector<Segment> segments(int64_t extent, const Dealing &from, const Dealing *to) {
  std::vector<Segment> out;
  int64_t local = blockCyclicExtent(extent, from.block, from.coord, from.procs);
  for (int64_t l = 0; l < local; l += from.block) {
    int64_t g = from.global(l), size = std::min(from.block, local - l);
    Segment s{l, g, size, 0};
    if (to) {
      int64_t b = g / to->block;
      s.owner = static_cast<int>(b % to->procs);
      s.dst = b / to->procs * to->block + g % to->block;
    }
    if (!out.empty()) {
      Segment &last = out.back();
      if (last.owner == s.owner && last.src + last.size == s.src && last.dst + last.size == s.dst) {
        last.size += s.size;
        continue;
      }
    }
    out.push_back(s);
  }
  return out;
}

/// The stored dimensions' dealings of a block-cyclic matrix on `rank`.
std::pair<Dealing, Dealing> dealings(const Distribution &d, int rank) {
  return {Dealing{d.blockRows, d.grid.rows, rank / d.grid.cols},
          Dealing{d.blockCols, d.grid.cols, rank % d.grid.cols}};
}

/// A block of a stored operand whose K runs along rows (`kRows`) or columns.
View storedView(Buffer buffer, bool kRows, Range k, Range other, int64_t pitch) {
  return kRows ? View{buffer, 0, k.offset, other.offset, k.size, other.size, pitch}
               : View{buffer, 0, other.offset, k.offset, other.size, k.size, pitch};
}

/// One operand to assemble: op(A)'s rows (`other` = M) or op(B)'s columns (`other` = N).
struct Operand {
  Buffer local, gather;
  bool kRows;             ///< stored with K along rows
  int64_t localPitch, gatherPitch;
  std::vector<Segment> k, other; ///< this rank's runs along K and along the other dimension
  std::vector<int64_t> extentOn; ///< per rank: its extent along the other dimension (of D)
  bool byDRows;                  ///< the other dimension follows D's rows (A) or columns (B)
};

int coordOf(const Distribution &d, int rank, bool rows) {
  return rows ? rank / d.grid.cols : rank % d.grid.cols;
}

/// The steps that copy this rank's blocks of `op` lying in `range` (of rank `t`'s extent along
/// the other dimension) into `t`'s gather buffer. A peer's copies (Push) raise `flag` after
/// the last (an empty copy where nothing goes, so that `t` may count on the flag); our own
/// (`t` = this rank) are LocalCopy steps, ordered by the compute stream.
void copyTo(DistPlan &p, const Operand &op, const Distribution &d, int t, Range range, int flag) {
  std::vector<Step> out;
  Step::Kind kind = t == p.rank ? Step::Kind::LocalCopy : Step::Kind::Push;
  int owner = coordOf(d, t, op.byDRows);
  for (const Segment &o : op.other) {
    int64_t lo = std::max(o.dst, range.offset),
            hi = std::min(o.dst + o.size, range.offset + range.size);
    if (o.owner != owner || lo >= hi)
      continue;
    Range src{o.src + lo - o.dst, hi - lo}, dst{lo, hi - lo};
    for (const Segment &k : op.k) {
      Step s;
      s.kind = kind;
      s.peer = t;
      s.flag = -1;
      s.from = storedView(op.local, op.kRows, {k.src, k.size}, src, op.localPitch);
      s.to = storedView(op.gather, op.kRows, {k.dst, k.size}, dst, op.gatherPitch);
      out.push_back(s);
    }
  }
  if (kind == Step::Kind::Push) {
    if (out.empty()) {
      Step s;
      s.kind = kind;
      s.peer = t;
      s.from = View{op.local, 0, 0, 0, 0, 0, op.localPitch};
      s.to = View{op.gather, 0, 0, 0, 0, 0, op.gatherPitch};
      out.push_back(s);
    }
    out.back().flag = flag;
  }
  p.steps.insert(p.steps.end(), out.begin(), out.end());
}

Step stepOf(Step::Kind kind, int flag = -1, int peer = -1) {
  Step s;
  s.kind = kind;
  s.flag = flag;
  s.peer = peer;
  return s;
}
} // namespace

/// The global extents of a block-cyclic matrix: the sum of the parts along one row and one
/// column of the grid; then every rank's part checked against numroc.
static llvm::Expected<std::vector<int64_t>>
blockCyclicGlobal(const std::vector<std::vector<int64_t>> &shapes, const Distribution &d,
                  const char *name) {
  int ranks = shapes.size();
  std::vector<int64_t> g{0, 0};
  for (int r = 0; r < ranks; ++r) {
    if (shapes[r].size() != 2)
      return planError(llvm::formatv("operand {0}: expected a matrix (rank 2) on every rank, "
                                     "got rank {1} on rank {2}",
                                     name, shapes[r].size(), r));
    if (r % d.grid.cols == 0)
      g[0] += shapes[r][0];
    if (r < d.grid.cols)
      g[1] += shapes[r][1];
  }
  for (int r = 0; r < ranks; ++r) {
    std::vector<int64_t> expected = d.shape(r, ranks, g);
    if (shapes[r] != expected)
      return planError(llvm::formatv(
          "operand {0} ({1}): rank {2} holds [{3}, {4}]; expected [{5}, {6}] (of [{7}, {8}] "
          "dealt in blocks round-robin over the grid, ScaLAPACK's numroc)",
          name, d.str(), r, shapes[r][0], shapes[r][1], expected[0], expected[1], g[0], g[1]));
  }
  return g;
}

/// The rules SUMMA's plan relies on, each refused by name.
static llvm::Error checkSummaRequest(const Request &q) {
  const char *names[] = {"a", "b", "d"};
  for (int i = 0; i < 3; ++i)
    if (q.distributions[i].kind != Kind::BlockCyclic)
      return unsupportedError(llvm::formatv(
          "operand {0}: {1} with a block-cyclic distribution elsewhere: distributions A {2}, B "
          "{3}, D {4}; block-cyclic operands (SUMMA) need all three block-cyclic",
          names[i], q.distributions[i].str(), q.distributions[0].str(),
          q.distributions[1].str(), q.distributions[2].str()));
  for (int i = 0; i < 3; ++i) {
    const Distribution &d = q.distributions[i];
    if (d.grid.rows < 1 || d.grid.cols < 1 || d.blockRows < 1 || d.blockCols < 1)
      return planError(llvm::formatv("operand {0}: {1}: expected a grid and blocks of at least "
                                     "1 x 1",
                                     names[i], d.str()));
    if (d.grid.rows * d.grid.cols != q.ranks)
      return planError(llvm::formatv("operand {0}: {1}: the process grid has {2} processes, "
                                     "expected {3} (the ranks)",
                                     names[i], d.str(), d.grid.rows * d.grid.cols, q.ranks));
  }
  return llvm::Error::success();
}

/// op(A)'s row blocks must be D's, op(B)'s column blocks too, so that a block of an operand
/// belongs to one rank's blocks of D.
static llvm::Error checkSummaBlocks(const Request &q) {
  const Distribution &a = q.distributions[0], &b = q.distributions[1], &d = q.distributions[2];
  int64_t mBlock = q.transposeA ? a.blockCols : a.blockRows;
  int64_t nBlock = q.transposeB ? b.blockRows : b.blockCols;
  if (mBlock != d.blockRows)
    return planError(llvm::formatv("operands a and d: op(A)'s blocks of rows are {0} long and "
                                   "D's {1} ({2}, {3}): expected them equal",
                                   mBlock, d.blockRows, a.str(), d.str()));
  if (nBlock != d.blockCols)
    return planError(llvm::formatv("operands b and d: op(B)'s blocks of columns are {0} long "
                                   "and D's {1} ({2}, {3}): expected them equal",
                                   nBlock, d.blockCols, b.str(), d.str()));
  return llvm::Error::success();
}

/// Row pieces of this rank's D: GEMMs start on the first while the others arrive (4 where each
/// stays compute-bound, as the slab schedules' pieces).
static int summaPieces(int64_t rows, int requested) {
  if (requested > 0)
    return requested;
  return rows >= 2048 ? 4 : rows >= 1024 ? 2 : 1;
}

/// The operand `which` (0: A, 1: B) of the plan: its runs and gather layout.
static Operand operandOf(const DistPlan &p, const Request &q, int which) {
  bool isA = which == 0, trans = isA ? q.transposeA : q.transposeB;
  const Distribution &dist = q.distributions[which], &dd = q.distributions[2];
  auto [dim0, dim1] = dealings(dist, q.rank);
  Operand op;
  op.local = isA ? Buffer::A : Buffer::B;
  op.gather = isA ? Buffer::Gather : Buffer::GatherB;
  op.kRows = isA ? trans : !trans;
  op.byDRows = isA;
  const std::vector<int64_t> &local = isA ? p.aLocal : p.bLocal;
  op.localPitch = local[1];
  const std::vector<int64_t> &gather = isA ? p.gatherShape : p.gatherBShape;
  op.gatherPitch = gather.empty() ? 0 : gather[1];
  Dealing k = op.kRows ? dim0 : dim1, other = op.kRows ? dim1 : dim0;
  Dealing to = isA ? Dealing{dd.blockRows, dd.grid.rows, 0} : Dealing{dd.blockCols, dd.grid.cols, 0};
  op.k = segments(p.k, k, nullptr);
  op.other = segments(isA ? p.m : p.n, other, &to);
  for (int r = 0; r < q.ranks; ++r)
    op.extentOn.push_back(dd.shape(r, q.ranks, {p.m, p.n})[isA ? 0 : 1]);
  return op;
}

/// The steps: this rank's own blocks copied on the compute stream; the peers' blocks of B's
/// columns, then of op(A)'s rows piece by piece, by the copy engines; each piece's GEMM waits
/// for that piece from every peer.
static void summaSteps(DistPlan &p, const Request &q, bool gatherA, bool gatherB) {
  int r = q.rank, P = q.ranks;
  auto flagB = [&](int src) { return P + src * (p.pieces + 1) + p.pieces; };
  auto flagA = [&](int src, int piece) { return P + src * (p.pieces + 1) + piece; };
  const Distribution &dd = q.distributions[2];
  Operand a = operandOf(p, q, 0), b = operandOf(p, q, 1);
  p.steps.push_back(stepOf(Step::Kind::Fork)); // the copy stream starts before our own copies
  p.steps.push_back(stepOf(Step::Kind::Ready));
  if (gatherB)
    copyTo(p, b, dd, r, {0, p.dLocal[1]}, -1);
  if (gatherA)
    copyTo(p, a, dd, r, {0, p.dLocal[0]}, -1);
  for (int i = 1; i < P && (gatherA || gatherB); ++i)
    p.steps.push_back(stepOf(Step::Kind::WaitReady, -1, (r + i) % P));
  for (int i = 1; i < P && gatherB; ++i)
    copyTo(p, b, dd, (r + i) % P, {0, b.extentOn[(r + i) % P]}, flagB(r));
  for (int j = 0; j < p.pieces && gatherA; ++j)
    for (int i = 1; i < P; ++i) {
      int t = (r + i) % P;
      auto pieces = rowPieces({0, a.extentOn[t]}, p.pieces, {});
      if (j < (int)pieces.size())
        copyTo(p, a, dd, t, pieces[j], flagA(r, j));
    }
  for (int i = 1; i < P && gatherB; ++i)
    p.steps.push_back(stepOf(Step::Kind::WaitArrived, flagB((r + i) % P)));
  auto pieces = rowPieces({0, p.dLocal[0]}, gatherA ? p.pieces : 1, {});
  for (size_t j = 0; j < pieces.size(); ++j) {
    for (int i = 1; i < P && gatherA; ++i)
      p.steps.push_back(stepOf(Step::Kind::WaitArrived, flagA((r + i) % P, j)));
    Gemm g;
    g.a = gatherA ? storedView(Buffer::Gather, q.transposeA, {0, p.k}, pieces[j], a.gatherPitch)
                  : storedView(Buffer::A, q.transposeA, {0, p.k}, pieces[j], p.aLocal[1]);
    g.b = gatherB ? View{Buffer::GatherB, 0, 0, 0, p.gatherBShape[0], p.gatherBShape[1],
                         p.gatherBShape[1]}
                  : View{Buffer::B, 0, 0, 0, p.bLocal[0], p.bLocal[1], p.bLocal[1]};
    if (gatherB) // this rank's columns of the (wider) buffer
      (q.transposeB ? g.b.rows : g.b.cols) = p.dLocal[1];
    g.d = View{Buffer::D, 0, pieces[j].offset, 0, pieces[j].size, p.dLocal[1], p.dLocal[1]};
    if (q.hasC) {
      g.c = g.d;
      g.c->buffer = Buffer::C;
    }
    g.final = true;
    g.dRows = pieces[j];
    g.mRows = pieces[j];
    g.nCols = p.myCols;
    p.gemms.push_back(g);
    Step s = stepOf(Step::Kind::Gemm);
    s.gemm = p.gemms.size() - 1;
    p.steps.push_back(s);
  }
  p.steps.push_back(stepOf(Step::Kind::Join));
}

llvm::Expected<DistPlan> plan::makeSummaPlan(const Request &q) {
  if (llvm::Error e = checkSummaRequest(q))
    return e;
  auto ga = blockCyclicGlobal(q.aShapes, q.distributions[0], "a");
  if (!ga)
    return ga.takeError();
  auto gb = blockCyclicGlobal(q.bShapes, q.distributions[1], "b");
  if (!gb)
    return gb.takeError();
  DistPlan p;
  p.algorithm = Algorithm::Summa;
  p.ranks = q.ranks;
  p.rank = q.rank;
  p.m = (*ga)[q.transposeA ? 1 : 0];
  p.k = (*ga)[q.transposeA ? 0 : 1];
  p.n = (*gb)[q.transposeB ? 0 : 1];
  int64_t kb = (*gb)[q.transposeB ? 1 : 0];
  if (kb != p.k)
    return planError(llvm::formatv("operands a and b: op(A) is {0} x {1} and op(B) {2} x {3} "
                                   "(global): K differs",
                                   p.m, p.k, kb, p.n));
  if (llvm::Error e = checkSummaBlocks(q))
    return e;
  const Distribution &dd = q.distributions[2];
  p.aLocal = q.aShapes[q.rank];
  p.bLocal = q.bShapes[q.rank];
  p.dLocal = dd.shape(q.rank, q.ranks, {p.m, p.n});
  int64_t mMax = 0, nMax = 0;
  for (int r = 0; r < q.ranks; ++r) {
    std::vector<int64_t> d = dd.shape(r, q.ranks, {p.m, p.n});
    if (d[0] == 0 || d[1] == 0 || q.aShapes[r][0] * q.aShapes[r][1] == 0 ||
        q.bShapes[r][0] * q.bShapes[r][1] == 0)
      return unsupportedError(llvm::formatv(
          "Summa: rank {0} holds no blocks of a, b or D ({1} x {2} x {3} in blocks of {4} x {5} "
          "over a {6}x{7} grid): every rank must hold a non-empty part of each",
          r, p.m, p.n, p.k, dd.blockRows, dd.blockCols, dd.grid.rows, dd.grid.cols));
    mMax = std::max(mMax, d[0]);
    nMax = std::max(nMax, d[1]);
  }
  // A rank's own part is what its GEMM needs only when K is not split and the other
  // dimension is dealt as D's: A stored [M, K] on D's grid of one column, B [K, N] on D's
  // grid of one row. (Operands may sit on other grids of as many ranks: a transposed view's
  // grid is its matrix's, transposed.)
  auto sameGrid = [&](const Distribution &d) {
    return d.grid.rows == dd.grid.rows && d.grid.cols == dd.grid.cols;
  };
  bool gatherA = q.transposeA || !sameGrid(q.distributions[0]) || dd.grid.cols > 1;
  bool gatherB = q.transposeB || !sameGrid(q.distributions[1]) || dd.grid.rows > 1;
  if (gatherA)
    p.gatherShape = q.transposeA ? std::vector<int64_t>{p.k, mMax} : std::vector<int64_t>{mMax, p.k};
  if (gatherB)
    p.gatherBShape = q.transposeB ? std::vector<int64_t>{nMax, p.k} : std::vector<int64_t>{p.k, nMax};
  p.pieces = gatherA ? summaPieces(mMax, q.pieces) : 1; // alike on every rank
  // D's blocks interleave: the bias-gradient vectors are indexed by this rank's D.
  p.rowSpace = p.dLocal[0];
  p.colSpace = p.dLocal[1];
  p.myRows = {0, p.dLocal[0]};
  p.myCols = {0, p.dLocal[1]};
  summaSteps(p, q, gatherA, gatherB);
  p.flags = p.ranks + p.ranks * (p.pieces + 1);
  return p;
}
