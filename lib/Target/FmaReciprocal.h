// Sigmoid divisions on the FMA pipe: which of an epilog's x / (1 + 2^t) divisions
// mepi-approximate-math computes by Newton's method instead of MUFU.RCP, and that expansion.
#ifndef MEPI_TARGET_FMARECIPROCAL_H
#define MEPI_TARGET_FMARECIPROCAL_H

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::mepi {

/// One of every this many sigmoid divisions runs on the FMA pipe (0: none). GELU, SiLU and
/// sigmoid take two MUFU instructions an element (ex2, rcp) among about ten issued; the SM
/// issues 128 lanes a clock but runs 16 of MUFU, so their epilog waits on MUFU (16 clocks a warp
/// against 10). A reciprocal by Newton's method costs 7 more issue slots and no MUFU: one in
/// three balances the two (8 (2 - 1/3) ~ 10 + 7/3).
inline constexpr unsigned kFmaReciprocalEvery = 3;

/// The divisions `root` holds whose divisor is 1 + 2^t (an addition of 1 to math.exp2 with afn):
/// every kFmaReciprocalEvery-th, in program order, of the f32 ones with fastmath<afn>.
SmallVector<arith::DivFOp> divisionsForFmaPipe(Operation *root, unsigned every);

/// Replaces `division` (x / y, y in [1, inf] or NaN) by x times 1 / y from Newton's method on
/// the FMA pipe: a seed from the bits of y, three steps (within 0.53 ulp of 1 / y).
void expandOnFmaPipe(arith::DivFOp division);

} // namespace mlir::mepi

#endif // MEPI_TARGET_FMARECIPROCAL_H
