// The distributed matmul's plan: global problem, algorithm and schedule (DistPlan.h).
#include "Distributed/DistPlan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <deque>
#include <limits>

using namespace mepi::dist;
using namespace mepi::dist::plan;
using Kind = mepi::dist::Distribution::Kind;

Range plan::slabRange(int64_t extent, int ranks, int rank) {
  int64_t base = extent / ranks, extra = extent % ranks;
  return {rank * base + std::min<int64_t>(rank, extra), base + (rank < extra ? 1 : 0)};
}

int64_t plan::blockCyclicExtent(int64_t extent, int64_t block, int coord, int procs) {
  int64_t blocks = extent / block, whole = blocks / procs * block, extra = blocks % procs;
  if (coord < extra)
    return whole + block;
  if (coord == extra)
    return whole + extent % block;
  return whole;
}

namespace {
enum class Axis { M, N, K, None };

const char *axisName(Axis axis) {
  return axis == Axis::M ? "M" : axis == Axis::N ? "N" : axis == Axis::K ? "K" : "none";
}

/// The global shape of one operand from every rank's local shape, with each rank's part
/// checked against the slab rule; and which stored dimension is split (-1: replicated).
struct Global {
  std::vector<int64_t> shape;
  int splitDim = -1;
};

llvm::Expected<Global> globalShape(const std::vector<std::vector<int64_t>> &shapes,
                                   const Distribution &dist, const char *name) {
  Global g;
  int ranks = shapes.size();
  for (int r = 0; r < ranks; ++r)
    if (shapes[r].size() != 2)
      return planError(llvm::formatv("operand {0}: expected a matrix (rank 2) on every rank, "
                                     "got rank {1} on rank {2}",
                                     name, shapes[r].size(), r));
  g.splitDim = dist.kind == Kind::SlabX ? 0 : dist.kind == Kind::SlabY ? 1 : -1;
  g.shape = shapes[0];
  if (g.splitDim >= 0) {
    g.shape[g.splitDim] = 0;
    for (const auto &s : shapes)
      g.shape[g.splitDim] += s[g.splitDim];
  }
  for (int r = 0; r < ranks; ++r) {
    for (int d = 0; d < 2; ++d) {
      int64_t expected = d == g.splitDim ? slabRange(g.shape[d], ranks, r).size : g.shape[d];
      if (shapes[r][d] != expected)
        return planError(llvm::formatv(
            "operand {0} ({1}): rank {2} holds [{3}, {4}]; expected {5} {6} in dimension {7} "
            "(of [{8}, {9}] over {10} ranks: extent/P + (rank < extent%P))",
            name, dist.str(), r, shapes[r][0], shapes[r][1], expected,
            d == g.splitDim ? "as its slab" : "as on rank 0", d, g.shape[0], g.shape[1],
            ranks));
    }
  }
  return g;
}

} // namespace

llvm::Error plan::planError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error plan::unsupportedError(const llvm::Twine &message) {
  return llvm::createStringError(std::make_error_code(std::errc::not_supported), message);
}

namespace {
/// Builds the schedule of one algorithm (DistPlan.h describes each).
struct Builder {
  DistPlan &p;
  bool transA, transB, hasC;
  int64_t kLocal; // K on this rank (K split) or K
  bool remoteStores;
  int64_t dElementBytes;

