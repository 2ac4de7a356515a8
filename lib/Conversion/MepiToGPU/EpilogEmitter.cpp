// Element indexing and the inlined epilog, shared by every kernel family.
#include "EpilogEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mepi;

Value mlir::mepi::emitDim(OpBuilder &b, Location loc, Value memref, int64_t dim) {
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  return memref::DimOp::create(b, loc, memref, dim);
}

SmallVector<Value> mlir::mepi::emitDelinearizedBatch(OpBuilder &b, Location loc, Value d,
                                                     Value linear) {
  int64_t numBatch = cast<MemRefType>(d.getType()).getRank() - 2;
  SmallVector<Value> indices(numBatch);
  for (int64_t i = numBatch - 1; i >= 0; --i) {
    Value size = emitDim(b, loc, d, i);
    indices[i] = i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, size).getResult();
    if (i != 0)
      linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return indices;
}

Value mlir::mepi::emitBatchCount(OpBuilder &b, Location loc, Value d) {
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  int64_t numBatch = cast<MemRefType>(d.getType()).getRank() - 2;
  for (int64_t i = 0; i < numBatch; ++i)
    count = arith::MulIOp::create(b, loc, count, emitDim(b, loc, d, i));
  return count;
}

SmallVector<Value> mlir::mepi::emitBroadcastBatchIndices(OpBuilder &b, Location loc,
                                                         Value memref, unsigned coreRank,
                                                         ArrayRef<Value> dBatch) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t numBatch = type.getRank() - coreRank;
  int64_t offset = static_cast<int64_t>(dBatch.size()) - numBatch;
  SmallVector<Value> indices;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t i = 0; i < numBatch; ++i) {
    int64_t size = type.getDimSize(i);
    if (size == 1) {
      indices.push_back(zero);
    } else if (!ShapedType::isDynamic(size)) {
      indices.push_back(dBatch[offset + i]);
    } else {
      // Only known at run time whether this dimension broadcasts.
      Value dim = memref::DimOp::create(b, loc, memref, i);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, dim, one);
      indices.push_back(arith::SelectOp::create(b, loc, isOne, zero, dBatch[offset + i]));
    }
  }
  return indices;
}

Value mlir::mepi::emitToF32(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type();
  auto type = cast<FloatType>(value.getType());
  if (type == f32)
    return value;
  if (type.getWidth() < 32)
    return arith::ExtFOp::create(b, loc, f32, value);
  return arith::TruncFOp::create(b, loc, f32, value);
}

Type mlir::mepi::storageElementType(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type) ? IntegerType::get(type.getContext(), 8)
                                                     : type;
}

Value mlir::mepi::emitToStorage(OpBuilder &b, Location loc, Value value) {
  Type storage = storageElementType(value.getType());
  return storage == value.getType() ? value : arith::BitcastOp::create(b, loc, storage, value);
}

Value mlir::mepi::loadEpilogInput(OpBuilder &b, Location loc, MatmulOp op, unsigned i,
                                  Value input, const ElementIndex &index) {
  auto memref = dyn_cast<MemRefType>(input.getType());
  if (!memref)
    return input; // A scalar passed by value.
  SmallVector<Value> core;
  switch (op.getInputKind(i)) {
  case BroadcastKind::Scalar:
    break;
  case BroadcastKind::Row:
    core = {index.row};
    break;
  case BroadcastKind::CyclicRow:
    core = {arith::RemUIOp::create(
        b, loc, index.row, arith::ConstantIndexOp::create(b, loc, memref.getDimSize(0)))};
    break;
  case BroadcastKind::Col:
    core = {index.col};
    break;
  case BroadcastKind::Matrix:
    core = {index.row, index.col};
    break;
  case BroadcastKind::Bitmask: {
    Value eight = arith::ConstantIndexOp::create(b, loc, 8);
    core = {arith::DivUIOp::create(b, loc, index.row, eight), index.col};
    break;
  }
  }
  SmallVector<Value> indices =
      emitBroadcastBatchIndices(b, loc, input, core.size(), index.batch);
  indices.append(core);
  Value loaded = memref::LoadOp::create(b, loc, input, indices);
  if (op.getInputKind(i) != BroadcastKind::Bitmask)
    return loaded;
  // Bit row % 8 of the byte (cuBLASLt's ReLU mask: the lowest bit is the first row).
  Value eight = arith::ConstantIndexOp::create(b, loc, 8);
  Value bit = arith::IndexCastUIOp::create(
      b, loc, b.getI8Type(), arith::RemUIOp::create(b, loc, index.row, eight));
  Value shifted = arith::ShRUIOp::create(b, loc, loaded, bit);
  return arith::TruncIOp::create(b, loc, b.getI1Type(), shifted);
}

