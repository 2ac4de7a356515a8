// The f32 math ops that mepi-approximate-math turns into one PTX instruction (one MUFU): the
// rule that pass applies and that the heuristic reads (an epilog of such ops is cheap: the
// built-in GELU is seven instructions an element with two of them).
#ifndef MEPI_LIBRARY_APPROXIMATEOPS_H
#define MEPI_LIBRARY_APPROXIMATEOPS_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::mepi {

/// An inline-assembly instruction over an op's operands and its constraints.
struct ApproximateInstruction {
  llvm::StringRef asmText, constraints;
};

/// The instruction `op` becomes: math.tanh, math.exp2 and arith.divf of f32 with
/// fastmath<afn> (tanh.approx, ex2.approx.ftz, div.approx.ftz); none for any other op.
std::optional<ApproximateInstruction> approximateInstruction(Operation *op);

} // namespace mlir::mepi

#endif // MEPI_LIBRARY_APPROXIMATEOPS_H
