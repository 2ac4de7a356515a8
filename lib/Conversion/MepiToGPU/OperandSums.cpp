// Operand sums: the SIMT form (a loop over K from global memory) and the wgmma forms (the stage
// tiles added up by the consumer threads, or multiplied by a tile of ones on the tensor cores).
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

namespace {
constexpr int64_t kLine = 128;        // bytes of a swizzled line
constexpr int64_t kGroupBytes = 8192; // 64 lines

/// The f32 values of the eight 16-bit elements of the 16-byte chunk at `address`.
SmallVector<Value> loadChunk(Emitter &e, Value address, Type elementType) {
  auto vector = VectorType::get({8}, elementType);
  Value raw = LLVM::LoadOp::create(e.b, e.loc, vector, address, /*alignment=*/16);
  Value wide = arith::ExtFOp::create(e.b, e.loc, VectorType::get({8}, e.b.getF32Type()), raw);
  SmallVector<Value> values;
  for (int64_t j = 0; j < 8; ++j)
    values.push_back(LLVM::ExtractElementOp::create(e.b, e.loc, wide, e.i32(j)));
  return values;
}

Value shuffleXor(Emitter &e, Value v, int64_t mask) {
  return NVVM::ShflOp::create(e.b, e.loc, v.getType(), e.i32(-1), v, e.i32(mask), e.i32(0x1f),
                              NVVM::ShflKind::bfly, UnitAttr());
}

/// Stores `sum` to row `row` of `sums` where `leader` holds and the row is below `limit`.
void storeRow(Emitter &e, Value leader, Value row, int64_t limit, Value sums, Value sum) {
  auto ifOp = scf::IfOp::create(e.b, e.loc, e.andI(leader, e.ult(row, e.i32(limit))),
                                /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
  emitStoreOperandSum(e.b, e.loc, sums, {}, e.toIndex(row), sum);
}
} // namespace

void mlir::mepi::emitOnesTile(Emitter &e, Value tile, Value thread, Type elementType) {
  OpBuilder &b = e.b;
  // Two 16-bit ones per 32-bit word: bf16 1.0 is 0x3F80, f16 1.0 is 0x3C00.
  int64_t one = elementType.isBF16() ? 0x3F80 : 0x3C00;
  auto words = VectorType::get({4}, b.getI32Type());
  Value ones = arith::ConstantOp::create(
      b, e.loc, DenseElementsAttr::get(words, APInt(32, (one << 16) | one)));
  auto writer = scf::IfOp::create(b, e.loc, e.ult(thread, e.i32(sm90::kOnesTileBytes / 16)),
                                  /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(writer.thenBlock());
  LLVM::StoreOp::create(b, e.loc, ones, e.offset(tile, e.mul(thread, e.i32(16))),
                        /*alignment=*/16);
  e.fenceAsyncShared();
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

void TileSums::emitThreadAccumulate(Emitter &e, Value tile, Value thread, Type elementType,
                                    MutableArrayRef<Value> carried) const {
  Value warp = e.div(thread, e.i32(32)), lane = e.rem(thread, e.i32(32));
  for (int64_t g = 0; g < groups; ++g) {
    Value group = e.offset(tile, e.i32(g * kGroupBytes));
    if (!mnMajor) {
      Value row = e.div(thread, e.i32(2)), half = e.rem(thread, e.i32(2));
      Value &sum = carried[g];
      for (int64_t i = 0; i < 4; ++i) {
        Value chunk = e.xorI(e.add(e.mul(half, e.i32(4)), e.i32(i)), e.rem(row, e.i32(8)));
        Value address = e.offset(group, e.add(e.mul(row, e.i32(kLine)), e.mul(chunk, e.i32(16))));
        for (Value v : loadChunk(e, address, elementType))
          sum = arith::AddFOp::create(e.b, e.loc, sum, v);
      }
      continue;
    }
    Value chunk = e.add(e.mul(warp, e.i32(2)), e.div(lane, e.i32(16)));
    for (int64_t i = 0; i < 4; ++i) {
      Value line = e.add(e.rem(lane, e.i32(16)), e.i32(16 * i));
      Value position = e.xorI(chunk, e.rem(line, e.i32(8)));
      Value address =
          e.offset(group, e.add(e.mul(line, e.i32(kLine)), e.mul(position, e.i32(16))));
      SmallVector<Value> values = loadChunk(e, address, elementType);
      for (int64_t j = 0; j < 8; ++j)
        carried[g * 8 + j] = arith::AddFOp::create(e.b, e.loc, carried[g * 8 + j], values[j]);
    }
  }
}

SmallVector<Value> TileSums::emitCombine(Emitter &e, ArrayRef<Value> carried) const {
  SmallVector<Value> sums(carried.take_front(values()));
  for (int64_t chain = 1; onTensorCores && chain < chains; ++chain)
    for (int64_t v = 0; v < values(); ++v)
      sums[v] = arith::AddFOp::create(e.b, e.loc, sums[v], carried[chain * values() + v]);
  return sums;
}

void TileSums::emitStore(Emitter &e, Value thread, ValueRange partial, Value sums,
                         Value firstRow, int64_t limit) const {
  OpBuilder &b = e.b;
  Value warp = e.div(thread, e.i32(32)), lane = e.rem(thread, e.i32(32));
  for (int64_t g = 0; g < groups; ++g) {
    Value groupRow = e.add(firstRow, e.i32(64 * g));
    if (onTensorCores) {
      // Every column holds the row's sum: the first lane of each quad stores its two rows.
      Value leader = e.eq(e.rem(lane, e.i32(4)), e.i32(0));
      Value fragmentRow = e.add(e.mul(warp, e.i32(16)), e.div(lane, e.i32(4)));
      for (int64_t half = 0; half < 2; ++half)
        storeRow(e, leader, e.add(groupRow, e.add(fragmentRow, e.i32(8 * half))), limit, sums,
                 partial[g * kFragment + 2 * half]);
      continue;
    }
    if (!mnMajor) {
      Value sum = partial[g];
      sum = arith::AddFOp::create(b, e.loc, sum, shuffleXor(e, sum, 1));
      storeRow(e, e.eq(e.rem(thread, e.i32(2)), e.i32(0)),
               e.add(groupRow, e.div(thread, e.i32(2))), limit, sums, sum);
      continue;
    }
    // The 16 lanes of a chunk hold its rows' sums over k-lines l % 16 + 16 i.
    Value chunk = e.add(e.mul(warp, e.i32(2)), e.div(lane, e.i32(16)));
    Value leader = e.eq(e.rem(lane, e.i32(16)), e.i32(0));
    for (int64_t j = 0; j < 8; ++j) {
      Value sum = partial[g * 8 + j];
      for (int64_t mask : {1, 2, 4, 8})
        sum = arith::AddFOp::create(b, e.loc, sum, shuffleXor(e, sum, mask));
      storeRow(e, leader, e.add(groupRow, e.add(e.mul(chunk, e.i32(8)), e.i32(j))), limit, sums,
               sum);
    }
  }
}
