// The wgmma kernels' tile scheduler (see TileScheduler.h).
#include "TileScheduler.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <tuple>

using namespace mlir;
using namespace mlir::mepi;

namespace {
constexpr int64_t kGroupM = 8; // tile rows per group of the tile order
} // namespace

std::pair<Value, Value> mlir::mepi::emitDivRem(Emitter &e, Value a, Value b) {
  if (getConstantIntValue(b))
    return {e.div(a, b), e.rem(a, b)};
  Type f32 = e.b.getF32Type();
  Value af = arith::UIToFPOp::create(e.b, e.loc, f32, a);
  Value bf = arith::UIToFPOp::create(e.b, e.loc, f32, b);
  Value reciprocal = NVVM::RcpApproxFtzF32Op::create(e.b, e.loc, f32, bf);
  Value q = arith::FPToUIOp::create(e.b, e.loc, e.b.getI32Type(),
                                    arith::MulFOp::create(e.b, e.loc, af, reciprocal));
  Value r = e.sub(a, e.mul(q, b));
  Value over = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt, r, e.i32(0));
  q = e.select(over, e.sub(q, e.i32(1)), q);
  r = e.select(over, e.add(r, b), r);
  Value under = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::uge, r, b);
  return {e.select(under, e.add(q, e.i32(1)), q), e.select(under, e.sub(r, b), r)};
}

Value TileScheduler::emitWalkers(Emitter &e) const {
  Type i32 = e.b.getI32Type();
  if (cluster() > 1)
    return NVVM::ClusterDimXOp::create(e.b, e.loc, i32);
  return NVVM::GridDimXOp::create(e.b, e.loc, i32);
}

Value TileScheduler::emitWalker(Emitter &e) const {
  Type i32 = e.b.getI32Type();
  if (cluster() > 1)
    return NVVM::ClusterIdXOp::create(e.b, e.loc, i32);
  return NVVM::BlockIdXOp::create(e.b, e.loc, i32);
}

Value TileScheduler::emitRangeStart(Emitter &e, const StreamKWalk &s, Value w) {
  if (!s.fixed || !s.fixed->pieces)
    return e.add(e.mul(w, s.share), e.min(w, s.extra));
  // Piece j of shared unit u (w = u * pieces + j) starts j * kSteps / pieces into it; walkers
  // past the pieces start at the end.
  int64_t kSteps = s.fixed->kSteps, pieces = s.fixed->pieces;
  w = e.min(w, e.i32(s.fixed->walkers));
  Value unit = e.div(w, e.i32(pieces)), piece = e.rem(w, e.i32(pieces));
  return e.add(e.mul(unit, e.i32(kSteps)), e.div(e.mul(piece, e.i32(kSteps)), e.i32(pieces)));
}

Value TileScheduler::emitWalkerOf(Emitter &e, const StreamKWalk &s, Value p) {
  if (s.fixed && s.fixed->pieces) {
    // k-step r of unit u lies in piece floor(((r + 1) * pieces - 1) / kSteps), the one j with
    // j * kSteps / pieces <= r < (j + 1) * kSteps / pieces (rounded down).
    int64_t kSteps = s.fixed->kSteps, pieces = s.fixed->pieces;
    Value unit = e.div(p, e.i32(kSteps)), r = e.rem(p, e.i32(kSteps));
    Value piece = e.div(e.sub(e.mul(e.add(r, e.i32(1)), e.i32(pieces)), e.i32(1)), e.i32(kSteps));
    return e.add(e.mul(unit, e.i32(pieces)), piece);
  }
  // The first `extra` ranges are one longer (the divisor kept nonzero where there are no
  // ranges, for the whole units' iterations).
  Value longer, inLonger, shorter;
  if (s.fixed) { // constant divisors
    longer = e.i32(s.fixed->share + 1);
    inLonger = e.i32(s.fixed->extra * (s.fixed->share + 1));
    shorter = e.i32(std::max<int64_t>(s.fixed->share, 1));
  } else {
    longer = e.add(s.share, e.i32(1)), inLonger = e.mul(s.extra, longer);
    shorter = e.select(e.eq(s.share, e.i32(0)), e.i32(1), s.share);
  }
  return e.select(e.ult(p, inLonger), emitDivRem(e, p, longer).first,
                  e.add(s.extra, emitDivRem(e, e.sub(p, inLonger), shorter).first));
}

