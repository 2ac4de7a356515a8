// Block scales in the promoted main loop (BlockScales.h).
#include "BlockScales.h"
#include "WgmmaEpilogFrame.h"
#include "WgmmaFragment.h"

#include "mepi/IR/BlockScaling.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

BlockScaleCopies::BlockScaleCopies(Emitter &e, Value aScales, Value bScales, int64_t m,
                                   int64_t n, int64_t tileM, int64_t tileN)
    : aScales(aScales), bScales(bScales), aBase(emitGlobalBase(e, aScales)),
      bBase(emitGlobalBase(e, bScales)), m(m), n(n), tileM(tileM),
      twoBlocks(kScaleBlockElements % tileN != 0) {}

Value BlockScaleCopies::emitAddress(Emitter &e, Value scales, Value i, Value j) const {
  auto [strides, offset] = cast<MemRefType>(scales.getType()).getStridesAndOffset();
  SmallVector<Value> stride;
  for (auto [d, s] : llvm::enumerate(strides))
    stride.push_back(ShapedType::isDynamic(s)
                         ? memref::ExtractStridedMetadataOp::create(e.b, e.loc, scales)
                               .getStrides()[d]
                         : arith::ConstantIndexOp::create(e.b, e.loc, s).getResult());
  Value element = arith::AddIOp::create(e.b, e.loc,
                                        arith::MulIOp::create(e.b, e.loc, i, stride[0]),
                                        arith::MulIOp::create(e.b, e.loc, j, stride[1]));
  Value bytes = arith::MulIOp::create(
      e.b, e.loc, element,
      arith::ConstantIndexOp::create(e.b, e.loc, BlockScaleLayout::kScaleBytes));
  Value bytes64 = arith::IndexCastUIOp::create(e.b, e.loc, e.b.getI64Type(), bytes);
  return e.globalOffset(scales == aScales ? aBase : bBase, bytes64);
}

void BlockScaleCopies::emit(Emitter &e, Value stage, Value full, Value firstRow,
                            Value firstCol, Value k, Value lane) const {
  OpBuilder &b = e.b;
  Value block = e.toIndex(k);
  auto cached = NVVM::LoadCacheModifierKindAttr::get(b.getContext(),
                                                     NVVM::LoadCacheModifierKind::CA);
  auto copy = [&](Value dstByte, Value src) {
    NVVM::CpAsyncOp::create(b, e.loc, e.offset(stage, dstByte), src,
                            b.getI32IntegerAttr(BlockScaleLayout::kScaleBytes), cached,
                            Value());
  };
  for (int64_t j = 0; j < tileM / kThreads; ++j) {
    Value inTile = e.add(lane, e.i32(j * kThreads));
    Value row = e.min(e.add(firstRow, inTile), e.i32(m - 1));
    copy(e.mul(inTile, e.i32(BlockScaleLayout::kScaleBytes)),
         emitAddress(e, aScales, e.toIndex(row), block));
  }
  // B's: lane 0 the tile's first block of columns, lane 1 the next where the tile crosses.
  int64_t lastBlock = (n + kScaleBlockElements - 1) / kScaleBlockElements - 1;
  auto copiesB = scf::IfOp::create(b, e.loc, e.ult(lane, e.i32(twoBlocks ? 2 : 1)),
                                   /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(copiesB.thenBlock());
    Value column = e.min(e.add(e.div(firstCol, e.i32(kScaleBlockElements)), lane),
                         e.i32(lastBlock));
    copy(e.add(e.i32(BlockScaleLayout::bOffset(tileM)),
               e.mul(lane, e.i32(BlockScaleLayout::kScaleBytes))),
         emitAddress(e, bScales, e.toIndex(column), block));
  }
  NVVM::CpAsyncMBarrierArriveOp::create(b, e.loc, full, /*noinc=*/true);
}

BlockScaleFactors::BlockScaleFactors(Emitter &e, Value aScales, Value bScales, int64_t m,
                                     int64_t n, Value firstRow, int64_t slices,
                                     Value firstCol, int64_t tileM, int64_t tileN, Value thread,
                                     Value stages, int64_t stageBytes)
    : aScales(aScales), bScales(bScales), stages(stages), stageBytes(stageBytes), tileM(tileM),
      twoBlocks(kScaleBlockElements % tileN != 0) {
  // Staged: the rows' byte offsets in a stage. Loaded: the rows of D, where rows past D (a
  // tile's last rows) read the last row's factor: in range, and unused.
  Value lastRow = e.i32(m - 1);
  Value threadRow = e.add(firstRow, fragment::firstRow(e, thread));
  for (int64_t s = 0; s < slices; ++s)
    for (int64_t h = 0; h < fragment::kRowHalves; ++h) {
      Value row = e.add(threadRow, e.i32(64 * s + fragment::halfRowOffset(h)));
      if (stages)
        rowBytes.push_back(e.mul(row, e.i32(BlockScaleLayout::kScaleBytes)));
      else
        rows.push_back(e.toIndex(e.min(row, lastRow)));
    }
  if (stages && twoBlocks)
    split = e.sub(e.i32(kScaleBlockElements), e.rem(firstCol, e.i32(kScaleBlockElements)));
  if (stages)
    return;
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

auto BlockScaleFactors::factorsOf(Emitter &e, ArrayRef<Value> loaded) const -> Factors {
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

SmallVector<Value> BlockScaleFactors::carriedOf(const Factors &f) {
  SmallVector<Value> out(f.first);
  llvm::append_range(out, f.second);
  return out;
}

// Loaded from global memory, the loop carries the products of the next block's scales,
// formed after the promotion before their use. (Carrying the loaded scales instead, ptxas
// copied each into its loop register before the block's wgmmas, which waited for the load
// there: a quarter of the consumer's stalls in ncu, bench/NOTES.md.)
SmallVector<Value> BlockScaleFactors::emitCarriedInit(Emitter &e, Value k) const {
  if (stages)
    return {};
  return carriedOf(factorsOf(e, emitLoads(e, k)));
}

auto BlockScaleFactors::emitBlockTop(Emitter &e, ValueRange carried, Value next) const
    -> Block {
  Block block;
  if (stages)
    return block;
  size_t half = twoBlocks ? carried.size() / 2 : carried.size();
  Factors f;
  f.first.assign(carried.begin(), carried.begin() + half);
  f.second.assign(carried.begin() + half, carried.end());
  f.split = split;
  block.factors = f;
  block.loaded = emitLoads(e, next);
  return block;
}

void BlockScaleFactors::emitAfterIssue(Emitter &e, Block &block, Value stage) const {
  if (!stages)
    return;
  Value base = e.offset(stages, e.mul(stage, e.i32(stageBytes)));
  auto load = [&](Value byte) {
    return LLVM::LoadOp::create(e.b, e.loc, e.b.getF32Type(), e.offset(base, byte),
                                /*alignment=*/4)
        .getResult();
  };
  int64_t bOffset = BlockScaleLayout::bOffset(tileM);
  SmallVector<Value> loaded = {load(e.i32(bOffset))};
  if (twoBlocks)
    loaded.push_back(load(e.i32(bOffset + BlockScaleLayout::kScaleBytes)));
  for (Value row : rowBytes)
    loaded.push_back(load(row));
  block.factors = factorsOf(e, loaded);
}

SmallVector<Value> BlockScaleFactors::emitCarriedNext(Emitter &e, const Block &block) const {
  if (stages)
    return {};
  return carriedOf(factorsOf(e, block.loaded));
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
