// Verification of the mepi dialect's distributed operations.
#include "mepi/IR/MepiDistOps.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::mepi;

std::optional<std::array<int64_t, 4>> mlir::mepi::parseBlockCyclic(llvm::StringRef text) {
  std::array<int64_t, 4> v{};
  if (!text.consume_front("block_cyclic("))
    return std::nullopt;
  const char *separators[] = {"x", ", ", "x", ")"};
  for (int i = 0; i < 4; ++i) {
    text = text.ltrim();
    if (text.consumeInteger(10, v[i]) || v[i] < 1 || !text.consume_front(separators[i]))
      return std::nullopt;
  }
  if (!text.empty())
    return std::nullopt;
  return v;
}

LogicalResult DistMatmulOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (shape.size() != 3 || llvm::any_of(shape, [](int64_t d) { return d < 1; }))
    return emitOpError("shape: expected [M, N, K] of positive extents");
  if (getRanks() < 1)
    return emitOpError("ranks: expected at least 1, got ") << getRanks();
  for (auto [name, value] : {std::pair{"a_distribution", getADistribution()},
                             std::pair{"b_distribution", getBDistribution()},
                             std::pair{"d_distribution", getDDistribution()}}) {
    if (value.starts_with("block_cyclic")) {
      if (!parseBlockCyclic(value))
        return emitOpError(name) << ": expected block_cyclic(RxC, BRxBC) (process grid R x C, "
                                    "blocks BR x BC, positive extents), got \"" << value << "\"";
      continue;
    }
    bool known = llvm::StringSwitch<bool>(value)
                     .Cases({"slab_x", "slab_y"}, true)
                     .Case("replicated", llvm::StringRef(name) == "d_distribution")
                     .Default(false);
    if (!known)
      return emitOpError(name) << ": expected slab_x, slab_y, block_cyclic(RxC, BRxBC)"
                               << (llvm::StringRef(name) == "d_distribution" ? " or replicated"
                                                                             : "")
                               << ", got \"" << value << "\"";
  }
  return success();
}

#define GET_OP_CLASSES
#include "mepi/IR/MepiDistOps.cpp.inc"