namespace {
/// The walk's kernel-wide counts: each of `grid` walkers' whole units, the first unit cut into
/// ranges, the walkers with a range and their k-steps (share, one more for the first `extra`).
template <typename N> struct WalkCounts {
  N wholeUnits, firstShared, walkers, share, extra;
};

/// The rule of the counts, once for both arithmetics (`A`): every walker's whole units, then
/// the last wave's k-steps cut into ranges of at least kMinStreamKSteps, as many as the k-steps
/// allow but no fewer than the units (where a unit has fewer k-steps, one each), at least one,
/// at most the walkers: fewer walkers share them where they are few.
template <typename A, typename N>
WalkCounts<N> walkCounts(const A &a, N unitCount, N kSteps, N grid) {
  WalkCounts<N> w;
  w.wholeUnits = a.divRem(unitCount, grid).first;
  w.firstShared = a.mul(w.wholeUnits, grid);
  N tailUnits = a.sub(unitCount, w.firstShared);
  N steps = a.mul(tailUnits, kSteps);
  N fit = a.atLeast(a.divConstant(steps, sm90::kMinStreamKSteps), tailUnits);
  w.walkers = a.min(grid, a.atLeastOne(fit));
  std::tie(w.share, w.extra) = a.divRem(steps, w.walkers);
  return w;
}

/// walkCounts on constants, where the kernel is generated.
struct ConstantArith {
  std::pair<int64_t, int64_t> divRem(int64_t x, int64_t y) const { return {x / y, x % y}; }
  int64_t mul(int64_t x, int64_t y) const { return x * y; }
  int64_t sub(int64_t x, int64_t y) const { return x - y; }
  int64_t divConstant(int64_t x, int64_t y) const { return x / y; }
  int64_t atLeast(int64_t x, int64_t y) const { return std::max(x, y); }
  int64_t atLeastOne(int64_t x) const { return std::max<int64_t>(x, 1); }
  int64_t min(int64_t x, int64_t y) const { return std::min(x, y); }
};

/// walkCounts in the kernel (unsigned i32; a runtime divisor through emitDivRem).
struct KernelArith {
  Emitter &e;
  std::pair<Value, Value> divRem(Value x, Value y) const { return emitDivRem(e, x, y); }
  Value mul(Value x, Value y) const { return e.mul(x, y); }
  Value sub(Value x, Value y) const { return e.sub(x, y); }
  Value divConstant(Value x, int64_t y) const { return e.div(x, e.i32(y)); }
  Value atLeast(Value x, Value y) const { return e.select(e.ult(x, y), y, x); }
  Value atLeastOne(Value x) const { return e.select(e.eq(x, e.i32(0)), e.i32(1), x); }
  Value min(Value x, Value y) const { return e.min(x, y); }
};
} // namespace

/// The walk's kernel-wide values for `grid` walkers (walkCounts), or where the last wave's
/// units are cut into `pieces` ranges each (Sm90Spec::streamKPieces), those.
static TileScheduler::StreamKWalk::Fixed fixedWalk(int64_t unitCount, int64_t kSteps, int64_t grid,
                                                   int64_t pieces) {
  WalkCounts<int64_t> w = walkCounts(ConstantArith{}, unitCount, kSteps, grid);
  TileScheduler::StreamKWalk::Fixed f;
  f.grid = grid;
  f.kSteps = kSteps;
  f.wholeUnits = w.wholeUnits;
  if (pieces) {
    f.pieces = pieces;
    f.walkers = (unitCount - w.firstShared) * pieces;
    return f;
  }
  f.walkers = w.walkers;
  f.share = w.share;
  f.extra = w.extra;
  return f;
}

auto TileScheduler::emitStreamKWalk(Emitter &e) const -> StreamKWalk {
  StreamKWalk s;
  int64_t unitCount = spec.workUnits();
  s.walker = emitWalker(e);
  if (std::optional<int64_t> grid = spec.fixedStreamKWalkers())
    return emitFixedStreamKWalk(
        e, fixedWalk(unitCount, spec.kSteps(), *grid, spec.streamKPieces()), s.walker);
  // The grid may hold more walkers than units (Sm90Spec::walkers): then no walker has whole
  // units and all the k-steps are shared.
  s.grid = e.min(emitWalkers(e), e.i32(spec.streamKMaxBlocks() / cluster()));
  WalkCounts<Value> w =
      walkCounts(KernelArith{e}, e.i32(unitCount), e.i32(spec.kSteps()), s.grid);
  s.wholeUnits = w.wholeUnits;
  s.firstShared = w.firstShared;
  s.walkers = w.walkers;
  s.share = w.share;
  s.extra = w.extra;
  emitWalkerRange(e, s);
  return s;
}