  Step step(Step::Kind kind) {
    Step s;
    s.kind = kind;
    return s;
  }
  /// All-reduce's row bands (one ring each, in turn) and the one being built: each band has
  /// its own flags and slots. Other schedules: one band, p.chunks.
  std::vector<std::vector<Range>> bands;
  int band = 0;
  int arrivalFlag(int slot, int piece) const {
    return p.ranks + (band * 2 * p.ranks + slot) * p.pieces + piece;
  }
  /// Where slot `t` of the band being built starts in Partial and Recv.
  int64_t slotBase(int t) const { return (band * (p.ranks - 1) + t) * p.slotElements; }
  /// Rows `rows` (of M) of op(A), stored: [M, K] or [K, M] with pitch `pitch`.
  View aRows(Buffer buf, Range rows, int64_t k, int64_t pitch, int64_t rowBase = 0) const {
    return transA ? View{buf, 0, 0, rows.offset - rowBase, k, rows.size, pitch}
                  : View{buf, 0, rows.offset - rowBase, 0, rows.size, k, pitch};
  }
  /// Columns `cols` (of N) of op(B), stored [K, N] or [N, K].
  View bCols(Buffer buf, Range cols, int64_t k, int64_t pitch, int64_t colBase = 0) const {
    return transB ? View{buf, 0, cols.offset - colBase, 0, cols.size, k, pitch}
                  : View{buf, 0, 0, cols.offset - colBase, k, cols.size, pitch};
  }
  View whole(Buffer buf, const std::vector<int64_t> &shape) const {
    return View{buf, 0, 0, 0, shape[0], shape[1], shape[1]};
  }
  int addGemm(Gemm g) {
    p.gemms.push_back(g);
    Step s = step(Step::Kind::Gemm);
    s.gemm = p.gemms.size() - 1;
    p.steps.push_back(s);
    return s.gemm;
  }
  /// A copy into `peer`'s buffer on the copy stream, after that stream waited (once) for the
  /// peer's ready; `asked` says for which peers it did.
  void push(int peer, View from, View to, int flag, int afterGemm, std::vector<bool> &asked) {
    asked.resize(p.ranks, false);
    if (!asked[peer]) {
      Step w = step(Step::Kind::WaitReady);
      w.peer = peer;
      p.steps.push_back(w);
      asked[peer] = true;
    }
    Step s = step(Step::Kind::Push);
    s.peer = peer;
    s.from = from;
    s.to = to;
    s.flag = flag;
    s.gemm = afterGemm;
    p.steps.push_back(s);
  }
  void waitArrived(int flag) {
    Step s = step(Step::Kind::WaitArrived);
    s.flag = flag;
    p.steps.push_back(s);
  }
  /// The compute stream waits (once per execute) until `peer` said Ready, before the first
  /// GEMM that stores into its buffers.
  std::vector<bool> computeAsked;
  void computeWaitReady(int peer) {
    computeAsked.resize(p.ranks, false);
    if (computeAsked[peer])
      return;
    computeAsked[peer] = true;
    Step w = step(Step::Kind::ComputeWaitReady);
    w.peer = peer;
    p.steps.push_back(w);
  }
  /// Raises `peer`'s `flag` after the compute stream's work so far: after GEMM `afterGemm`
  /// (if >= 0) stored its rows there, with their aux outputs (DistAux.h).
  void signal(int peer, int flag, int afterGemm = -1) {
    Step s = step(Step::Kind::Signal);
    s.peer = peer;
    s.flag = flag;
    s.gemm = afterGemm;
    p.steps.push_back(s);
  }
  void finalRowsToPeers(Gemm g, int flag, bool mirrored, std::vector<bool> &asked);
  /// All-reduce over bands: a band's finished rows' copies to the peers, each pushed after
  /// one of the next band's ring copies (one copy stream, FIFO): they fill the ring's idle
  /// copy time instead of sharing NVLink with its partial sums.
  struct Gather {
    int peer, flag, gemm;
    View rows;
  };
  std::deque<Gather> gathers;
  void pushGathers(std::vector<bool> &asked, size_t count) {
    for (; count > 0 && !gathers.empty(); --count, gathers.pop_front())
      push(gathers.front().peer, gathers.front().rows, gathers.front().rows,
           gathers.front().flag, gathers.front().gemm, asked);
  }

