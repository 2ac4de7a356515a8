// Declared reductions across thread blocks: workspace layout, arrival and in-order combination.
#include "Reductions.h"

#include "EpilogEmitter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;

static constexpr int64_t kRegionAlignment = 256;

SmallVector<ReductionLayout> mlir::mepi::planReductions(MatmulOp op, const TileGrid &grid,
                                                        int64_t offset, int64_t &end) {
  SmallVector<ReductionLayout> layouts;
  int64_t tilesM = grid.tilesM(), tilesN = grid.tilesN();
  for (unsigned i = 0; i < op.getReductions().size(); ++i) {
    ReductionLayout layout;
    layout.kind = op.getReductionKind(i);
    layout.combiner = op.getReductionCombiner(i);
    switch (layout.kind) {
    case BroadcastKind::Row:
      layout.groups = grid.batch * tilesM * grid.slices;
      layout.contributors = tilesN;
      layout.width = grid.sliceRows();
      break;
    case BroadcastKind::Col:
      layout.groups = grid.batch * tilesN;
      layout.contributors = tilesM * grid.slices;
      layout.width = grid.tileN;
      break;
    default: // scalar
      layout.groups = 1;
      layout.contributors = grid.batch * tilesM * tilesN * grid.slices;
      layout.width = 1;
      break;
    }
    layout.counterOffset = llvm::alignTo(offset, kRegionAlignment);
    layout.partialOffset =
        llvm::alignTo(layout.counterOffset + layout.groups * 4, kRegionAlignment);
    offset = layout.partialOffset + layout.groups * layout.contributors * layout.width * 4;
    layouts.push_back(layout);
  }
  end = llvm::alignTo(offset, kRegionAlignment);
  return layouts;
}

Value mlir::mepi::emitReductionIdentity(Emitter &e, Combiner combiner) {
  double identity = combiner == Combiner::Add ? 0.0 : -std::numeric_limits<double>::infinity();
  return arith::ConstantOp::create(e.b, e.loc, e.b.getF32FloatAttr(static_cast<float>(identity)));
}

Value mlir::mepi::emitCombine(Emitter &e, Combiner combiner, Value x, Value y) {
  if (combiner == Combiner::Add)
    return arith::AddFOp::create(e.b, e.loc, x, y);
  return arith::MaximumFOp::create(e.b, e.loc, x, y);
}

SmallVector<Type> mlir::mepi::combinedValueTypes(MatmulOp op) {
  Builder b(op.getContext());
  SmallVector<Type> types;
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Bitmask)
      types.push_back(b.getI1Type());
  types.append(op.getReductions().size(), b.getF32Type());
  return types;
}

SmallVector<Value> mlir::mepi::pickCombinedValues(MatmulOp op, ArrayRef<Value> values) {
  SmallVector<Value> picked;
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Bitmask)
      picked.push_back(values[1 + i]);
  llvm::append_range(picked, values.drop_front(1 + op.getAux().size()));
  return picked;
}

SmallVector<Value> mlir::mepi::emitOutsideCombinedValues(Emitter &e, MatmulOp op) {
  SmallVector<Value> values;
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Bitmask)
      values.push_back(arith::ConstantIntOp::create(e.b, e.loc, e.b.getI1Type(), 0));
  for (unsigned j = 0; j < op.getReductions().size(); ++j)
    values.push_back(emitReductionIdentity(e, op.getReductionCombiner(j)));
  return values;
}

Value mlir::mepi::emitPartialAddress(Emitter &e, Value workspace, const ReductionLayout &layout,
                                     Value group, Value contributor, Value local) {
  Value slot = e.add(e.mul(e.zext64(group), e.i64(layout.contributors)), e.zext64(contributor));
  Value element = e.add(e.mul(slot, e.i64(layout.width)), e.zext64(local));
  return e.globalOffset(workspace, e.add(e.i64(layout.partialOffset), e.mul(element, e.i64(4))));
}

Value mlir::mepi::emitArrival(Emitter &e, Value workspace, const ReductionLayout &layout,
                              Value group) {
  OpBuilder &b = e.b;
  Value counter = e.globalOffset(
      workspace, e.add(e.i64(layout.counterOffset), e.mul(e.zext64(group), e.i64(4))));
  Value arrived = LLVM::AtomicRMWOp::create(b, e.loc, LLVM::AtomicBinOp::add, counter, e.i32(1),
                                            LLVM::AtomicOrdering::monotonic,
                                            StringRef("device"));
  Value last = e.eq(arrived, e.i32(layout.contributors - 1));
  auto reset = scf::IfOp::create(b, e.loc, last, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(reset.thenBlock());
  LLVM::StoreOp::create(b, e.loc, e.i32(0), counter, /*alignment=*/4);
  return last;
}

Value mlir::mepi::emitCombinedPartials(Emitter &e, Value workspace,
                                       const ReductionLayout &layout, Value group, Value local) {
  OpBuilder &b = e.b;
  auto loop = scf::ForOp::create(b, e.loc, e.i32(0), e.i32(layout.contributors), e.i32(1),
                                 ValueRange{emitReductionIdentity(e, layout.combiner)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value address =
      emitPartialAddress(e, workspace, layout, group, loop.getInductionVar(), local);
  Value partial = LLVM::LoadOp::create(b, e.loc, b.getF32Type(), address, /*alignment=*/4);
  scf::YieldOp::create(b, e.loc,
                       emitCombine(e, layout.combiner, loop.getRegionIterArg(0), partial));
  b.setInsertionPointAfter(loop);
  return loop.getResult(0);
}

void mlir::mepi::emitStoreReduction(Emitter &e, MatmulOp op, const IRMapping &operands,
                                    unsigned i, Value value, ValueRange indices) {
  Value result = operands.lookup(op.getReductions()[i]);
  Type element = cast<MemRefType>(result.getType()).getElementType();
  if (element != value.getType())
    value = arith::TruncFOp::create(e.b, e.loc, element, value);
  memref::StoreOp::create(e.b, e.loc, value, result, indices);
}
