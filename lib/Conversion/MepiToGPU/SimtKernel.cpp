// The SIMT kernel family: one thread per output element, f32 fused multiply-adds over K.
//
// The reference kernel: correct for every shape, stride, transpose and batch broadcast, with
// threadIdx.x along N so that B loads and D stores coalesce. Tensor-core kernels replace it for
// speed; it stays as the fallback and the baseline that the others are checked against.
#include "EpilogEmitter.h"
#include "KernelGenerator.h"
#include "OperandSums.h"
#include "Reductions.h"
#include "SimtBlockCombination.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
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

/// sum_k op(A)[row, k] * op(B)[k, col] in f32 for the element at `element`.
Value emitDotProduct(OpBuilder &b, Location loc, MatmulOp op, const IRMapping &operands,
                     const ElementIndex &element, Value k) {
  Value a = operands.lookup(op.getA()), bMat = operands.lookup(op.getB());
  bool transA = op.getTransposeA(), transB = op.getTransposeB();
  bool tf32 = op.getCompute() == ComputeType::TF32;
  SmallVector<Value> aBatch = emitBroadcastBatchIndices(b, loc, a, 2, element.batch);
  SmallVector<Value> bBatch = emitBroadcastBatchIndices(b, loc, bMat, 2, element.batch);
  Value row = element.row, col = element.col;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, k, step, ValueRange{zero},
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
  return loop.getResult(0);
}

class SimtKernelGenerator : public KernelGenerator {
public:
  using KernelGenerator::KernelGenerator;

  LogicalResult checkSupported(MatmulOp op) const override {
    if (op.isGrouped())
      return op.emitOpError() << "grouped matmuls run on wgmma kernels (sm_90a) only";
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
    // A block packs whole bytes of a bitmask: 8 rows each.
    if (hasBitmaskAux(op) && config.getTileM() % 8 != 0)
      return op.emitOpError() << "expected a simt tile of a multiple of 8 rows for a bitmask "
                                 "aux output, got "
                              << config.getTileM();
    if (!op.getReductions().empty() && !op.getD().getType().hasStaticShape())
      return op.emitOpError() << "expected a static shape of d for reductions, got "
                              << op.getD().getType();
    // The reductions count contributing blocks in 32-bit integers.
    if (!op.getReductions().empty()) {
      TileGrid grid = tileGrid(op);
      int64_t blocks = grid.batch * llvm::divideCeil(grid.m, grid.tileM) *
                       llvm::divideCeil(grid.n, grid.tileN);
      if (blocks > sm90::kMaxIndex)
        return op.emitOpError() << "simt kernels with reductions take at most 2^31 - 1 blocks "
                                   "(32-bit counters), got "
                                << blocks;
    }
    return success();
  }

  void emitBody(OpBuilder &b, MatmulOp op, const IRMapping &operands,
                ValueRange leading) const override {
    Location loc = op.getLoc();
    Value a = operands.lookup(op.getA()), d = operands.lookup(op.getD());
    int64_t aRank = cast<MemRefType>(a.getType()).getRank();
    int64_t dRank = cast<MemRefType>(d.getType()).getRank();
    bool transA = op.getTransposeA();

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

    // Values that other threads of the block combine: bitmask aux bits and reduction values.
    // Threads outside D take part with a zero bit and the reduction's identity.
    SmallVector<Type> sharedTypes = combinedValueTypes(op);

    ElementIndex element;
    element.batch = emitDelinearizedBatch(
        b, loc, d, gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
    element.row = row;
    element.col = col;
    auto ifOp = scf::IfOp::create(b, loc, sharedTypes, inBounds,
                                  /*withElseRegion=*/!sharedTypes.empty());
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value acc = emitDotProduct(b, loc, op, operands, element, k);
      SmallVector<Value> values = emitEpilogAndStore(b, loc, op, operands, acc, element);
      SmallVector<Value> shared = pickCombinedValues(op, values);
      if (!shared.empty())
        scf::YieldOp::create(b, loc, shared);
      if (!sharedTypes.empty()) {
        b.setInsertionPointToStart(ifOp.elseBlock());
        Emitter e{b, loc};
        SmallVector<Value> outside = emitOutsideCombinedValues(e, op);
        scf::YieldOp::create(b, loc, outside);
      }
    }
    if (!sharedTypes.empty())
      emitSimtBlockCombination(b, loc, op, operands, leading.empty() ? Value() : leading.back(),
                               element, ifOp.getResults(), tileGrid(op));
    // Operand sums: the threads of D's first column sum op(A)'s rows, those of its first row
    // op(B)'s columns (a loop over K each; this family is the reference, not the fast path).
    Value zeroIndex = index(0);
    for (auto [sums, ofA] : {std::pair{op.getASums(), true}, std::pair{op.getBSums(), false}}) {
      if (!sums)
        continue;
      Value mine = ofA ? arith::AndIOp::create(
                             b, loc, rowIn,
                             arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, col, zeroIndex))
                       : arith::AndIOp::create(
                             b, loc, colIn,
                             arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, row, zeroIndex));
      auto first = scf::IfOp::create(b, loc, mine, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(first.thenBlock());
      Value at = ofA ? row : col;
      Value sum = emitOperandSum(b, loc, op, operands, ofA, element, at);
      emitStoreOperandSum(b, loc, operands.lookup(sums), element.batch, at, sum);
    }
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

  SmallVector<Value> emitLeadingLaunchOperands(OpBuilder &b, MatmulOp op) const override {
    if (op.getReductions().empty())
      return {};
    int64_t bytes = 0;
    planReductions(op, tileGrid(op), 0, bytes);
    return {WorkspaceOp::create(b, op.getLoc(), LLVM::LLVMPointerType::get(b.getContext()),
                                bytes)};
  }

private:
  TileGrid tileGrid(MatmulOp op) const {
    ArrayRef<int64_t> shape = op.getD().getType().getShape();
    TileGrid grid;
    for (int64_t dim : shape.drop_back(2))
      grid.batch *= dim;
    grid.m = shape[shape.size() - 2];
    grid.n = shape.back();
    grid.tileM = config.getTileM();
    grid.tileN = config.getTileN();
    return grid;
  }
};
} // namespace

std::unique_ptr<KernelGenerator>
mlir::mepi::createSimtKernelGenerator(KernelConfigAttr config, const TargetInfo &target) {
  return std::make_unique<SimtKernelGenerator>(config, target);
}
