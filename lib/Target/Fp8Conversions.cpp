// mepi-fp8-conversions: conversions to and from the 8-bit float types as Hopper's cvt
// instructions (LLVM has no 8-bit float type to lower arith.truncf / arith.extf to).
#include "Target/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPIFP8CONVERSIONS
#include "Target/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;

namespace {
bool isFloat8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// f32 to an 8-bit float, rounded to nearest and saturated to its largest finite value (NaN
/// stays NaN), as cuBLASLt writes FP8 results: cvt.rn.satfinite.{e4m3,e5m2}x2.f32 on the
/// value twice, the low byte kept.
Value truncateToFloat8(OpBuilder &b, Location loc, Value f32, Type f8) {
  auto pair = NVVM::ConvertF32x2ToF8x2Op::create(
      b, loc, b.getI16Type(), f32, f32, NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
      /*relu=*/false, f8);
  Value byte = arith::TruncIOp::create(b, loc, b.getI8Type(), pair);
  return arith::BitcastOp::create(b, loc, f8, byte);
}

/// An 8-bit float to f16 (exact: f16 holds every e4m3 and e5m2 value):
/// cvt.rn.f16x2.{e4m3,e5m2}x2 of the byte, the low half kept.
Value extendToF16(OpBuilder &b, Location loc, Value f8) {
  Value byte = arith::BitcastOp::create(b, loc, b.getI8Type(), f8);
  auto bytes = VectorType::get({2}, b.getI8Type());
  Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
  Value pair = LLVM::InsertElementOp::create(b, loc, LLVM::UndefOp::create(b, loc, bytes), byte,
                                             zero);
  auto halves = VectorType::get({2}, b.getF16Type());
  Value converted = NVVM::ConvertF8x2ToF16x2Op::create(b, loc, halves, pair, /*relu=*/false,
                                                      f8.getType());
  return LLVM::ExtractElementOp::create(b, loc, converted, zero);
}

struct Fp8ConversionsPass : mepi::impl::MepiFp8ConversionsBase<Fp8ConversionsPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      auto trunc = dyn_cast<arith::TruncFOp>(op);
      auto ext = dyn_cast<arith::ExtFOp>(op);
      if (!(trunc && isFloat8(trunc.getType())) && !(ext && isFloat8(ext.getIn().getType())))
        return;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value in = op->getOperand(0), result;
      if (trunc) {
        if (!in.getType().isF32())
          in = arith::ExtFOp::create(b, loc, b.getF32Type(), in);
        result = truncateToFloat8(b, loc, in, trunc.getType());
      } else {
        result = extendToF16(b, loc, in);
        if (ext.getType() != result.getType())
          result = arith::ExtFOp::create(b, loc, ext.getType(), result);
      }
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    });
  }
};
} // namespace