  void allGatherA();
  void gatherWhole(bool gatherA);
  void wholeGemm(bool gatheredA);
  void ring(bool rows, bool allReduce);
  void ringSteps(bool rows, bool allReduce, const std::vector<Range> &chunks,
                 std::vector<bool> &asked);
  void ncclReduction(bool allReduce);
  void ncclGatherA();
};

void Builder::allGatherA() {
  int r = p.rank, P = p.ranks;
  int64_t aPitch = p.aLocal[1], gPitch = p.gatherShape[1];
  std::vector<bool> asked(P, false);
  p.steps.push_back(step(Step::Kind::Fork));
  p.steps.push_back(step(Step::Kind::Ready));
  for (int i = 1; i < P; ++i) {
    int q = (r + i) % P;
    auto pieces = rowPieces(p.chunks[r], p.pieces, p.tailRows);
    for (size_t j = 0; j < pieces.size(); ++j)
      push(q, aRows(Buffer::A, pieces[j], p.k, aPitch, p.chunks[r].offset),
           aRows(Buffer::Gather, pieces[j], p.k, gPitch), arrivalFlag(r, j), -1, asked);
  }
  View b = whole(Buffer::B, p.bLocal);
  // The peers' rows in the order they arrive: rank r - i pushes to rank r as its i-th
  // destination (taking rank r + i's first made every rank's first peer chunk its last
  // arrival on 3 ranks or more).
  for (int i = 0; i < P; ++i) {
    int src = (r + P - i) % P;
    auto pieces = rowPieces(p.chunks[src], p.pieces, p.tailRows);
    for (size_t j = 0; j < pieces.size(); ++j) {
      Gemm g;
      if (src == r) {
        g.a = aRows(Buffer::A, pieces[j], p.k, aPitch, p.chunks[r].offset);
      } else {
        waitArrived(arrivalFlag(src, j));
        g.a = aRows(Buffer::Gather, pieces[j], p.k, gPitch);
      }
      g.b = b;
      g.d = View{Buffer::D, 0, pieces[j].offset, 0, pieces[j].size, p.dLocal[1], p.dLocal[1]};
      if (hasC) {
        g.c = g.d;
        g.c->buffer = Buffer::C;
      }
      g.final = true;
      g.dRows = pieces[j];
      g.mRows = pieces[j];
      g.nCols = p.myCols;
      addGemm(g);
    }
  }
  p.steps.push_back(step(Step::Kind::Join));
}

/// Each rank's chunk of the gathered operand (A's rows or B's columns) copied into every rank's
/// gather buffer, its own included, then one GEMM over all of it.
void Builder::gatherWhole(bool gatherA) {
  int r = p.rank, P = p.ranks;
  std::vector<bool> asked(P, false);
  p.steps.push_back(step(Step::Kind::Fork));
  p.steps.push_back(step(Step::Kind::Ready));
  Range mine = p.chunks[r];
  View from = gatherA ? aRows(Buffer::A, mine, p.k, p.aLocal[1], mine.offset)
                      : bCols(Buffer::B, mine, p.k, p.bLocal[1], mine.offset);
  View to = gatherA ? aRows(Buffer::Gather, mine, p.k, p.gatherShape[1])
                    : bCols(Buffer::Gather, mine, p.k, p.gatherShape[1]);
  for (int i = 0; i < P; ++i)
    push((r + i) % P, from, to, arrivalFlag(r, 0), -1, asked);
  for (int i = 0; i < P; ++i)
    waitArrived(arrivalFlag((r + i) % P, 0));
  wholeGemm(gatherA);
  p.steps.push_back(step(Step::Kind::Join));
}

/// The one GEMM over all of the gathered operand (A's rows, or B's columns) into all of D.
void Builder::wholeGemm(bool gatheredA) {
  Gemm g;
  g.a = gatheredA ? whole(Buffer::Gather, p.gatherShape) : whole(Buffer::A, p.aLocal);
  g.b = gatheredA ? whole(Buffer::B, p.bLocal) : whole(Buffer::Gather, p.gatherShape);
  g.d = whole(Buffer::D, p.dLocal);
  if (hasC)
    g.c = whole(Buffer::C, p.dLocal);
  g.final = true;
  g.dRows = {0, p.dLocal[0]};
  g.mRows = p.myRows;
  g.nCols = p.myCols;
  addGemm(g);
}

/// NCCL gathers A's rows (not transposed: each chunk is contiguous), then one GEMM.
void Builder::ncclGatherA() {
  Step s = step(Step::Kind::NcclAllGather);
  s.from = whole(Buffer::A, p.aLocal);
  s.to = whole(Buffer::Gather, p.gatherShape);
  p.steps.push_back(s);
  wholeGemm(true);
}

/// One GEMM of this rank's partial sums over all of D, then NCCL sums them: each chunk of rows
/// to its owner (Reduce), or everywhere (AllReduce). For the identity epilog only.
void Builder::ncclReduction(bool allReduce) {
  Gemm g;
  g.a = whole(Buffer::A, p.aLocal);
  g.b = whole(Buffer::B, p.bLocal);
  g.d = View{Buffer::Partial, 0, 0, 0, p.m, p.n, p.n};
  g.mRows = {0, p.m};
  g.nCols = {0, p.n};
  addGemm(g);
  Step s = step(allReduce ? Step::Kind::NcclAllReduce : Step::Kind::NcclReduce);
  s.from = g.d;
  s.to = whole(Buffer::D, p.dLocal);
  p.steps.push_back(s);
}

/// The reduce-scatter ring (rows: D's rows split; else columns), and for AllReduce the
/// finished rows copied to every peer, band after band: a band's copies to the peers run under
/// the next band's GEMMs. The compute stream waits for the peers' rows at the end only.
void Builder::ring(bool rows, bool allReduce) {
  int r = p.rank, P = p.ranks;
  std::vector<bool> asked(P, false);
  p.steps.push_back(step(Step::Kind::Fork));
  p.steps.push_back(step(Step::Kind::Ready));
  for (band = 0; band < (int)bands.size(); ++band)
    ringSteps(rows, allReduce, bands[band], asked);
  if (allReduce)
    for (band = 0; band < (int)bands.size(); ++band)
      for (int i = 1; i < P; ++i) {
        int src = (r + i) % P;
        auto pieces = rowPieces(bands[band][src], p.pieces, p.tailRows);
        for (size_t j = 0; j < pieces.size(); ++j)
          waitArrived(arrivalFlag(P - 1 + src, j));
      }
  p.steps.push_back(step(Step::Kind::Join));
}

/// One band's ring over its `chunks` of rows (of columns: ReduceScatterCols).
void Builder::ringSteps(bool rows, bool allReduce, const std::vector<Range> &chunks,
                        std::vector<bool> &asked) {
  int r = p.rank, P = p.ranks, next = (r + 1) % P;
  View aAll = whole(Buffer::A, p.aLocal), bAll = whole(Buffer::B, p.bLocal);
  for (int t = 0; t < P; ++t) {
    int c = (r + P - 1 - t) % P;
    Range chunk = chunks[c];
    // Row pieces of the chunk's output block: D's rows within the chunk, or all M.
    auto pieces = rowPieces(rows ? chunk : Range{0, p.m}, p.pieces, p.tailRows);
    int64_t width = rows ? p.n : chunk.size;
    int64_t rowBase = rows ? chunk.offset : 0;
    for (size_t j = 0; j < pieces.size(); ++j) {
      Gemm g;
      g.a = aRows(Buffer::A, pieces[j], kLocal, aAll.pitch);
      g.b = rows ? bAll : bCols(Buffer::B, chunk, kLocal, bAll.pitch);
      g.mRows = pieces[j];
      g.nCols = rows ? Range{0, p.n} : chunk;
      View slot{Buffer::Partial, 0, pieces[j].offset - rowBase, 0, pieces[j].size, width, width};
      if (t > 0) {
        waitArrived(arrivalFlag(t - 1, j));
        View in = slot;
        in.buffer = Buffer::Recv;
        in.base = slotBase(t - 1);
        g.c = in;
        g.beta = 1.0f;
      }
      if (t + 1 < P && remoteStores) {
        computeWaitReady(next);
        g.d = slot;
        g.d.buffer = Buffer::Recv;
        g.d.base = slotBase(t);
        g.d.rank = next;
        addGemm(g);
        signal(next, arrivalFlag(t, j));
        pushGathers(asked, 1);
        continue;
      }
      if (t + 1 < P) {
        g.d = slot;
        g.d.base = slotBase(t);
        int id = addGemm(g);
        View to = g.d;
        to.buffer = Buffer::Recv;
        push(next, g.d, to, arrivalFlag(t, j), id, asked);
        pushGathers(asked, 1);
        continue;
      }
      if (j == 0)
        pushGathers(asked, gathers.size()); // the previous band's last
      g.final = true;
      int64_t dRow = allReduce || !rows ? pieces[j].offset : pieces[j].offset - chunk.offset;
      g.d = View{Buffer::D, 0, dRow, allReduce && !rows ? chunk.offset : 0, pieces[j].size,
                 width, p.dLocal[1]};
      g.dRows = {dRow, pieces[j].size};
      if (!allReduce) {
        addGemm(g);
        continue;
      }
      bool mirrored = static_cast<int64_t>(j) + p.mirroredPieces >= (int64_t)pieces.size();
      finalRowsToPeers(g, arrivalFlag(P - 1 + r, j), mirrored, asked);
    }
  }
}

/// All-reduce: final GEMM `g`, and its rows into every peer's D, raising the peer's `flag`:
/// `mirrored`, stored there by the GEMM itself; else copied after it by the copy engine, at
/// once in the last band, between the next band's ring copies in the others (gathers).
void Builder::finalRowsToPeers(Gemm g, int flag, bool mirrored, std::vector<bool> &asked) {
  int r = p.rank, P = p.ranks;
  // A mirror is the peer's block at the same offset: it needs that offset 16-byte aligned.
  mirrored &= dElementBytes > 0 && g.d.offset() * dElementBytes % 16 == 0;
  if (!mirrored) {
    int id = addGemm(g);
    for (int i = 1; i < P; ++i)
      gathers.push_back(Gather{(r + i) % P, flag, id, g.d});
    if (band + 1 == static_cast<int>(bands.size()))
      pushGathers(asked, gathers.size());
    return;
  }
  for (int i = 1; i < P; ++i) {
    computeWaitReady((r + i) % P);
    View there = g.d;
    there.rank = (r + i) % P;
    g.mirrors.push_back(there);
  }
  int id = addGemm(g);
  for (int i = 1; i < P; ++i)
    signal((r + i) % P, flag, id);
}
} // namespace

