// The 3xTF32 split of a stage in shared memory (see Tf32Split.h).
#include "Tf32Split.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mepi;

using mlir::mepi::sm90::kTf32KeepMask;
using mlir::mepi::sm90::kTf32RoundHalf;

namespace {
constexpr int64_t kChunkBytes = 16;
} // namespace

std::pair<Value, Value> Tf32Split::emitSplit(Emitter &e, Value x) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto round = [&](Value v) {
    Value bits = arith::BitcastOp::create(b, loc, i32, v);
    Value up = e.add(bits, e.i32(kTf32RoundHalf));
    return arith::BitcastOp::create(b, loc, f32, e.andI(up, e.i32(kTf32KeepMask))).getResult();
  };
  auto truncated = [&](Value v) {
    Value bits = arith::BitcastOp::create(b, loc, i32, v);
    return arith::BitcastOp::create(b, loc, f32, e.andI(bits, e.i32(kTf32KeepMask))).getResult();
  };
  Value inf = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(INFINITY));
  auto finite = [&](Value v) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                 math::AbsFOp::create(b, loc, v), inf)
        .getResult();
  };
  // Where rounding would overflow to infinity, hi is truncated instead (lo then carries the
  // rest); an infinity or NaN passes whole in hi.
  Value rounded = round(x);
  Value hiFinite = e.select(finite(rounded), rounded, truncated(x));
  Value isFinite = finite(x);
  Value hi = e.select(isFinite, hiFinite, x);
  Value rest = arith::SubFOp::create(b, loc, x, hiFinite);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value lo = e.select(isFinite, round(rest), zero);
  return {hi, lo};
}

auto Tf32Split::emitChunks(Emitter &e, ArrayRef<Value> chunks) const -> Parts {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto vec4 = VectorType::get({4}, f32);
  SmallVector<Value> bits;
  Value largest; // the largest magnitude's bits (unsigned)
  for (Value x : chunks)
    for (int64_t j = 0; j < 4; ++j) {
      Value v = LLVM::ExtractElementOp::create(b, loc, x, e.i32(j));
      bits.push_back(arith::BitcastOp::create(b, loc, i32, v));
      Value magnitude = e.andI(bits.back(), e.i32(0x7FFFFFFF));
      largest = largest ? arith::MaxUIOp::create(b, loc, largest, magnitude) : magnitude;
    }
  // From this magnitude on, rounding to TF32 overflows (or x is infinite or NaN).
  constexpr int32_t kRoundsToInfinity = 0x7F800000 - kTf32RoundHalf;
  Value common = e.ult(largest, e.i32(kRoundsToInfinity));
  Value undef = LLVM::UndefOp::create(b, loc, vec4);
  SmallVector<Type> types(2 * chunks.size(), vec4);
  auto split = scf::IfOp::create(b, loc, types, common, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  auto round = [&](Value bitsOf) {
    Value up = e.add(bitsOf, e.i32(kTf32RoundHalf));
    return arith::BitcastOp::create(b, loc, f32, e.andI(up, e.i32(kTf32KeepMask))).getResult();
  };
  // Yields the chunks' hi, then their lo, from `part` of an element's bits.
  auto yield = [&](auto part) {
    SmallVector<Value> his(chunks.size(), undef), los(chunks.size(), undef);
    for (auto [i, x] : llvm::enumerate(bits)) {
      auto [h, l] = part(x);
      Value j = e.i32(i % 4);
      his[i / 4] = LLVM::InsertElementOp::create(b, loc, his[i / 4], h, j);
      los[i / 4] = LLVM::InsertElementOp::create(b, loc, los[i / 4], l, j);
    }
    llvm::append_range(his, los);
    scf::YieldOp::create(b, loc, his);
  };
  b.setInsertionPointToStart(split.thenBlock());
  yield([&](Value x) {
    Value h = round(x);
    Value rest = arith::SubFOp::create(b, loc, arith::BitcastOp::create(b, loc, f32, x), h);
    return std::pair<Value, Value>{h, round(arith::BitcastOp::create(b, loc, i32, rest))};
  });
  b.setInsertionPointToStart(split.elseBlock());
  yield([&](Value x) { return emitSplit(e, arith::BitcastOp::create(b, loc, f32, x)); });
  Parts parts;
  for (size_t i = 0; i < chunks.size(); ++i) {
    parts.hi.push_back(split.getResult(i));
    parts.lo.push_back(split.getResult(chunks.size() + i));
  }
  return parts;
}

Value Tf32Split::emitLowOffset(Emitter &e, Value stage) const {
  return e.add(e.i32(loOffset), e.mul(stage, e.i32(stageBytes)));
}

void Tf32Split::emit(Emitter &e, Value base, Value stage, Value thread) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto vec4 = VectorType::get({4}, b.getF32Type());
  Value hiAt = e.mul(stage, e.i32(stageBytes)), loAt = emitLowOffset(e, stage);
  int64_t chunks = stageBytes / kChunkBytes;
  // Chunk c of the stage (16 bytes): thread t takes c = t, t + kThreads, ...: a warp's chunks
  // are 512 consecutive bytes, whose loads and stores meet no bank twice per 128 bytes. A
  // thread splits kChunksAtOnce of its chunks at once (their loads in flight together, one
  // branch for the rare values); the last turn, where not every thread has a chunk, alone.
  int64_t whole = chunks / kThreads;
  auto splitTurns = [&](int64_t first, int64_t count) {
    SmallVector<Value> at, x;
    for (int64_t t = first; t < first + count; ++t) {
      Value offset = e.mul(e.add(thread, e.i32(t * kThreads)), e.i32(kChunkBytes));
      at.push_back(offset);
      x.push_back(LLVM::LoadOp::create(b, loc, vec4, e.offset(base, e.add(hiAt, offset)),
                                       /*alignment=*/kChunkBytes));
    }
    Parts parts = emitChunks(e, x);
    for (auto [i, offset] : llvm::enumerate(at)) {
      LLVM::StoreOp::create(b, loc, parts.hi[i], e.offset(base, e.add(hiAt, offset)),
                            /*alignment=*/kChunkBytes);
      LLVM::StoreOp::create(b, loc, parts.lo[i], e.offset(base, e.add(loAt, offset)),
                            /*alignment=*/kChunkBytes);
    }
  };
  for (int64_t t = 0; t < whole; t += kChunksAtOnce)
    splitTurns(t, std::min(kChunksAtOnce, whole - t));
  if (chunks % kThreads) {
    OpBuilder::InsertionGuard guard(b);
    Value last = e.add(thread, e.i32(whole * kThreads));
    auto inside = scf::IfOp::create(b, loc, e.ult(last, e.i32(chunks)), false);
    b.setInsertionPointToStart(inside.thenBlock());
    splitTurns(whole, 1);
  }
}
