// mepi.matmul's block scales: the verifier of its a_block_scales and b_block_scales operands
// (MepiOps.td describes them).
#include "mepi/IR/MepiOps.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi {
/// Both block scales or neither; f32, static shapes sa [M, ceil(K / 128)] and sb [ceil(N /
/// 128), ceil(K / 128)]; 8-bit A and B with promoted sums, 2-D operands, no groups.
LogicalResult verifyBlockScales(MatmulOp op) {
  Value sa = op.getABlockScales(), sb = op.getBBlockScales();
  if (!sa && !sb)
    return success();
  if (!sa || !sb)
    return op.emitOpError() << "expected both a_block_scales and b_block_scales, got only "
                            << (sa ? "a_block_scales" : "b_block_scales");
  Type aElt = op.getA().getType().getElementType();
  if (aElt.getIntOrFloatBitWidth() != 8)
    return op.emitOpError() << "expected 8-bit (fp8) a and b with block scales, got " << aElt;
  if (op.getFastAccumulation())
    return op.emitOpError() << "block scales need promoted sums: expected no fast_accumulation";
  if (op.isGrouped() || op.getNumBatchDims() != 0 || op.getA().getType().getRank() != 2 ||
      op.getB().getType().getRank() != 2)
    return op.emitOpError() << "block scales take 2-D a, b and d without groups";
  ArrayRef<int64_t> dShape = op.getD().getType().getShape();
  MemRefType aType = op.getA().getType();
  int64_t k = aType.getDimSize(op.getTransposeA() ? 0 : 1);
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(dShape[0]) ||
      ShapedType::isDynamic(dShape[1]))
    return op.emitOpError() << "block scales need static M, N and K";
  int64_t blocksK = llvm::divideCeil(k, kScaleBlockElements);
  int64_t blocksN = llvm::divideCeil(dShape[1], kScaleBlockElements);
  for (auto [value, name, want] :
       {std::tuple{sa, "a_block_scales", SmallVector<int64_t>{dShape[0], blocksK}},
        std::tuple{sb, "b_block_scales", SmallVector<int64_t>{blocksN, blocksK}}}) {
    auto type = cast<MemRefType>(value.getType());
    if (!type.getElementType().isF32() || type.getShape() != ArrayRef<int64_t>(want)) {
      InFlightDiagnostic diag = op.emitOpError() << "expected " << name << " to be f32 [";
      llvm::interleaveComma(want, diag);
      return diag << "] (" << (name[0] == 'a' ? "M" : "ceil(N / 128)")
                  << ", ceil(K / 128)), got " << type;
    }
  }
  return success();
}
} // namespace mlir::mepi