/// The schedule of p.algorithm: pieces, slots and steps.
static void schedule(DistPlan &p, const Request &q, Builder &builder) {
  int64_t maxChunk = 0;
  for (const Range &c : p.chunks)
    maxChunk = std::max(maxChunk, c.size);
  switch (p.algorithm) {
  case Algorithm::AllGatherA: {
    p.pieces = q.pieces > 0 ? q.pieces : 1;
    if (maxChunk < kMemoryBoundRows && q.pieces <= 0)
      return q.transposeA ? builder.gatherWhole(true) : builder.ncclGatherA();
    bool unaligned = llvm::any_of(p.chunks, [](const Range &c) { return c.offset % 128 != 0; });
    if (q.alignedFinalRows && unaligned) {
      p.pieces = 1;
      return builder.gatherWhole(true);
    }
    return builder.allGatherA();
  }
  case Algorithm::AllGatherB:
    p.pieces = 1;
    return builder.gatherWhole(false);
  default:
    break;
  }
  builder.kLocal = q.transposeA ? p.aLocal[0] : p.aLocal[1];
  bool rows = p.algorithm != Algorithm::ReduceScatterCols;
  bool allReduce = p.algorithm == Algorithm::AllReduce;
  if (rows && maxChunk < kMemoryBoundRows && q.identityEpilog && q.pieces <= 0) {
    p.pieces = 1;
    p.slots = 1;
    p.slotElements = p.m * p.n;
    p.dSymmetric = false;
    return builder.ncclReduction(allReduce);
  }
  builder.bands = allReduce ? allReduceBands(p, q, builder.kLocal)
                            : std::vector<std::vector<Range>>{p.chunks};
  p.bands = static_cast<int>(builder.bands.size());
  maxChunk = 0;
  int64_t shortest = std::numeric_limits<int64_t>::max();
  for (const std::vector<Range> &band : builder.bands)
    for (const Range &c : band) {
      maxChunk = std::max(maxChunk, c.size);
      shortest = std::min(shortest, c.size);
    }
  // Two pieces per chunk where both stay compute-bound: the second's GEMM hides the first's
  // copy, and the last copy is half a chunk (measured on 2x H200: 1, 3, 6, 8 pieces did worse,
  // bench/NOTES.md).
  int64_t pieceRows = rows ? maxChunk : p.m;
  p.pieces = q.pieces > 0 ? q.pieces : pieceRows >= 4 * kMemoryBoundRows ? 2 : 1;
  // The short last piece starts at its chunk's end less its rows: a multiple of 128 only
  // where the chunks are, which GEMMs reading or writing aux matrices need.
  bool wholeChunks = true;
  for (const std::vector<Range> &band : builder.bands)
    for (const Range &c : band)
      wholeChunks &= c.size % 128 == 0;
  if (allReduce && q.pieces <= 0 && (wholeChunks || !q.alignedFinalRows)) {
    p.tailRows = allReduceTail(shortest, p.n, builder.kLocal, q.ranks, q.tailPieces);
    if (!p.tailRows.empty())
      p.pieces = static_cast<int>(p.tailRows.size()) + 1;
  }
  // All-reduce: pieces whose GEMMs store their rows into the peers' D themselves (mirrors).
  // None unless asked: on 2x H200 a mirrored last piece shares NVLink with the previous
  // piece's copy and its GEMM slows by as much as the copy it saves (bench/NOTES.md,
  // Distributed: mirrored pieces).
  if (allReduce)
    p.mirroredPieces = std::max(q.mirroredPieces, 0);
  p.slots = p.bands * std::max(q.ranks - 1, 0);
  p.slotElements = rows ? maxChunk * p.n : p.m * maxChunk;
  builder.ring(rows, allReduce);
}

