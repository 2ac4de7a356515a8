// Operand sums: the SIMT form (a loop over K from global memory) and the wgmma form (partial
// sums from the shared-memory stage tiles, combined by warp shuffles).
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
constexpr int64_t kLine = 128;       // bytes of a swizzled line
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
} // namespace

SmallVector<Value> TileSums::emitAccumulate(Emitter &e, Value tile, Value thread,
                                            Type elementType, ValueRange partial) const {
  SmallVector<Value> sums(partial.begin(), partial.end());
  Value warp = e.div(thread, e.i32(32)), lane = e.rem(thread, e.i32(32));
  for (int64_t g = 0; g < groups; ++g) {
    Value group = e.offset(tile, e.i32(g * kGroupBytes));
    if (!mnMajor) {
      Value row = e.div(thread, e.i32(2)), half = e.rem(thread, e.i32(2));
      Value &sum = sums[g];
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
        sums[g * 8 + j] = arith::AddFOp::create(e.b, e.loc, sums[g * 8 + j], values[j]);
    }
  }
  return sums;
}

void TileSums::emitStore(Emitter &e, Value thread, ValueRange partial, Value sums,
                         Value firstRow, int64_t limit) const {
  OpBuilder &b = e.b;
  Value warp = e.div(thread, e.i32(32)), lane = e.rem(thread, e.i32(32));
  auto store = [&](Value leader, Value row, Value sum) {
    Value inside = e.andI(leader, e.ult(row, e.i32(limit)));
    auto ifOp = scf::IfOp::create(b, e.loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    emitStoreOperandSum(b, e.loc, sums, {}, e.toIndex(row), sum);
  };
  for (int64_t g = 0; g < groups; ++g) {
    Value groupRow = e.add(firstRow, e.i32(64 * g));
    if (!mnMajor) {
      Value sum = partial[g];
      sum = arith::AddFOp::create(b, e.loc, sum, shuffleXor(e, sum, 1));
      store(e.eq(e.rem(thread, e.i32(2)), e.i32(0)), e.add(groupRow, e.div(thread, e.i32(2))),
            sum);
      continue;
    }
    // The 16 lanes of a chunk hold its rows' sums over k-lines l % 16 + 16 i.
    Value chunk = e.add(e.mul(warp, e.i32(2)), e.div(lane, e.i32(16)));
    Value leader = e.eq(e.rem(lane, e.i32(16)), e.i32(0));
    for (int64_t j = 0; j < 8; ++j) {
      Value sum = partial[g * 8 + j];
      for (int64_t mask : {1, 2, 4, 8})
        sum = arith::AddFOp::create(b, e.loc, sum, shuffleXor(e, sum, mask));
      store(leader, e.add(groupRow, e.add(e.mul(chunk, e.i32(8)), e.i32(j))), sum);
    }
  }
}
