// Verification of the mepi dialect's distributed operations.
#include "mepi/IR/MepiDistOps.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::mepi;

LogicalResult DistMatmulOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (shape.size() != 3 || llvm::any_of(shape, [](int64_t d) { return d < 1; }))
    return emitOpError("shape: expected [M, N, K] of positive extents");
  if (getRanks() < 1)
    return emitOpError("ranks: expected at least 1, got ") << getRanks();
  for (auto [name, value] : {std::pair{"a_distribution", getADistribution()},
                             std::pair{"b_distribution", getBDistribution()},
                             std::pair{"d_distribution", getDDistribution()}}) {
    bool known = llvm::StringSwitch<bool>(value)
                     .Cases({"slab_x", "slab_y", "block_cyclic"}, true)
                     .Case("replicated", llvm::StringRef(name) == "d_distribution")
                     .Default(false);
    if (!known)
      return emitOpError(name) << ": expected slab_x, slab_y, block_cyclic"
                               << (llvm::StringRef(name) == "d_distribution" ? " or replicated"
                                                                             : "")
                               << ", got \"" << value << "\"";
  }
  return success();
}

#define GET_OP_CLASSES
#include "mepi/IR/MepiDistOps.cpp.inc"
