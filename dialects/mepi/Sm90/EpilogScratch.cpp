// The wgmma epilog's scratch layout (see EpilogScratch.h).
#include "mepi/Sm90/EpilogScratch.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::sm90;

bool sm90::hasVectorStores(MatmulOp op) {
  MemRefType dType = op.getD().getType();
  int64_t dBytes = dType.getElementTypeBitWidth() / 8;
  return dType.getLayout().isIdentity() && dType.hasStaticShape() &&
         dType.getShape().back() % kEpilogVector == 0 &&
         getPromisedAlignment(op.getD()) >= kEpilogVector * dBytes;
}

bool sm90::isColumnMajorAux(MatmulOp op, unsigned i) {
  // Grouped: a tile's rows start anywhere and end at its group's end, so a column of it is no
  // run of whole 16-byte vectors; its aux elements are stored one by one.
  if (op.getAuxKind(i) != BroadcastKind::Matrix || !hasVectorStores(op) || op.isGrouped())
    return false;
  auto type = cast<MemRefType>(op.getAux()[i].getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() != 2 || !type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) || offset != 0 || strides[0] != 1 ||
      ShapedType::isDynamic(strides[1]))
    return false;
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  return (bytes == 1 || bytes == 2 || bytes == 4) && (strides[1] * bytes) % 16 == 0 &&
         (type.getShape()[0] * bytes) % 16 == 0 && getPromisedAlignment(op.getAux()[i]) >= 16;
}

int64_t sm90::transposePitch(MatmulOp op, unsigned i) {
  return kSliceRows * cast<MemRefType>(op.getAux()[i].getType()).getElementTypeBitWidth() / 8 +
         16;
}

ScratchLayout::ScratchLayout(MatmulOp op) {
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Bitmask) {
      masks.push_back(bytes);
      bytes += kSliceRows * kMaskPitch;
    }
  for (unsigned i = 0; i < op.getAux().size(); ++i) {
    transposed.push_back(isColumnMajorAux(op, i) ? llvm::alignTo(bytes, 16) : -1);
    if (transposed.back() >= 0)
      bytes = transposed.back() + kChunkColumns * transposePitch(op, i);
  }
  for (unsigned j = 0; j < op.getReductions().size(); ++j) {
    slots.push_back(bytes);
    bytes += (op.getReductionKind(j) == BroadcastKind::Scalar ? kWarpgroup
                                                               : kChunkSteps * kWarpgroup) *
             4;
  }
  flags = bytes;
  bytes = llvm::alignTo(bytes + 4 * op.getReductions().size(), 16);
}
