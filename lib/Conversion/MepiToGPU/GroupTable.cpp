// The group table of a grouped wgmma kernel (see GroupTable.h).
#include "GroupTable.h"

#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
constexpr int64_t kWarp = 32;
enum Array : int64_t { kTileStart = 0, kRowStart = 1, kRowEnd = 2 };

/// The inclusive sum of `x` (i32) over lanes 0..lane of the warp.
Value emitWarpInclusiveSum(Emitter &e, Value x, Value lane) {
  for (int64_t d = 1; d < kWarp; d *= 2) {
    Value up = NVVM::ShflOp::create(e.b, e.loc, x.getType(), e.i32(-1), x, e.i32(d), e.i32(0),
                                    NVVM::ShflKind::up, UnitAttr());
    x = e.add(x, e.select(e.ult(lane, e.i32(d)), e.i32(0), up));
  }
  return x;
}
} // namespace

GroupTable::GroupTable(MatmulOp op, Value base, int64_t tileM)
    : form(*op.getGroupForm()), groups(op.getNumGroups()),
      rows(op.getD().getType().getDimSize(0)), tileM(tileM), base(base) {}

/// The first entry of `array`: tileStart[S + 1] | rowStart[S] | rowEnd[S].
int64_t GroupTable::arrayStart(int64_t array) const {
  return array == kTileStart ? 0 : array == kRowStart ? groups + 1 : 2 * groups + 1;
}

Value GroupTable::emitEntry(Emitter &e, int64_t array, Value index) const {
  Value at = e.add(e.i32(arrayStart(array)), index);
  return LLVM::LoadOp::create(e.b, e.loc, e.b.getI32Type(), e.offset(base, e.mul(at, e.i32(4))),
                              /*alignment=*/4);
}

void GroupTable::emitStoreEntry(Emitter &e, int64_t array, Value index, Value value) const {
  Value at = e.add(e.i32(arrayStart(array)), index);
  LLVM::StoreOp::create(e.b, e.loc, value, e.offset(base, e.mul(at, e.i32(4))), /*alignment=*/4);
}

namespace {
/// Element `index` (i32) of `bounds`, clamped to [0, limit] (i32).
Value emitClampedLoad(Emitter &e, Value bounds, Value index, int64_t limit) {
  OpBuilder &b = e.b;
  Value v = memref::LoadOp::create(b, e.loc, bounds, ValueRange{e.toIndex(index)});
  if (!v.getType().isInteger(64))
    v = arith::ExtSIOp::create(b, e.loc, b.getI64Type(), v);
  v = arith::MaxSIOp::create(b, e.loc, v, e.i64(0));
  v = arith::MinSIOp::create(b, e.loc, v, e.i64(limit));
  return arith::TruncIOp::create(b, e.loc, b.getI32Type(), v);
}
} // namespace

std::pair<Value, Value> mlir::mepi::emitGroupBounds(Emitter &e, GroupForm form, Value bounds,
                                                    Value g, int64_t limit, int64_t groups) {
  auto atLeast = [&](Value x, Value y) { return arith::MaxUIOp::create(e.b, e.loc, x, y); };
  auto load = [&](Value index) { return emitClampedLoad(e, bounds, index, limit); };
  switch (form) {
  case GroupForm::Ends: {
    Value first = e.eq(g, e.i32(0));
    Value previous = load(e.select(first, e.i32(0), e.sub(g, e.i32(1))));
    Value start = e.select(first, e.i32(0), previous);
    return {start, atLeast(load(g), start)};
  }
  case GroupForm::Indptr: {
    Value start = load(g);
    return {start, atLeast(load(e.add(g, e.i32(1))), start)};
  }
  case GroupForm::Lengths:
    return {e.i32(0), load(g)};
  case GroupForm::Masked: {
    // Each group has its own limit / groups elements, of which the first masked[g] count.
    int64_t perGroup = limit / groups;
    Value start = e.mul(g, e.i32(perGroup));
    return {start, e.add(start, e.min(load(g), e.i32(perGroup)))};
  }
  }
  return {};
}

std::pair<Value, Value> GroupTable::emitBounds(Emitter &e, Value groupsMemref, Value g) const {
  return emitGroupBounds(e, form, groupsMemref, g, rows, groups);
}