/// Where this rank's D lies among the rows of op(A) and the columns of op(B), the index
/// spaces of the bias-gradient vectors.
static void placeD(DistPlan &p, const Request &q) {
  p.rowSpace = p.m;
  p.colSpace = p.n;
  p.myRows = {0, p.m};
  p.myCols = {0, p.n};
  switch (p.algorithm) {
  case Algorithm::AllGatherA: p.myCols = slabRange(p.n, q.ranks, q.rank); break;
  case Algorithm::AllGatherB: p.myRows = slabRange(p.m, q.ranks, q.rank); break;
  case Algorithm::ReduceScatterRows: p.myRows = p.chunks[q.rank]; break;
  case Algorithm::ReduceScatterCols: p.myCols = p.chunks[q.rank]; break;
  default: break;
  }
}

static Axis axisOf(int splitDim, bool transposed, Axis dim0, Axis dim1) {
  if (splitDim < 0)
    return Axis::None;
  bool first = (splitDim == 0) != transposed;
  return first ? dim0 : dim1;
}

/// The algorithm of D's and the operands' split axes (nvmath's inference): A along M with B
/// and D along N gathers A; A and D along M with B along N gathers B; A and B along K reduce
/// (scatter by D's axis, or all-reduce a replicated D). Sets `p`'s algorithm, chunks, D's local
/// shape and pieces.
static llvm::Error selectAlgorithm(DistPlan &p, const Request &q, Axis aAxis, Axis bAxis,
                                   Axis dAxis) {
  auto slabs = [&](int64_t extent) {
    std::vector<Range> out;
    for (int r = 0; r < q.ranks; ++r)
      out.push_back(slabRange(extent, q.ranks, r));
    return out;
  };
  bool reduce = aAxis == Axis::K && bAxis == Axis::K;
  if (aAxis == Axis::M && bAxis == Axis::N && dAxis == Axis::N) {
    p.algorithm = Algorithm::AllGatherA;
    p.chunks = slabs(p.m);
    p.gatherShape = q.transposeA ? std::vector<int64_t>{p.k, p.m} : std::vector<int64_t>{p.m, p.k};
    p.dLocal = {p.m, slabRange(p.n, q.ranks, q.rank).size};
    p.pieces = q.pieces > 0 ? q.pieces : 1;
  } else if (aAxis == Axis::M && bAxis == Axis::N && dAxis == Axis::M) {
    p.algorithm = Algorithm::AllGatherB;
    p.chunks = slabs(p.n);
    p.gatherShape = q.transposeB ? std::vector<int64_t>{p.n, p.k} : std::vector<int64_t>{p.k, p.n};
    p.dLocal = {slabRange(p.m, q.ranks, q.rank).size, p.n};
    p.pieces = 1;
  } else if (reduce && dAxis != Axis::None) {
    bool rows = dAxis == Axis::M;
    p.algorithm = rows ? Algorithm::ReduceScatterRows : Algorithm::ReduceScatterCols;
    p.chunks = slabs(rows ? p.m : p.n);
    p.dLocal = rows ? std::vector<int64_t>{p.chunks[q.rank].size, p.n}
                    : std::vector<int64_t>{p.m, p.chunks[q.rank].size};
  } else if (reduce) {
    p.algorithm = Algorithm::AllReduce;
    p.chunks = q.alignedFinalRows ? alignedSlabs(p.m, q.ranks) : slabs(p.m);
    auto empty = llvm::find_if(p.chunks, [](const Range &c) { return c.size == 0; });
    if (empty != p.chunks.end())
      return unsupportedError(llvm::formatv(
          "AllReduce with an epilog that reads or writes aux matrices cuts D's rows at "
          "multiples of 128: M = {0} leaves rank {1} none (at least {2} rows on {3} ranks)",
          p.m, empty - p.chunks.begin(), 128 * (q.ranks - 1) + 1, q.ranks));
    p.dLocal = {p.m, p.n};
    p.dSymmetric = true;
  } else {
    return unsupportedError(llvm::formatv("distributions A {0}, B {1}, D {2} split op(A) along {3}, op(B) along "
                      "{4} and D along {5}: supported are A along M with B and D along N "
                      "(all-gather A), A and D along M with B along N (all-gather B), and A "
                      "and B along K with D along M, N or replicated (reduce-scatter, "
                      "all-reduce)",
                      q.distributions[0].str(), q.distributions[1].str(),
                      q.distributions[2].str(), axisName(aAxis), axisName(bAxis),
                      axisName(dAxis)));
  }
  return llvm::Error::success();
}

