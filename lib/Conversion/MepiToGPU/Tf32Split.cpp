// The 3xTF32 split of a stage in shared memory (see Tf32Split.h).
#include "Tf32Split.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cassert>
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

Value Tf32Split::emit(Emitter &e, Value base, Value stage, Value it, Value thread,
                      Value barrier) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto vec4 = VectorType::get({4}, b.getF32Type());
  Value lo = e.add(e.i32(loOffset), e.mul(e.rem(it, e.i32(2)), e.i32(stageBytes)));
  assert(stageBytes % (kChunkBytes * threads) == 0 && "a stage is whole turns of the threads");
  // Chunk c of the stage (16 bytes): thread t takes c = t, t + threads, ...: a warp's chunks
  // are 512 consecutive bytes, whose loads and stores meet no bank twice per 128 bytes.
  for (int64_t c = 0; c < stageBytes / kChunkBytes; c += threads) {
    Value offset = e.mul(e.add(thread, e.i32(c)), e.i32(kChunkBytes));
    Value at = e.offset(base, e.add(stage, offset));
    Value x = LLVM::LoadOp::create(b, loc, vec4, at, /*alignment=*/kChunkBytes);
    Value hi = LLVM::UndefOp::create(b, loc, vec4), low = hi;
    for (int64_t j = 0; j < 4; ++j) {
      auto [h, l] = emitSplit(e, LLVM::ExtractElementOp::create(b, loc, x, e.i32(j)));
      hi = LLVM::InsertElementOp::create(b, loc, hi, h, e.i32(j));
      low = LLVM::InsertElementOp::create(b, loc, low, l, e.i32(j));
    }
    LLVM::StoreOp::create(b, loc, hi, at, /*alignment=*/kChunkBytes);
    LLVM::StoreOp::create(b, loc, low, e.offset(base, e.add(lo, offset)),
                          /*alignment=*/kChunkBytes);
  }
  // The wgmmas read shared memory through the async proxy.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  NVVM::BarrierOp::create(b, loc, Type(), barrier, e.i32(threads), NVVM::BarrierReductionAttr(),
                          Value());
  return lo;
}
