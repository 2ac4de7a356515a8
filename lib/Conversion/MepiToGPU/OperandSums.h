// Operand sums (mepi.matmul's a_sums and b_sums, the bias gradients of BGRADA and BGRADB): the
// sum over K of each row of op(A) or each column of op(B), taken from the operand tiles the
// kernel loads anyway.
#ifndef MEPI_CONVERSION_MEPITOGPU_OPERANDSUMS_H
#define MEPI_CONVERSION_MEPITOGPU_OPERANDSUMS_H

#include "EpilogEmitter.h"
#include "Emitter.h"

namespace mlir::mepi {

/// SIMT: sum_k op(A)[batch..., index, k] (`ofA`) or sum_k op(B)[batch..., k, index] in f32,
/// read from global memory by one thread.
Value emitOperandSum(OpBuilder &b, Location loc, MatmulOp op, const IRMapping &operands,
                     bool ofA, const ElementIndex &element, Value index);

/// Stores the f32 `sum` to `sums`[batch..., index] in its element type.
void emitStoreOperandSum(OpBuilder &b, Location loc, Value sums, ArrayRef<Value> batch,
                         Value index, Value sum);

/// wgmma: the per-thread partial sums of `groups` 64-row groups of a stage tile (rows of A or
/// B as loaded: K-major lines or MN-major blocks, 8 KiB per group, 128-byte swizzle), summed by
/// the 128 threads of one warpgroup over the k-steps of a tile.
///   K-major: thread t sums half of row t / 2's 64 k-values (one value per group);
///   MN-major: warp w takes rows 16w..16w+15 (two 16-byte chunks), a lane 4 of the 64 k-lines
///   (eight values per group, one per row of its chunk).
/// Both read each 16-byte chunk where the swizzle put it, so a warp's loads are free of bank
/// conflicts.
struct TileSums {
  bool mnMajor = false;
  int64_t groups = 1;
  int64_t values() const { return groups * (mnMajor ? 8 : 1); }
  /// Adds the tile at `tile` (the stage's first row of these groups) to `partial`.
  SmallVector<Value> emitAccumulate(Emitter &e, Value tile, Value thread, Type elementType,
                                    ValueRange partial) const;
  /// Combines the partial sums across the threads of each row and stores row `firstRow` + r
  /// (r < 64 * groups, rows < `limit`) of the 1-D `sums`.
  void emitStore(Emitter &e, Value thread, ValueRange partial, Value sums, Value firstRow,
                 int64_t limit) const;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_OPERANDSUMS_H
