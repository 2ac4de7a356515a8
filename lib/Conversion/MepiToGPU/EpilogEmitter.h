// Shared pieces of every kernel family: element indexing with numpy broadcasting, and the epilog
// (alpha/beta/C, epilog inputs, the inlined region, stores of D and aux).
#ifndef MEPI_CONVERSION_MEPITOGPU_EPILOGEMITTER_H
#define MEPI_CONVERSION_MEPITOGPU_EPILOGEMITTER_H

#include "mepi/IR/MepiOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::mepi {

/// Position of one output element: D's batch indices, its row and its column.
struct ElementIndex {
  SmallVector<Value> batch;
  Value row;
  Value col;
};

/// Size of dimension `dim` of `memref` (a constant when static).
Value emitDim(OpBuilder &b, Location loc, Value memref, int64_t dim);

/// Splits a linear batch id into D's batch indices (last dimension fastest).
SmallVector<Value> emitDelinearizedBatch(OpBuilder &b, Location loc, Value d, Value linear);

/// Number of batch elements of D (the product of its batch dimensions).
Value emitBatchCount(OpBuilder &b, Location loc, Value d);

/// Indices into the leading dimensions of `memref` (all but its `coreRank` trailing ones) for the
/// D batch position `dBatch`: aligned right, and 0 where the operand's dimension is 1.
SmallVector<Value> emitBroadcastBatchIndices(OpBuilder &b, Location loc, Value memref,
                                             unsigned coreRank, ArrayRef<Value> dBatch);

/// `value` converted to f32.
Value emitToF32(OpBuilder &b, Location loc, Value value);

/// How an element of D is held in the vectors the kernels store: an 8-bit float as its byte
/// (LLVM has no 8-bit float type), any other type as itself.
Type storageElementType(Type type);
/// `value` as storageElementType of its type.
Value emitToStorage(OpBuilder &b, Location loc, Value value);

/// Loads the element of epilog input `i` (`input`: its kernel operand) that belongs to the
/// output element at `index`.
Value loadEpilogInput(OpBuilder &b, Location loc, MatmulOp op, unsigned i, Value input,
                      const ElementIndex &index);

/// From the raw accumulator sum(op(A)·op(B)) at `index`: applies alpha and beta·C, loads the
/// epilog inputs and inlines the epilog region. Returns its results: D's value, then one per
/// aux output.
/// `preloaded`, when given, holds per epilog input the value the kernel family already loaded
/// for this element (null: load it here); `preloadedC` likewise C's element.
SmallVector<Value> emitEpilogValues(OpBuilder &b, Location loc, MatmulOp op,
                                    const IRMapping &operands, Value acc,
                                    const ElementIndex &index,
                                    ArrayRef<Value> preloaded = {}, Value preloadedC = {});

/// D, then its mirrors: every operand that D's values are stored to (the same element at the
/// same index of each).
SmallVector<Value> storedOperands(MatmulOp op);

/// emitEpilogValues, then stores the results to D (and its mirrors) and the matrix aux outputs
/// at `index`.
/// Returns all the values: bitmask aux bits and reduction values are the kernel family's to
/// combine across threads (a bit alone cannot be stored; a reduction spans elements).
SmallVector<Value> emitEpilogAndStore(OpBuilder &b, Location loc, MatmulOp op,
                                      const IRMapping &operands, Value acc,
                                      const ElementIndex &index);

/// Whether `op` has an aux output of kind bitmask.
bool hasBitmaskAux(MatmulOp op);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_EPILOGEMITTER_H