void TileScheduler::emitWalkerRange(Emitter &e, StreamKWalk &s) const {
  Value kSteps = e.i32(spec.kSteps());
  s.begin = emitRangeStart(e, s, s.walker);
  s.end = emitRangeStart(e, s, e.add(s.walker, e.i32(1)));
  s.firstUnit = e.div(s.begin, kSteps);
  Value lastUnit = e.div(e.sub(s.end, e.i32(1)), kSteps);
  Value ranged = e.andI(e.ult(s.walker, s.walkers), e.ult(s.begin, s.end));
  Value units = e.select(ranged, e.add(e.sub(lastUnit, s.firstUnit), e.i32(1)), e.i32(0));
  s.iterations = e.select(e.ult(s.walker, s.grid), e.add(s.wholeUnits, units), e.i32(0));
}

auto TileScheduler::emitFixedStreamKWalk(Emitter &e, const StreamKWalk::Fixed &f,
                                         Value walker) const -> StreamKWalk {
  // The runtime launches exactly f.grid blocks (the device's multiprocessors bound both):
  // a kernel launched otherwise would leave units undone, so it stops instead.
  auto wrongGrid = scf::IfOp::create(e.b, e.loc, e.ne(emitWalkers(e), e.i32(f.grid)),
                                     /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(wrongGrid.thenBlock());
    LLVM::Trap::create(e.b, e.loc);
  }
  StreamKWalk s;
  s.fixed = f;
  s.walker = walker;
  s.grid = e.i32(f.grid);
  s.wholeUnits = e.i32(f.wholeUnits);
  s.firstShared = e.i32(f.wholeUnits * f.grid);
  s.walkers = e.i32(f.walkers);
  s.share = e.i32(f.share);
  s.extra = e.i32(f.extra);
  emitWalkerRange(e, s);
  return s;
}

auto TileScheduler::emitWorkUnit(Emitter &e, Value unit, const StreamKWalk *walk) const
    -> WorkUnit {
  WorkUnit w;
  int64_t splits = spec.getConfig().getScheduler().getSplits(), kSteps = spec.kSteps();
  // Batched: each batch element's units in turn (no stream-K then). A D with batch
  // dimensions of size 1 only is still addressed through batch coordinates and views.
  if (spec.problem().batch > 1) {
    w.batch = e.div(unit, e.i32(spec.unitsPerBatch()));
    unit = e.rem(unit, e.i32(spec.unitsPerBatch()));
  } else if (spec.problem().batched) {
    w.batch = e.i32(0);
  }
  // A tile's splits are consecutive units, so they run at the same time on neighbouring blocks.
  w.tile = splits > 1 ? e.div(unit, e.i32(splits)) : unit;
  w.split = splits > 1 ? e.rem(unit, e.i32(splits)) : e.i32(0);
  w.splits = e.i32(splits);
  // The counter slot and records of a split tile: its index among every batch element's tiles
  // (in a cluster, among the blocks of every pair unit: Sm90Spec::counterSlots).
  w.slot = w.batch ? e.add(e.mul(w.batch, e.i32(spec.tileUnitsPerBatch())), w.tile) : w.tile;
  if (cluster() > 1 && splits > 1)
    w.slot = e.add(e.mul(w.slot, e.i32(cluster())), rank);
  Value slot = w.slot;
  w.record = [&e, slot, splits](Value j) { return e.add(e.mul(slot, e.i32(splits)), j); };
  if (walk)
    emitStreamKUnit(e, unit, *walk, w);
  if (groups)
    emitGroupedTilePosition(e, w);
  else
    emitTilePosition(e, w);
  if (walk)
    return w;
  // Balanced slices of the k-steps: sizes differ by at most one.
  w.kBegin = splits > 1 ? e.div(e.mul(w.split, e.i32(kSteps)), e.i32(splits)) : e.i32(0);
  w.kEnd = splits > 1 ? e.div(e.mul(e.add(w.split, e.i32(1)), e.i32(kSteps)), e.i32(splits))
                      : e.i32(kSteps);
  if (kGroups)
    emitGroupKSteps(e, w);
  return w;
}

Value TileScheduler::emitUnitKSteps(Emitter &e, Value unit) const {
  WorkUnit w = emitWorkUnit(e, e.min(unit, e.i32(spec.workUnits() - 1)), nullptr);
  return e.sub(w.kEnd, w.kBegin);
}

