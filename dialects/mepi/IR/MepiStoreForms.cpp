// What D's memref and a mepi.matmul's outputs permit of the wgmma epilog's store forms
// (registers, TMA lines), and the alignment a function promises for an argument.
#include "mepi/IR/MepiOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::mepi;

int64_t mlir::mepi::getPromisedAlignment(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return 0;
  auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!fn || arg.getOwner() != &fn.getFunctionBody().front())
    return 0;
  auto attr = fn.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kAlignmentAttr);
  return attr ? attr.getInt() : 0;
}

bool mlir::mepi::writesOnlyStaticD(MatmulOp op) {
  MemRefType dType = op.getD().getType();
  return op.getAux().empty() && op.getReductions().empty() && dType.getLayout().isIdentity() &&
         dType.hasStaticShape();
}

bool mlir::mepi::isStoreLineElement(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

bool mlir::mepi::canStoreDFromRegisters(MatmulOp op) {
  MemRefType dType = op.getD().getType();
  int64_t dBytes = dType.getElementTypeBitWidth() / 8;
  return writesOnlyStaticD(op) && dType.getRank() >= 2 && dType.getShape().back() % 2 == 0 &&
         getPromisedAlignment(op.getD()) >= 2 * dBytes;
}

bool mlir::mepi::canStoreDThroughTma(MatmulOp op) {
  MemRefType dType = op.getD().getType();
  int64_t dBytes = dType.getElementTypeBitWidth() / 8;
  return canStoreDFromRegisters(op) && isStoreLineElement(dType.getElementType()) &&
         (dType.getShape().back() * dBytes) % 16 == 0 && getPromisedAlignment(op.getD()) >= 16;
}

int64_t mlir::mepi::tmaStoreLineColumns(MatmulOp op) {
  return 128 / (op.getD().getType().getElementTypeBitWidth() / 8);
}
