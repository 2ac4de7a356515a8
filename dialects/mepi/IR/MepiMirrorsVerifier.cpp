// mepi.matmul's mirrors: the verifier of its `mirrors` operands (MepiOps.td describes them).
#include "mepi/IR/MepiOps.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi {
/// Each mirror has D's type (shape, element type and layout), so that the kernel stores the
/// same element at the same offset of each; D is 2-D and not grouped (the kernels address a
/// mirror as D's base address plus D's offsets, which batch and group views would change).
LogicalResult verifyMirrors(MatmulOp op) {
  if (op.getMirrors().empty())
    return success();
  MemRefType dType = op.getD().getType();
  if (op.isGrouped() || dType.getRank() != 2)
    return op.emitOpError() << "mirrors take a 2-D d without groups, got d of type " << dType
                            << (op.isGrouped() ? " with groups" : "");
  for (auto [i, mirror] : llvm::enumerate(op.getMirrors()))
    if (mirror.getType() != dType)
      return op.emitOpError() << "expected mirror " << i << " to have d's type " << dType
                              << ", got " << mirror.getType();
  return success();
}
} // namespace mlir::mepi