void TileScheduler::emitGroupKSteps(Emitter &e, WorkUnit &w) const {
  const Sm90Problem &p = spec.problem();
  int64_t tileK = spec.getConfig().getTileK();
  std::tie(w.kStart, w.kStop) =
      emitGroupBounds(e, kGroups->form, kGroups->bounds, w.batch, p.k, p.kGroups);
  // The k-steps that hold the group's elements: an empty group has none (its tile stores the
  // epilog of zero).
  w.kBegin = e.div(w.kStart, e.i32(tileK));
  Value end = e.div(e.add(w.kStop, e.i32(tileK - 1)), e.i32(tileK));
  w.kEnd = e.select(e.ult(w.kStart, w.kStop), end, w.kBegin);
}

void TileScheduler::emitStreamKUnit(Emitter &e, Value unit, const StreamKWalk &s,
                                    WorkUnit &w) const {
  // Iteration `unit` of the walker's loop. Its whole units first, then the shared units its
  // range meets, the last first: each range starts at its own k-step, but the pieces at their
  // ends start at k-step 0 together, so that the walkers read the same k-steps of A and B at
  // about the same time, which the L2 then holds for all.
  Value kSteps = e.i32(spec.kSteps());
  Value whole = e.ult(unit, s.wholeUnits);
  // Which of the shared units its range meets (when not whole), 0 being the first.
  Value index = e.sub(e.sub(s.iterations, e.i32(1)), unit);
  Value shared = e.add(s.firstUnit, index);
  Value at = e.mul(shared, kSteps); // the shared unit's first k-step, end to end
  w.tile = e.select(whole, e.add(s.walker, e.mul(unit, s.grid)), e.add(s.firstShared, shared));
  Value begin = e.select(e.eq(index, e.i32(0)), e.sub(s.begin, at), e.i32(0));
  w.kBegin = e.select(whole, e.i32(0), begin);
  w.kEnd = e.select(whole, kSteps, e.min(e.sub(s.end, at), kSteps));
  Value first = emitWalkerOf(e, s, at);
  Value last = emitWalkerOf(e, s, e.add(at, e.i32(spec.kSteps() - 1)));
  w.splits = e.select(whole, e.i32(1), e.add(e.sub(last, first), e.i32(1)));
  w.split = e.select(whole, e.i32(0), e.sub(s.walker, first));
  w.slot = e.add(e.mul(first, e.i32(cluster())), rank);
  // Split j's record: walker first + j's block keeps two, for the first shared unit its range
  // meets and for its last.
  Value blockRank = rank;
  int64_t clusterSize = cluster();
  w.record = [&e, s, shared, first, blockRank, kSteps, clusterSize](Value j) {
    Value walker = e.add(first, j);
    Value firstOfWalker = e.div(emitRangeStart(e, s, walker), kSteps);
    Value kind = e.select(e.eq(shared, firstOfWalker), e.i32(0), e.i32(1));
    return e.add(e.mul(e.add(e.mul(walker, e.i32(clusterSize)), blockRank), e.i32(2)), kind);
  };
}

std::pair<Value, Value> mepi::emitClusterPosition(Emitter &e, KernelConfigAttr config,
                                                  Value rank) {
  int64_t rows = Sm90Spec::clusterRows(config), columns = Sm90Spec::clusterColumns(config);
  if (columns == 1)
    return {rank, e.i32(0)};
  if (rows == 1)
    return {e.i32(0), rank};
  return {e.rem(rank, e.i32(rows)), e.div(rank, e.i32(rows))};
}

