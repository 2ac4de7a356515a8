// SourcePrefetch: the rows of C under a unit's tile, prefetched into L2 in its last k-steps.
#include "SourcePrefetch.h"
#include "WgmmaEpilog.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::wgmma;

SourcePrefetch::SourcePrefetch(Emitter &e, MatmulOp op, const IRMapping &operands, int64_t m,
                               int64_t n, int64_t tileM, int64_t tileN)
    : m(m), n(n), tileM(tileM), tileN(tileN) {
  Value c = operands.lookup(op.getC());
  auto type = cast<MemRefType>(op.getC().getType());
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  (void)type.getStridesAndOffset(strides, offset); // static: Sm90Problem::prefetchesSource
  elementBytes = type.getElementTypeBitWidth() / 8;
  pitchBytes = strides[0] * elementBytes;
  base = emitGlobalBase(e, c);
}

void SourcePrefetch::emit(Emitter &e, Value k, Value kBegin, Value kEnd, Value row,
                          Value col) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  OpBuilder::InsertionGuard guard(b);
  int64_t rowsPerStep = llvm::divideCeil(tileM, kSteps);
  // Row block j is due when kSteps - 1 - j k-steps are left after this one; the unit's first
  // k-step also takes the blocks due before it (units of fewer k-steps).
  Value left = e.sub(e.sub(kEnd, e.i32(1)), k);
  auto due = scf::IfOp::create(b, loc, e.ult(left, e.i32(kSteps)), /*withElseRegion=*/false);
  b.setInsertionPointToStart(due.thenBlock());
  Value last = e.sub(e.i32(kSteps), left);
  Value first = e.select(e.eq(k, kBegin), e.i32(0), e.sub(last, e.i32(1)));
  Value tileEnd = e.min(e.add(row, e.i32(tileM)), e.i32(m));
  Value begin = e.add(row, e.mul(first, e.i32(rowsPerStep)));
  Value end = e.min(e.add(row, e.mul(last, e.i32(rowsPerStep))), tileEnd);
  // The tile's columns inside D (none for a cluster's second tile right of D), in whole
  // 16-byte pieces: cp.async.bulk.prefetch takes sizes of 16-byte multiples.
  Value columns = e.select(e.ult(col, e.i32(n)), e.min(e.sub(e.i32(n), col), e.i32(tileN)),
                           e.i32(0));
  Value bytes = e.andI(e.mul(columns, e.i32(elementBytes)), e.i32(~int64_t(15)));
  auto some = scf::IfOp::create(b, loc, e.ult(e.i32(0), bytes), /*withElseRegion=*/false);
  b.setInsertionPointToStart(some.thenBlock());
  Value start = e.globalOffset(base, e.zext64(e.mul(col, e.i32(elementBytes))));
  auto rows = scf::ForOp::create(b, loc, begin, end, e.i32(1));
  b.setInsertionPointToStart(rows.getBody());
  Value at = e.globalOffset(
      start, e.mul(e.zext64(rows.getInductionVar()), e.i64(pitchBytes)));
  NVVM::CpAsyncBulkPrefetchOp::create(b, loc, at, bytes, Value());
}
