// Block scales in the promoted main loop (BlockScales.h).
#include "BlockScales.h"
#include "WgmmaFragment.h"

#include "mepi/IR/MepiOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mepi;

BlockScaleFactors::BlockScaleFactors(Emitter &e, Value aScales, Value bScales, int64_t m,
                                     int64_t n, Value firstRow, int64_t slices, Value firstCol,
                                     int64_t tileN, Value thread)
    : aScales(aScales), bScales(bScales),
      twoBlocks(kScaleBlockElements % tileN != 0) {
  // Rows past D (a tile's last rows) read the last row's factor: in range, and unused.
  Value lastRow = e.i32(m - 1);
  Value threadRow = e.add(firstRow, fragment::firstRow(e, thread));
  for (int64_t s = 0; s < slices; ++s)
    for (int64_t h = 0; h < fragment::kRowHalves; ++h) {
      Value row = e.add(threadRow, e.i32(64 * s + fragment::halfRowOffset(h)));
      rows.push_back(e.toIndex(e.min(row, lastRow)));
    }
  Value block = e.div(firstCol, e.i32(kScaleBlockElements));
  columnBlock = e.toIndex(block);
  if (!twoBlocks)
    return;
  // A tile past D's last block has no second one: it reads the last (unused) again.
  int64_t lastBlock = (n + kScaleBlockElements - 1) / kScaleBlockElements - 1;
  nextBlock = e.toIndex(e.min(e.add(block, e.i32(1)), e.i32(lastBlock)));
  split = e.sub(e.i32(kScaleBlockElements), e.rem(firstCol, e.i32(kScaleBlockElements)));
}

SmallVector<Value> BlockScaleFactors::emitLoads(Emitter &e, Value k) const {
  Value block = e.toIndex(k);
  SmallVector<Value> loaded = {
      memref::LoadOp::create(e.b, e.loc, bScales, ValueRange{columnBlock, block})};
  if (twoBlocks)
    loaded.push_back(memref::LoadOp::create(e.b, e.loc, bScales, ValueRange{nextBlock, block}));
  for (Value row : rows)
    loaded.push_back(memref::LoadOp::create(e.b, e.loc, aScales, ValueRange{row, block}));
  return loaded;
}

auto BlockScaleFactors::emitFactors(Emitter &e, ArrayRef<Value> loaded) const -> Factors {
  Factors f;
  size_t bCount = twoBlocks ? 2 : 1;
  for (Value a : loaded.drop_front(bCount)) {
    f.first.push_back(arith::MulFOp::create(e.b, e.loc, a, loaded[0]));
    if (twoBlocks)
      f.second.push_back(arith::MulFOp::create(e.b, e.loc, a, loaded[1]));
  }
  f.split = split;
  return f;
}

SmallVector<Value> BlockScaleFactors::Factors::carried() const {
  SmallVector<Value> out(first);
  llvm::append_range(out, second);
  return out;
}

auto BlockScaleFactors::fromCarried(ArrayRef<Value> carried) const -> Factors {
  Factors f;
  size_t half = twoBlocks ? carried.size() / 2 : carried.size();
  f.first.assign(carried.begin(), carried.begin() + half);
  f.second.assign(carried.begin() + half, carried.end());
  f.split = split;
  return f;
}

Value BlockScaleFactors::Factors::of(Emitter &e, int64_t s, int64_t r) {
  int64_t at = fragment::kRowHalves * s + fragment::rowHalf(r);
  if (second.empty())
    return first[at];
  // Register r's 8 columns from 8 (r / 4) lie in one block (n0 and 128 are multiples of 8).
  int64_t group = r / 4, key = at * 1024 + group;
  Value &value = picked[key];
  if (!value)
    value = e.select(e.ult(e.i32(8 * group), split), first[at], second[at]);
  return value;
}