/// Every rank takes part in each exchange and each GEMM; an empty part would give a rank
/// zero-sized buffers and GEMMs (which the local runtime refuses) after the collective
/// allocations began, so it is refused here, alike on every rank.
static llvm::Error checkNonEmptyParts(const DistPlan &p, const Request &q) {
  for (int r = 0; r < q.ranks; ++r)
    for (auto [shapes, name] : {std::pair{&q.aShapes, "a"}, std::pair{&q.bShapes, "b"}})
      if ((*shapes)[r][0] == 0 || (*shapes)[r][1] == 0)
        return unsupportedError(llvm::formatv(
            "operand {0}: rank {1}'s part is empty ([{2}, {3}]): every rank must hold a "
            "non-empty part of each operand",
            name, r, (*shapes)[r][0], (*shapes)[r][1]));
  for (int r = 0; r < q.ranks; ++r)
    if (p.chunks[r].size == 0)
      return unsupportedError(llvm::formatv(
          "{0}: rank {1}'s chunk is empty ({2} rows or columns split over {3} ranks): every "
          "rank must hold a non-empty part of each operand and of D",
          algorithmName(p.algorithm), r, p.chunks.back().offset + p.chunks.back().size,
          q.ranks));
  return llvm::Error::success();
}

llvm::Expected<DistPlan> plan::makePlan(const Request &q) {
  if (q.distributions.size() != 3)
    return planError(llvm::formatv("distributions: expected 3 (A, B, D), got {0}",
                                   q.distributions.size()));
  if (q.ranks < 1 || q.rank < 0 || q.rank >= q.ranks)
    return planError(llvm::formatv("rank {0} of {1} ranks", q.rank, q.ranks));
  if ((int)q.aShapes.size() != q.ranks || (int)q.bShapes.size() != q.ranks)
    return planError(llvm::formatv("expected the shapes of {0} ranks", q.ranks));
  if (llvm::any_of(q.distributions, [](const Distribution &d) { return d.kind == Kind::BlockCyclic; }))
    return makeSummaPlan(q);
  auto ga = globalShape(q.aShapes, q.distributions[0], "a");
  if (!ga)
    return ga.takeError();
  auto gb = globalShape(q.bShapes, q.distributions[1], "b");
  if (!gb)
    return gb.takeError();
  const Distribution &dd = q.distributions[2];
  DistPlan p;
  p.ranks = q.ranks;
  p.rank = q.rank;
  p.m = q.transposeA ? ga->shape[1] : ga->shape[0];
  p.k = q.transposeA ? ga->shape[0] : ga->shape[1];
  int64_t kb = q.transposeB ? gb->shape[1] : gb->shape[0];
  p.n = q.transposeB ? gb->shape[0] : gb->shape[1];
  if (kb != p.k)
    return planError(llvm::formatv("operands a and b: op(A) is {0} x {1} and op(B) {2} x {3} "
                                   "(global): K differs",
                                   p.m, p.k, kb, p.n));
  Axis aAxis = axisOf(ga->splitDim, q.transposeA, Axis::M, Axis::K);
  Axis bAxis = axisOf(gb->splitDim, q.transposeB, Axis::K, Axis::N);
  Axis dAxis = dd.kind == Kind::SlabX ? Axis::M : dd.kind == Kind::SlabY ? Axis::N : Axis::None;
  p.aLocal = q.aShapes[q.rank];
  p.bLocal = q.bShapes[q.rank];
  Builder builder{p, q.transposeA, q.transposeB, q.hasC, p.k, q.remoteStores, q.dElementBytes};
  if (aAxis == Axis::K && bAxis == Axis::K && q.hasC)
    return unsupportedError("operand c: a C with A and B split along K (a reduce-scatter or all-reduce) is not "
        "supported yet");
  if (llvm::Error e = selectAlgorithm(p, q, aAxis, bAxis, dAxis))
    return std::move(e);
  if (llvm::Error e = checkNonEmptyParts(p, q))
    return std::move(e);
  placeD(p, q);
  schedule(p, q, builder);
  p.flags = p.ranks + 2 * p.ranks * p.pieces * p.bands;
  return p;
}
