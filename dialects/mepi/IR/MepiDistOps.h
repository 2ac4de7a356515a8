// The mepi dialect's distributed operations (MepiDistOps.td).
#ifndef MEPI_IR_MEPIDISTOPS_H
#define MEPI_IR_MEPIDISTOPS_H

#include "mepi/IR/MepiDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include <array>
#include <optional>

#define GET_OP_CLASSES
#include "mepi/IR/MepiDistOps.h.inc"

namespace mlir::mepi {
/// A block-cyclic distribution as mepi.dist.matmul spells it, "block_cyclic(RxC, BRxBC)": a
/// process grid of R x C and blocks of BR x BC, as {R, C, BR, BC}; nullopt when `text` is not
/// that spelling or an extent is not positive.
std::optional<std::array<int64_t, 4>> parseBlockCyclic(llvm::StringRef text);
} // namespace mlir::mepi

#endif // MEPI_IR_MEPIDISTOPS_H