void TileScheduler::emitTilePosition(Emitter &e, WorkUnit &w) const {
  // Grouped order: kGroupM tile rows (pair rows in a cluster along M), walked column by
  // column (pair columns in a cluster along N).
  int64_t clusterRows = Sm90Spec::clusterRows(spec.getConfig());
  int64_t clusterColumns = Sm90Spec::clusterColumns(spec.getConfig());
  int64_t rows = llvm::divideCeil(spec.tilesM(), clusterRows);
  int64_t columns = llvm::divideCeil(spec.tilesN(), clusterColumns);
  // Every group has kGroupM rows but the last, which has tilesM % kGroupM: both constants, so
  // each division is by a constant (a variable divisor of a few bits becomes a div.u16, which
  // ptxas makes a subroutine call).
  Value perGroup = e.i32(kGroupM * columns);
  Value group = e.div(w.tile, perGroup);
  Value firstRow = e.mul(group, e.i32(kGroupM));
  Value local = e.rem(w.tile, perGroup);
  Value rowInGroup = e.rem(local, e.i32(kGroupM)), colOfGroup = e.div(local, e.i32(kGroupM));
  if (int64_t lastRows = rows % kGroupM) {
    Value full = e.ult(group, e.i32(rows / kGroupM));
    rowInGroup = arith::SelectOp::create(e.b, e.loc, full, rowInGroup,
                                         e.rem(local, e.i32(lastRows)));
    colOfGroup = arith::SelectOp::create(e.b, e.loc, full, colOfGroup,
                                         e.div(local, e.i32(lastRows)));
  }
  // Block `rank` of a cluster takes tile (rank % rows, rank / rows) of its unit, which may lie
  // past D's last tile row or column.
  w.tileRow = e.add(firstRow, rowInGroup);
  w.tileCol = colOfGroup;
  auto [rankRow, rankColumn] = emitClusterPosition(e, spec.getConfig(), rank);
  if (clusterRows > 1)
    w.tileRow = e.add(e.mul(w.tileRow, e.i32(clusterRows)), rankRow);
  w.inside = e.ult(w.tileRow, e.i32(spec.tilesM()));
  if (clusterColumns > 1) {
    w.tileCol = e.add(e.mul(w.tileCol, e.i32(clusterColumns)), rankColumn);
    Value insideColumns = e.ult(w.tileCol, e.i32(spec.tilesN()));
    w.inside = clusterRows > 1 ? e.andI(w.inside, insideColumns) : insideColumns;
  }
}

int64_t TileScheduler::groupedUnitColumns() const {
  return llvm::divideCeil(spec.tilesN(), Sm90Spec::clusterColumns(spec.getConfig()));
}

void TileScheduler::emitGroupedTilePosition(Emitter &e, WorkUnit &w) const {
  // Bands of kGroupM tile rows walked column by column, as emitTilePosition, over the total
  // tile rows of the groups; the last band's rows (1 to kGroupM) vary with the sizes. In a
  // cluster along N (its blocks share A's tile, the only form grouped kernels take) a unit is
  // a tile row's run of cluster-columns tiles, so every block of it has the same group; block
  // `rank` takes the rank-th, which may lie right of D.
  Value rows = groups->emitTotalTileRows(e);
  Value perBand = e.i32(kGroupM * groupedUnitColumns());
  Value band = e.div(w.tile, perBand);
  Value local = e.rem(w.tile, perBand);
  Value firstRow = e.mul(band, e.i32(kGroupM));
  Value bandRows = e.min(e.sub(rows, firstRow), e.i32(kGroupM));
  auto [colOfBand, rowInBand] = emitDivRem(e, local, bandRows);
  w.tileRow = e.add(firstRow, rowInBand);
  w.tileCol = colOfBand;
  w.inside = arith::ConstantIntOp::create(e.b, e.loc, 1, 1);
  if (int64_t columns = Sm90Spec::clusterColumns(spec.getConfig()); columns > 1) {
    Value rankColumn = emitClusterPosition(e, spec.getConfig(), rank).second;
    w.tileCol = e.add(e.mul(colOfBand, e.i32(columns)), rankColumn);
    w.inside = e.ult(w.tileCol, e.i32(spec.tilesN()));
  }
  GroupTable::Place place = groups->emitPlace(e, w.tileRow);
  w.group = place.group;
  w.groupRow = place.firstRow;
  w.rowEnd = place.rowEnd;
}

scf::ForOp TileScheduler::emitUnitLoop(Emitter &e, const StreamKWalk *walk, Value skip,
                                       int64_t stride, Value init) const {
  OpBuilder &b = e.b;
  if (walk) { // stream-K: the walker's iterations (emitWorkUnit)
    auto loop = scf::ForOp::create(b, e.loc, e.i32(0), walk->iterations, e.i32(1),
                                   ValueRange{init ? init : e.i32(0)});
    b.setInsertionPointToStart(loop.getBody());
    return loop;
  }
  // A cluster's blocks walk the cluster's units together.
  Value first = emitWalker(e);
  Value grid = emitWalkers(e);
  if (skip)
    first = e.add(first, e.mul(skip, grid));
  Value step = stride == 1 ? grid : e.mul(grid, e.i32(stride));
  // Grouped: as many units as the groups' tile rows make.
  Value units = groups ? e.mul(groups->emitTotalTileRows(e), e.i32(groupedUnitColumns()))
                       : e.i32(spec.workUnits());
  auto loop = scf::ForOp::create(b, e.loc, first, units, step,
                                 ValueRange{init ? init : e.i32(0)});
  b.setInsertionPointToStart(loop.getBody());
  return loop;
}
