// Zeroing the elements of a k-step outside its group of K (see KGroupMask.h).
#include "KGroupMask.h"

#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
constexpr int64_t kChunkBytes = 16;  // the swizzle's unit
constexpr int64_t kChunkElements = 8; // 16-bit elements per chunk
constexpr int64_t kLineChunks = sm90::kSwizzleBytes / kChunkBytes;
} // namespace

Value KGroupMask::emitChunkK(Emitter &e, Value chunk, int64_t t, bool mnMajor) const {
  // Chunk j of line l sits at chunk j ^ (l % 8) of the line.
  if (mnMajor) // line k of each 64-row block: every element of the chunk is at k
    return e.div(e.rem(chunk, e.i32(sm90::kBlockBytes / kChunkBytes)), e.i32(kLineChunks));
  // K-major: line r holds row r's elements of the k-step, chunk j elements [8 j, 8 j + 8).
  Value line = e.div(chunk, e.i32(kLineChunks));
  Value logical = e.xorI(e.rem(chunk, e.i32(kLineChunks)), e.rem(line, e.i32(8)));
  return e.add(e.mul(logical, e.i32(kChunkElements)), e.i32(t));
}

void KGroupMask::emitChunk(Emitter &e, Value stage, Value chunk, Value first, Value kStart,
                           Value kStop) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t chunksA = aBytes / kChunkBytes;
  Value inB = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, chunk, e.i32(chunksA));
  Value local = e.select(inB, e.sub(chunk, e.i32(chunksA)), chunk);
  auto type = VectorType::get({kChunkElements}, b.getI16Type());
  Value at = e.offset(stage, e.mul(chunk, e.i32(kChunkBytes)));
  Value v = LLVM::LoadOp::create(b, loc, type, at, /*alignment=*/kChunkBytes);
  Value zero16 = arith::ConstantIntOp::create(b, loc, 0, 16);
  for (int64_t t = 0; t < kChunkElements; ++t) {
    // Both tiles in one layout: one computation of the element's k serves them.
    Value k = emitChunkK(e, local, t, mnMajorA);
    if (mnMajorA != mnMajorB)
      k = e.select(inB, emitChunkK(e, local, t, mnMajorB), k);
    Value global = e.add(first, k);
    Value inside = e.andI(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, global, kStart),
        e.ult(global, kStop));
    Value index = e.i32(t);
    Value x = LLVM::ExtractElementOp::create(b, loc, v, index);
    v = LLVM::InsertElementOp::create(b, loc, v, e.select(inside, x, zero16), index);
  }
  LLVM::StoreOp::create(b, loc, v, at, /*alignment=*/kChunkBytes);
}

void KGroupMask::emit(Emitter &e, Value stage, Value k, Value kStart, Value kStop, Value thread,
                      Value barrier) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value first = e.mul(k, e.i32(tileK));
  Value pastStop = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                         e.add(first, e.i32(tileK)), kStop);
  Value partial = e.orI(e.ult(first, kStart), pastStop);
  auto ifPartial = scf::IfOp::create(b, loc, partial, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifPartial.thenBlock());
  int64_t chunks = (aBytes + bBytes) / kChunkBytes;
  auto loop = scf::ForOp::create(b, loc, thread, e.i32(chunks), e.i32(threads));
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(loop.getBody());
    emitChunk(e, stage, loop.getInductionVar(), first, kStart, kStop);
  }
  // The wgmmas read shared memory through the async proxy.
  e.fenceAsyncShared();
  NVVM::BarrierOp::create(b, loc, Type(), barrier, e.i32(threads),
                          NVVM::BarrierReductionAttr(), Value());
}
