// Operand sums: the SIMT form (a loop over K from global memory) and the wgmma form (the stage
// tiles times a tile of ones, on the tensor cores).
#include "OperandSums.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

Value mlir::mepi::emitOperandSum(OpBuilder &b, Location loc, MatmulOp op,
                                 const IRMapping &operands, bool ofA, const ElementIndex &element,
                                 Value index) {
  Value matrix = operands.lookup(ofA ? op.getA() : op.getB());
  auto type = cast<MemRefType>(matrix.getType());
  // op(A)[i, k] is A[k, i] with transpose_a; op(B)[k, j] is B[j, k] with transpose_b.
  bool indexFirst = ofA ? !op.getTransposeA() : op.getTransposeB();
  int64_t rank = type.getRank();
  Value k = memref::DimOp::create(b, loc, matrix, indexFirst ? rank - 1 : rank - 2);
  SmallVector<Value> batch = emitBroadcastBatchIndices(b, loc, matrix, 2, element.batch);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  auto loop = scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0), k,
      arith::ConstantIndexOp::create(b, loc, 1), ValueRange{zero},
      [&](OpBuilder &lb, Location l, Value kk, ValueRange iter) {
        SmallVector<Value> at(batch);
        at.append(indexFirst ? SmallVector<Value>{index, kk} : SmallVector<Value>{kk, index});
        Value v = emitToF32(lb, l, memref::LoadOp::create(lb, l, matrix, at));
        scf::YieldOp::create(lb, l, ValueRange{arith::AddFOp::create(lb, l, iter[0], v)});
      });
  return loop.getResult(0);
}

void mlir::mepi::emitStoreOperandSum(OpBuilder &b, Location loc, Value sums,
                                     ArrayRef<Value> batch, Value index, Value sum) {
  Type elt = cast<MemRefType>(sums.getType()).getElementType();
  if (elt != sum.getType())
    sum = arith::TruncFOp::create(b, loc, elt, sum);
  SmallVector<Value> at(batch);
  at.push_back(index);
  memref::StoreOp::create(b, loc, sum, sums, at);
}

void mlir::mepi::emitOnesTile(Emitter &e, Value tile, Value thread, Type elementType) {
  OpBuilder &b = e.b;
  // Two 16-bit ones per 32-bit word: bf16 1.0 is 0x3F80, f16 1.0 is 0x3C00.
  int64_t one = elementType.isBF16() ? 0x3F80 : 0x3C00;
  auto words = VectorType::get({4}, b.getI32Type());
  Value ones = arith::ConstantOp::create(
      b, e.loc, DenseElementsAttr::get(words, APInt(32, (one << 16) | one)));
  auto writer = scf::IfOp::create(b, e.loc, e.ult(thread, e.i32(kOnesTileBytes / 16)),
                                  /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(writer.thenBlock());
  LLVM::StoreOp::create(b, e.loc, ones, e.offset(tile, e.mul(thread, e.i32(16))),
                        /*alignment=*/16);
  NVVM::FenceProxyOp::create(
      b, e.loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

void TileSums::emitK16(Emitter &e, int64_t kk, llvm::function_ref<Value(int64_t)> groupDescriptor,
                       Value ones, Type elementType, MutableArrayRef<Value> carried) const {
  OpBuilder &b = e.b;
  MLIRContext *ctx = b.getContext();
  auto fragmentType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kFragment, b.getF32Type()));
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, 8, 16);
  NVVM::WGMMATypes type = elementType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  // The group is the wgmma's A side: read row-major when K-major, transposed when MN-major.
  NVVM::MMALayout layoutA = mnMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  for (int64_t g = 0; g < groups; ++g) {
    MutableArrayRef<Value> fragment =
        carried.slice(((kk % chains) * groups + g) * kFragment, kFragment);
    Value acc = LLVM::UndefOp::create(b, e.loc, fragmentType);
    for (int64_t i = 0; i < kFragment; ++i)
      acc = LLVM::InsertValueOp::create(b, e.loc, acc, fragment[i], i);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, e.loc, fragmentType, acc, groupDescriptor(g), ones, shape, type, type,
        NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
        NVVM::WGMMAScaleIn::one, layoutA, NVVM::MMALayout::col, NVVM::MMAIntOverflowAttr());
    for (int64_t i = 0; i < kFragment; ++i)
      fragment[i] = LLVM::ExtractValueOp::create(b, e.loc, acc, i);
  }
}

SmallVector<Value> TileSums::emitCombine(Emitter &e, ArrayRef<Value> carried) const {
  SmallVector<Value> sums(carried.take_front(values()));
  for (int64_t chain = 1; chain < chains; ++chain)
    for (int64_t v = 0; v < values(); ++v)
      sums[v] = arith::AddFOp::create(e.b, e.loc, sums[v], carried[chain * values() + v]);
  return sums;
}

void TileSums::emitStore(Emitter &e, Value thread, ValueRange partial, Value sums,
                         Value firstRow, int64_t limit) const {
  OpBuilder &b = e.b;
  Value warp = e.div(thread, e.i32(32)), lane = e.rem(thread, e.i32(32));
  // Every column holds the row's sum: the first lane of each quad stores its two rows.
  Value leader = e.eq(e.rem(lane, e.i32(4)), e.i32(0));
  Value fragmentRow = e.add(e.mul(warp, e.i32(16)), e.div(lane, e.i32(4)));
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t half = 0; half < 2; ++half) {
      Value row = e.add(firstRow, e.add(fragmentRow, e.i32(64 * g + 8 * half)));
      auto ifOp = scf::IfOp::create(b, e.loc, e.andI(leader, e.ult(row, e.i32(limit))),
                                    /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      emitStoreOperandSum(b, e.loc, sums, {}, e.toIndex(row), partial[g * kFragment + 2 * half]);
    }
}
