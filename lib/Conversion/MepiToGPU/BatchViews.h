// Batched problems on the tile kernels: each work unit belongs to one batch element of D, and
// the kernel sees that element through views (numpy.matmul broadcasting: an operand's batch
// dimension of 1 serves every element).
#ifndef MEPI_CONVERSION_MEPITOGPU_BATCHVIEWS_H
#define MEPI_CONVERSION_MEPITOGPU_BATCHVIEWS_H

#include "mepi/IR/MepiOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::mepi {

/// `operands` with every batched memref operand that the epilog reads or writes (C, the epilog
/// inputs, D, the aux outputs) mapped to its view at D's batch element `linearBatch` (i32):
/// a rank-reduced subview without the batch dimensions, so that the epilog addresses it as in
/// an unbatched problem.
IRMapping emitBatchViews(OpBuilder &b, Location loc, MatmulOp op, const IRMapping &operands,
                         Value linearBatch);

/// Grouped: `operands` with every per-group epilog input (one leading dimension of S) mapped
/// to its view at group `group` (i32), and the epilog's group argument to `group` as an index.
IRMapping emitGroupViews(OpBuilder &b, Location loc, MatmulOp op, const IRMapping &operands,
                         Value group);

/// The TMA coordinates (i32, innermost first, after the two of the matrix) of `memref`'s batch
/// dimensions at D's batch element `linearBatch` (i32): 0 where it broadcasts.
SmallVector<Value> emitTmaBatchCoordinates(OpBuilder &b, Location loc, Value memref, Value d,
                                           Value linearBatch);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_BATCHVIEWS_H