void GroupTable::emitBuild(Emitter &e, Value groupsMemref, Value tid) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  OpBuilder::InsertionGuard guard(b);
  auto warp0 = scf::IfOp::create(b, loc, e.ult(tid, e.i32(kWarp)), /*withElseRegion=*/false);
  b.setInsertionPointToStart(warp0.thenBlock());
  // Lane l takes groups [l * per, (l + 1) * per): two passes over them around a warp scan of
  // their tile rows and rows.
  int64_t per = llvm::divideCeil(groups, kWarp);
  Value lane = tid;
  struct Group {
    Value g, valid, start, end, rows, tileRows;
  };
  auto groupAt = [&](Value i) {
    Group r;
    r.g = e.add(e.mul(lane, e.i32(per)), i);
    r.valid = e.ult(r.g, e.i32(groups));
    std::tie(r.start, r.end) = emitBounds(e, groupsMemref, e.min(r.g, e.i32(groups - 1)));
    r.rows = e.select(r.valid, e.sub(r.end, r.start), e.i32(0));
    r.tileRows = e.div(e.add(r.rows, e.i32(tileM - 1)), e.i32(tileM));
    return r;
  };
  auto count = scf::ForOp::create(b, loc, e.i32(0), e.i32(per), e.i32(1),
                                  ValueRange{e.i32(0), e.i32(0)});
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(count.getBody());
    Group r = groupAt(count.getInductionVar());
    scf::YieldOp::create(b, loc, ValueRange{e.add(count.getRegionIterArg(0), r.tileRows),
                                            e.add(count.getRegionIterArg(1), r.rows)});
  }
  Value tileRows = emitWarpInclusiveSum(e, count.getResult(0), lane);
  Value rowSum = emitWarpInclusiveSum(e, count.getResult(1), lane);
  auto place = scf::ForOp::create(
      b, loc, e.i32(0), e.i32(per), e.i32(1),
      ValueRange{e.sub(tileRows, count.getResult(0)), e.sub(rowSum, count.getResult(1))});
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(place.getBody());
    Group r = groupAt(place.getInductionVar());
    Value tileAt = place.getRegionIterArg(0), rowAt = place.getRegionIterArg(1);
    // The lengths form's groups follow one another from row 0.
    if (form == GroupForm::Lengths) {
      r.start = e.min(rowAt, e.i32(rows));
      r.end = e.min(e.add(rowAt, r.rows), e.i32(rows));
    }
    auto store = scf::IfOp::create(b, loc, r.valid, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard then(b);
      b.setInsertionPointToStart(store.thenBlock());
      emitStoreEntry(e, kTileStart, r.g, tileAt);
      emitStoreEntry(e, kRowStart, r.g, r.start);
      emitStoreEntry(e, kRowEnd, r.g, r.end);
    }
    scf::YieldOp::create(b, loc, ValueRange{e.add(tileAt, r.tileRows), e.add(rowAt, r.rows)});
  }
  auto last = scf::IfOp::create(b, loc, e.eq(lane, e.i32(kWarp - 1)), /*withElseRegion=*/false);
  b.setInsertionPointToStart(last.thenBlock());
  emitStoreEntry(e, kTileStart, e.i32(groups), tileRows);
}

Value GroupTable::emitTotalTileRows(Emitter &e) const {
  return emitEntry(e, kTileStart, e.i32(groups));
}

GroupTable::Place GroupTable::emitPlace(Emitter &e, Value v) const {
  // The last group whose first tile row is at most v: a binary search of static steps (the
  // range halves independently of the data).
  Value lo = e.i32(0);
  for (int64_t length = groups; length > 1; length -= length / 2) {
    Value mid = e.add(lo, e.i32(length / 2));
    Value atMost = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ule,
                                         emitEntry(e, kTileStart, mid), v);
    lo = e.select(atMost, mid, lo);
  }
  Place place;
  place.group = lo;
  Value local = e.sub(v, emitEntry(e, kTileStart, lo));
  place.firstRow = e.add(emitEntry(e, kRowStart, lo), e.mul(local, e.i32(tileM)));
  place.rowEnd = emitEntry(e, kRowEnd, lo);
  return place;
}