SmallVector<Value> mlir::mepi::emitEpilogValues(OpBuilder &b, Location loc, MatmulOp op,
                                                const IRMapping &operands, Value acc,
                                                const ElementIndex &index,
                                                ArrayRef<Value> preloaded, Value preloadedC) {
  // alpha's product and the first addition after it (beta C here, the built-in bias) may
  // contract into one fma: one rounding fewer, bits unchanged where alpha is 1, and one
  // instruction less an element where the epilog bounds the kernel (short K).
  const auto contract = arith::FastMathFlags::contract;
  if (Value alpha = op.getAlpha())
    acc = arith::MulFOp::create(b, loc, operands.lookup(alpha), acc, contract);
  if (Value c = op.getC()) {
    Value loaded = preloadedC;
    if (!loaded) {
      Value cArg = operands.lookup(c);
      SmallVector<Value> cIdx = emitBroadcastBatchIndices(b, loc, cArg, 2, index.batch);
      cIdx.append({index.row, index.col});
      loaded = memref::LoadOp::create(b, loc, cArg, cIdx);
    }
    Value cVal = emitToF32(b, loc, loaded);
    acc = arith::AddFOp::create(
        b, loc, acc,
        arith::MulFOp::create(b, loc, operands.lookup(op.getBeta()), cVal, contract), contract);
  }

  IRMapping region;
  region.map(op.getAccArg(), acc);
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs()))
    region.map(op.getInputArg(i), i < preloaded.size() && preloaded[i]
                                      ? preloaded[i]
                                      : loadEpilogInput(b, loc, op, i, operands.lookup(input),
                                                        index));
  region.map(op.getRowArg(), index.row);
  region.map(op.getColArg(), index.col);
  // Grouped: the kernel maps the group argument to the unit's group (emitGroupViews).
  if (op.isGrouped())
    region.map(op.getGroupArg(), operands.lookup(op.getGroupArg()));
  Block &body = op.getEpilog().front();
  for (Operation &nested : body.without_terminator())
    b.clone(nested, region);

  auto yield = cast<YieldOp>(body.getTerminator());
  return llvm::map_to_vector(yield.getValues(),
                             [&](Value v) { return region.lookupOrDefault(v); });
}

SmallVector<Value> mlir::mepi::storedOperands(MatmulOp op) {
  SmallVector<Value> stored = {op.getD()};
  llvm::append_range(stored, op.getMirrors());
  return stored;
}

SmallVector<Value> mlir::mepi::emitEpilogAndStore(OpBuilder &b, Location loc, MatmulOp op,
                                                  const IRMapping &operands, Value acc,
                                                  const ElementIndex &index) {
  SmallVector<Value> values = emitEpilogValues(b, loc, op, operands, acc, index);
  SmallVector<Value> outIdx(index.batch);
  outIdx.append({index.row, index.col});
  for (Value stored : storedOperands(op))
    memref::StoreOp::create(b, loc, values[0], operands.lookup(stored), outIdx);
  for (auto [i, aux] : llvm::enumerate(op.getAux()))
    if (op.getAuxKind(i) == BroadcastKind::Matrix)
      memref::StoreOp::create(b, loc, values[1 + i], operands.lookup(aux), outIdx);
  return values;
}

bool mlir::mepi::hasBitmaskAux(MatmulOp op) {
  return llvm::any_of(llvm::seq<unsigned>(0, op.getAux().size()), [&](unsigned i) {
    return op.getAuxKind(i) == BroadcastKind::Bitmask;
  });
}
