// The SIMT kernel family: one thread per output element, f32 fused multiply-adds over K.
//
// The reference kernel: correct for every shape, stride, transpose and batch broadcast, with
// threadIdx.x along N so that B loads and D stores coalesce. Tensor-core kernels replace it for
// speed; it stays as the fallback and the baseline that the others are checked against.
#include "EpilogEmitter.h"
#include "KernelGenerator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// Rounds an f32 to TF32 (10-bit mantissa, nearest with ties away from zero, as cvt.rna.tf32.f32):
/// the precision tensor cores multiply f32 operands with under tf32 compute.
Value emitRoundToTF32(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value half = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x1000));
  Value mask = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(static_cast<int32_t>(0xFFFFE000u)));
  Value rounded = arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, bits, half), mask);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), rounded);
}

class SimtKernelGenerator : public KernelGenerator {
public:
  using KernelGenerator::KernelGenerator;

  LogicalResult checkSupported(MatmulOp op) const override {
    auto isLowered = [](Type t) { return isa<Float16Type, BFloat16Type, Float32Type>(t); };
    for (Value v : {op.getA(), op.getB(), op.getD()}) {
      Type elt = cast<MemRefType>(v.getType()).getElementType();
      if (!isLowered(elt))
        return op.emitOpError() << "kernel generation supports f16, bf16 and f32 element "
                                   "types, got "
                                << elt;
    }
    // fp8 loads and stores are not lowered yet (nor by upstream's LLVM lowering of arith).
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      Type type = operand.getType();
      if (auto memref = dyn_cast<MemRefType>(type))
        type = memref.getElementType();
      if (isa<Float8E4M3FNType, Float8E5M2Type>(type))
        return op.emitOpError() << "kernel generation does not support fp8 element types yet, "
                                   "got "
                                << type << " for operand " << i;
    }
    return success();
  }

  void emitBody(OpBuilder &b, MatmulOp op, const IRMapping &operands,
                ValueRange /*leading*/) const override {
    Location loc = op.getLoc();
    Value a = operands.lookup(op.getA()), bMat = operands.lookup(op.getB()),
          d = operands.lookup(op.getD());
    int64_t aRank = cast<MemRefType>(a.getType()).getRank();
    int64_t bRank = cast<MemRefType>(bMat.getType()).getRank();
    int64_t dRank = cast<MemRefType>(d.getType()).getRank();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    bool tf32 = op.getCompute() == ComputeType::TF32;

    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    // One op per statement: C++ leaves the order of nested call arguments unspecified, and the
    // IR must not depend on the host compiler.
    Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value threadY = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
    Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value threadX = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value rowBase = arith::MulIOp::create(b, loc, blockY, index(config.getTileM()));
    Value row = arith::AddIOp::create(b, loc, rowBase, threadY);
    Value colBase = arith::MulIOp::create(b, loc, blockX, index(config.getTileN()));
    Value col = arith::AddIOp::create(b, loc, colBase, threadX);
    Value m = emitDim(b, loc, d, dRank - 2);
    Value n = emitDim(b, loc, d, dRank - 1);
    Value k = emitDim(b, loc, a, transA ? aRank - 2 : aRank - 1);
    Value rowIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, m);
    Value colIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, n);
    Value inBounds = arith::AndIOp::create(b, loc, rowIn, colIn);

    auto ifOp = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());

    ElementIndex element;
    element.batch = emitDelinearizedBatch(
        b, loc, d, gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
    element.row = row;
    element.col = col;
    SmallVector<Value> aBatch = emitBroadcastBatchIndices(b, loc, a, 2, element.batch);
    SmallVector<Value> bBatch = emitBroadcastBatchIndices(b, loc, bMat, 2, element.batch);

    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    auto loop = scf::ForOp::create(
        b, loc, index(0), k, index(1), ValueRange{zero},
        [&](OpBuilder &lb, Location l, Value kk, ValueRange iter) {
          SmallVector<Value> aIdx(aBatch), bIdx(bBatch);
          aIdx.append(transA ? SmallVector<Value>{kk, row} : SmallVector<Value>{row, kk});
          bIdx.append(transB ? SmallVector<Value>{col, kk} : SmallVector<Value>{kk, col});
          Value av = emitToF32(lb, l, memref::LoadOp::create(lb, l, a, aIdx));
          Value bv = emitToF32(lb, l, memref::LoadOp::create(lb, l, bMat, bIdx));
          if (tf32) {
            av = emitRoundToTF32(lb, l, av);
            bv = emitRoundToTF32(lb, l, bv);
          }
          Value sum = math::FmaOp::create(lb, l, av, bv, iter[0]);
          scf::YieldOp::create(lb, l, sum);
        });
    emitEpilogAndStore(b, loc, op, operands, loop.getResult(0), element);
  }

  LaunchGeometry emitLaunchGeometry(OpBuilder &b, MatmulOp op) const override {
    Location loc = op.getLoc();
    Value d = op.getD();
    int64_t dRank = cast<MemRefType>(d.getType()).getRank();
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value tileM = index(config.getTileM());
    Value tileN = index(config.getTileN());
    Value m = emitDim(b, loc, d, dRank - 2);
    Value n = emitDim(b, loc, d, dRank - 1);
    LaunchGeometry geometry;
    geometry.grid.x = arith::CeilDivUIOp::create(b, loc, n, tileN);
    geometry.grid.y = arith::CeilDivUIOp::create(b, loc, m, tileM);
    geometry.grid.z = emitBatchCount(b, loc, d);
    geometry.block = {tileN, tileM, index(1)};
    return geometry;
  }

  std::optional<SmallVector<int32_t, 3>> knownBlockSize() const override {
    return SmallVector<int32_t, 3>{static_cast<int32_t>(config.getTileN()),
                                   static_cast<int32_t>(config.getTileM()), 1};
  }
};
} // namespace

std::unique_ptr<KernelGenerator> mlir::mepi::createSimtKernelGenerator(KernelConfigAttr config) {
  return std::make_unique<SimtKernelGenerator>(config);
}
