// Views of one batch element (see BatchViews.h).
#include "BatchViews.h"

#include "EpilogEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// D's batch indices (index values) at the linear batch element `linearBatch` (i32), split in
/// i32 (D's shape is static here: divisions by constants, cheaper than the 64-bit ones of index
/// arithmetic, whose registers the consumers cannot spare).
SmallVector<Value> dBatchIndices(OpBuilder &b, Location loc, Value d, Value linearBatch) {
  ArrayRef<int64_t> shape = cast<MemRefType>(d.getType()).getShape();
  int64_t numBatch = static_cast<int64_t>(shape.size()) - 2;
  SmallVector<Value> indices(numBatch);
  Value linear = linearBatch;
  for (int64_t i = numBatch - 1; i >= 0; --i) {
    Value index = linear;
    if (i != 0) {
      Value size = arith::ConstantIntOp::create(b, loc, shape[i], 32);
      index = arith::RemUIOp::create(b, loc, linear, size);
      linear = arith::DivUIOp::create(b, loc, linear, size);
    }
    indices[i] = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), index);
  }
  return indices;
}

/// `memref` without its leading dimensions (all but the last `coreRank`), at `batch`.
Value emitView(OpBuilder &b, Location loc, Value memref, unsigned coreRank,
               ArrayRef<Value> batch) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  if (rank <= static_cast<int64_t>(coreRank))
    return memref;
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  for (Value index : emitBroadcastBatchIndices(b, loc, memref, coreRank, batch)) {
    offsets.push_back(index);
    sizes.push_back(b.getIndexAttr(1));
  }
  for (int64_t dim = rank - coreRank; dim < rank; ++dim) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
  }
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().take_back(coreRank), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), memref, offsets, sizes,
                                   strides);
}

/// Rank of an epilog input without its batch dimensions.
unsigned coreRank(BroadcastKind kind) {
  switch (kind) {
  case BroadcastKind::Row:
  case BroadcastKind::CyclicRow:
  case BroadcastKind::Col:
    return 1;
  case BroadcastKind::Scalar:
    return 0;
  default: // matrix, bitmask
    return 2;
  }
}
} // namespace

IRMapping mlir::mepi::emitBatchViews(OpBuilder &b, Location loc, MatmulOp op,
                                     const IRMapping &operands, Value linearBatch) {
  IRMapping views = operands;
  Value d = operands.lookup(op.getD());
  SmallVector<Value> batch = dBatchIndices(b, loc, d, linearBatch);
  auto map = [&](Value operand, unsigned rank) {
    if (isa<MemRefType>(operand.getType()))
      views.map(operand, emitView(b, loc, operands.lookup(operand), rank, batch));
  };
  if (Value c = op.getC())
    map(c, 2);
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs()))
    map(input, coreRank(op.getInputKind(i)));
  map(op.getD(), 2);
  for (Value aux : op.getAux())
    map(aux, 2);
  // Grouped along K: the batch element is the group.
  if (op.isGroupedAlongK())
    views.map(op.getGroupArg(), arith::IndexCastUIOp::create(b, loc, b.getIndexType(), linearBatch));
  return views;
}

IRMapping mlir::mepi::emitGroupViews(OpBuilder &b, Location loc, MatmulOp op,
                                     const IRMapping &operands, Value group) {
  IRMapping views = operands;
  Value index = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), group);
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs())) {
    auto type = dyn_cast<MemRefType>(input.getType());
    unsigned rank = coreRank(op.getInputKind(i));
    if (type && type.getRank() == rank + 1)
      views.map(input, emitView(b, loc, operands.lookup(input), rank, {index}));
  }
  views.map(op.getGroupArg(), index);
  return views;
}

SmallVector<Value> mlir::mepi::emitTmaBatchCoordinates(OpBuilder &b, Location loc, Value memref,
                                                       Value d, Value linearBatch) {
  SmallVector<Value> batch = dBatchIndices(b, loc, d, linearBatch);
  SmallVector<Value> indices = emitBroadcastBatchIndices(b, loc, memref, 2, batch);
  SmallVector<Value> coordinates;
  for (Value index : llvm::reverse(indices))
    coordinates.push_back(arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index));
  return coordinates;
}
