// Operand sums (mepi.matmul's a_sums and b_sums, the bias gradients of BGRADA and BGRADB): the
// sum over K of each row of op(A) or each column of op(B), taken from the operand tiles the
// kernel loads anyway.
#ifndef MEPI_CONVERSION_MEPITOGPU_OPERANDSUMS_H
#define MEPI_CONVERSION_MEPITOGPU_OPERANDSUMS_H

#include "EpilogEmitter.h"
#include "Emitter.h"
#include "mepi/Sm90/Sm90Spec.h"

namespace mlir::mepi {

/// SIMT: sum_k op(A)[batch..., index, k] (`ofA`) or sum_k op(B)[batch..., k, index] in f32,
/// read from global memory by one thread.
Value emitOperandSum(OpBuilder &b, Location loc, MatmulOp op, const IRMapping &operands,
                     bool ofA, const ElementIndex &element, Value index);

/// Stores the f32 `sum` to `sums`[batch..., index] in its element type.
void emitStoreOperandSum(OpBuilder &b, Location loc, Value sums, ArrayRef<Value> batch,
                         Value index, Value sum);

/// The shared-memory tile of ones that TileSums multiplies by is sm90::kOnesTileBytes: 8 rows
/// of 64 16-bit ones (one 128-byte swizzle atom; the swizzle moves ones among ones).

/// Writes the tile of ones of `elementType` (bf16 or f16) at `tile` with the block's first 64
/// threads and fences it for the tensor cores' reads (the async proxy). The block's barrier
/// after it makes it visible.
void emitOnesTile(Emitter &e, Value tile, Value thread, Type elementType);

/// wgmma: the sums over K of `groups` 64-row groups of a stage tile (rows of op(A), or of
/// op(B)ᵀ, as loaded: K-major lines or MN-major blocks of 8 KiB, 128-byte swizzle), by one
/// consumer warpgroup over the k-steps of a unit, in one of two ways:
///
/// Tensor cores (`onTensorCores`): each group is the A side of m64n8k16 wgmmas whose B side is
/// the tile of ones, so every column of the 64 x 8 f32 result holds the group's row sums,
/// issued between the main loop's wgmmas in the same commit group. The k16 steps of a k-step
/// take turns over `chains` accumulator fragments per group, so that consecutive small wgmmas
/// do not wait for each other; the fragments are added after the loop. In a fragment lane l of
/// warp w holds row 16w + l/4 in register 0 (and 1) and row 16w + l/4 + 8 in register 2 (and
/// 3). Free where the kernel waits on memory (short M); where it waits on the tensor cores
/// these small wgmmas cost more than their share (bench/NOTES.md).
///
/// Threads: the warpgroup adds 16-byte chunks of the stage tile (after issuing the k-step's
/// wgmmas, before releasing the stage) and combines them with shuffles at the end.
///   K-major: thread t sums half of row t / 2's 64 k-values (one value per group);
///   MN-major: warp w takes rows 16w..16w+15 (two 16-byte chunks), a lane 4 of the 64 k-lines
///   (eight values per group, one per row of its chunk).
/// Both read each chunk where the swizzle put it, so a warp's loads are free of bank
/// conflicts.
struct TileSums {
  static constexpr int64_t kFragment = 4; // f32 registers of a 64 x 8 wgmma result per thread
  bool mnMajor = false;
  int64_t groups = 1;
  bool onTensorCores = false;
  int64_t chains = 4; // tensor cores: fragments per group (k16 step kk adds to kk % chains)
  /// f32 values per thread of the combined sums (what emitStore takes).
  int64_t values() const { return groups * Sm90Spec::sumValuesPerGroup(onTensorCores, mnMajor); }
  /// f32 values per thread in the main loop.
  int64_t carried() const { return values() * (onTensorCores ? chains : 1); }
  /// Tensor cores: issues k16 step `kk`'s wgmma of each group into its chain's fragment in
  /// `carried`: `groupDescriptor(g)` is the shared-memory descriptor of group g at that step,
  /// `ones` the tile of ones'.
  void emitK16(Emitter &e, int64_t kk, llvm::function_ref<Value(int64_t)> groupDescriptor,
               Value ones, Type elementType, MutableArrayRef<Value> carried) const;
  /// Threads: adds the stage tile at `tile` (the first row of these groups) to `carried`.
  void emitThreadAccumulate(Emitter &e, Value tile, Value thread, Type elementType,
                            MutableArrayRef<Value> carried) const;
  /// The combined sums from `carried` (waited for): values().
  SmallVector<Value> emitCombine(Emitter &e, ArrayRef<Value> carried) const;
  /// Stores row `firstRow` + r (r < 64 * groups, rows < `limit`) of the 1-D `sums` from the
  /// combined sums `partial`.
  void emitStore(Emitter &e, Value thread, ValueRange partial, Value sums, Value firstRow,
                 int64_t limit) const;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_OPERANDSUMS_H
