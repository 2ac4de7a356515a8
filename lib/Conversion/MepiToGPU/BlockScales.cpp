// Block scales in the promoted main loop (BlockScales.h).
#include "BlockScales.h"
#include "WgmmaFragment.h"

#include "mepi/IR/MepiOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mepi;

BlockScaleFactors::BlockScaleFactors(Emitter &e, Value aScales, Value bScales, int64_t m,
                                     Value firstRow, int64_t slices, Value firstCol,
                                     Value thread)
    : aScales(aScales), bScales(bScales) {
  // Rows past D (a tile's last rows) read the last row's factor: in range, and unused.
  Value lastRow = e.i32(m - 1);
  Value threadRow = e.add(firstRow, fragment::firstRow(e, thread));
  for (int64_t s = 0; s < slices; ++s)
    for (int64_t h = 0; h < fragment::kRowHalves; ++h) {
      Value row = e.add(threadRow, e.i32(64 * s + fragment::halfRowOffset(h)));
      rows.push_back(e.toIndex(e.min(row, lastRow)));
    }
  columnBlock = e.toIndex(e.div(firstCol, e.i32(kScaleBlockElements)));
}

SmallVector<Value> BlockScaleFactors::emitLoads(Emitter &e, Value k) const {
  Value block = e.toIndex(k);
  SmallVector<Value> loaded = {
      memref::LoadOp::create(e.b, e.loc, bScales, ValueRange{columnBlock, block})};
  for (Value row : rows)
    loaded.push_back(memref::LoadOp::create(e.b, e.loc, aScales, ValueRange{row, block}));
  return loaded;
}

SmallVector<Value> BlockScaleFactors::emitFactors(Emitter &e, ArrayRef<Value> loaded) {
  SmallVector<Value> factors;
  for (Value a : loaded.drop_front())
    factors.push_back(arith::MulFOp::create(e.b, e.loc, a, loaded.front()));
  return factors;
}
