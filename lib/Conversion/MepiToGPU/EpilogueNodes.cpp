// The staged epilog's nodes for aux outputs (matrix and bitmask), and what every node shares.
#include "EpilogueNodes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::sm90;

StagedEpilog::StagedEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                           const WgmmaEpilogFrame &f, Value thread, Value tileRow, Value tileCol,
                           Value slice, Value rowBase, Value colBase)
    : e(e), op(op), operands(operands), f(f), scratch(op), thread(thread), tileRow(tileRow),
      tileCol(tileCol), slice(slice), rowBase(rowBase), colBase(colBase) {
  consumer = f.consumer;
  staging = e.offset(
      f.base, e.add(e.i32(f.staging), e.mul(consumer, e.i32(f.stagingBytes))));
  area = e.offset(f.base, e.add(e.i32(f.scratch), e.mul(consumer, e.i32(scratch.bytes))));
}

Value StagedEpilog::slot(unsigned j, Value index) const {
  return e.offset(area, e.add(e.i32(scratch.slots[j]), e.mul(index, e.i32(4))));
}
Value StagedEpilog::load(Type type, Value pointer, int64_t alignment) const {
  return LLVM::LoadOp::create(e.b, e.loc, type, pointer, alignment);
}
void StagedEpilog::store(Value value, Value pointer, int64_t alignment) const {
  LLVM::StoreOp::create(e.b, e.loc, value, pointer, alignment);
}
void StagedEpilog::sync() const { emitConsumerBarrier(e, consumer); }
Value StagedEpilog::chunkColumn(Value chunk, Value local) const {
  return e.add(colBase, e.add(e.mul(chunk, e.i32(kChunkColumns)), local));
}

void mlir::mepi::thenIf(Emitter &e, Value condition) {
  auto ifOp = scf::IfOp::create(e.b, e.loc, condition, /*withElseRegion=*/false);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
}

namespace {

/// A matrix aux output: row-major ones stored element by element; column-major ones (a
/// transposing block in the scratch, EpilogScratch.h) written out by whole columns after each
/// chunk.
class MatrixAuxNode : public EpilogueNode {
public:
  explicit MatrixAuxNode(unsigned aux) : aux(aux) {}

  void visitElement(const StagedEpilog &x, const StagedStep &step, int64_t j,
                    ArrayRef<Value> results, const ElementIndex &index) override {
    Emitter &e = x.e;
    Value value = results[1 + aux];
    if (x.scratch.transposed[aux] < 0) {
      SmallVector<Value> at(index.batch);
      at.append({index.row, index.col});
      memref::StoreOp::create(e.b, e.loc, value, x.operands.lookup(x.op.getAux()[aux]), at);
      return;
    }
    int64_t bytes = value.getType().getIntOrFloatBitWidth() / 8;
    Value column = e.add(step.localCol, e.i32(j));
    Value at = e.add(
        e.i32(x.scratch.transposed[aux]),
        e.add(e.mul(column, e.i32(transposePitch(x.op, aux))), e.mul(step.localRow, e.i32(bytes))));
    x.store(emitToStorage(e.b, e.loc, value), e.offset(x.area, at), bytes);
  }

  bool readsOtherThreads() const override { return transposed; }

  // Each column of the chunk's block is 64 contiguous rows, written as 16-byte vectors,
  // consecutive threads along a column. A vector covers whole rows of the buffer's padded row
  // count, so it is inside or outside as a whole.
  void endChunk(const StagedEpilog &x, Value chunk) override {
    if (!transposed)
      return;
    Emitter &e = x.e;
    OpBuilder &b = e.b;
    auto type = cast<MemRefType>(x.op.getAux()[aux].getType());
    int64_t bytes = type.getElementTypeBitWidth() / 8, rowsPerVector = 16 / bytes;
    int64_t vectorsPerColumn = 64 / rowsPerVector;
    int64_t ld = type.getStridesAndOffset().first[1], rows = type.getShape()[0];
    Value base = emitGlobalBase(e, x.operands.lookup(x.op.getAux()[aux]));
    auto vector = VectorType::get({4}, b.getI32Type());
    for (int64_t first = 0; first < kChunkColumns * vectorsPerColumn; first += kWarpgroup) {
      OpBuilder::InsertionGuard guard(b);
      Value linear = e.add(x.thread, e.i32(first));
      Value column = e.div(linear, e.i32(vectorsPerColumn));
      Value localRowStart = e.mul(e.rem(linear, e.i32(vectorsPerColumn)), e.i32(rowsPerVector));
      Value globalRow = e.add(x.rowBase, localRowStart);
      Value globalCol = x.chunkColumn(chunk, column);
      thenIf(e, e.andI(e.ult(globalRow, e.i32(rows)), e.ult(globalCol, e.i32(x.f.n))));
      Value from = e.add(e.i32(x.scratch.transposed[aux]),
                         e.add(e.mul(column, e.i32(transposePitch(x.op, aux))),
                               e.mul(localRowStart, e.i32(bytes))));
      Value values = x.load(vector, e.offset(x.area, from), 16);
      Value element = e.add(e.mul(e.zext64(globalCol), e.i64(ld)), e.zext64(globalRow));
      Value target =
          LLVM::GEPOp::create(b, e.loc, e.globalPtr(), storageElementType(type.getElementType()),
                              base, ArrayRef<LLVM::GEPArg>{element});
      x.store(values, target, 16);
    }
  }

  unsigned aux;
  bool transposed = false;
};

/// A bitmask aux output (cuBLASLt's ReLU mask): each step's flags go into the scratch, one byte
/// per element; after the chunk thread t packs byte row t % 8 of columns t / 8 and t / 8 + 16,
/// so that a warp's stores are runs of 8 consecutive bytes of the column-major mask.
class BitmaskNode : public EpilogueNode {
public:
  BitmaskNode(unsigned aux, unsigned mask) : aux(aux), mask(mask) {}

  // The step's 4 flags as the bytes of one word.
  void visitStep(const StagedEpilog &x, const StagedStep &step) override {
    Emitter &e = x.e;
    Value word = e.i32(0);
    for (int64_t j = 0; j < kEpilogVector; ++j) {
      Value bit = arith::ExtUIOp::create(e.b, e.loc, e.b.getI32Type(), step.combined[j][mask]);
      word = e.orI(word, arith::ShLIOp::create(e.b, e.loc, bit, e.i32(8 * j)));
    }
    Value at = e.add(e.i32(x.scratch.masks[mask]),
                     e.add(e.mul(step.localRow, e.i32(kMaskPitch)), step.localCol));
    x.store(word, e.offset(x.area, at), 4);
  }

  bool readsOtherThreads() const override { return true; }

  void endChunk(const StagedEpilog &x, Value chunk) override {
    Emitter &e = x.e;
    OpBuilder &b = e.b;
    Value byteRow = e.rem(x.thread, e.i32(8));
    for (int64_t half = 0; half < 2; ++half) {
      OpBuilder::InsertionGuard guard(b);
      Value col = e.add(e.div(x.thread, e.i32(8)), e.i32(16 * half));
      Value byte = arith::ConstantIntOp::create(b, e.loc, b.getI8Type(), 0);
      for (int64_t r = 0; r < 8; ++r) {
        Value row = e.add(e.mul(byteRow, e.i32(8)), e.i32(r));
        Value at = e.add(e.i32(x.scratch.masks[mask]), e.add(e.mul(row, e.i32(kMaskPitch)), col));
        Value flag = x.load(b.getI8Type(), e.offset(x.area, at), 1);
        Value shift = arith::ConstantIntOp::create(b, e.loc, b.getI8Type(), r);
        byte = arith::OrIOp::create(b, e.loc, byte, arith::ShLIOp::create(b, e.loc, flag, shift));
      }
      Value firstRow = e.add(x.rowBase, e.mul(byteRow, e.i32(8)));
      Value globalCol = x.chunkColumn(chunk, col);
      thenIf(e, e.andI(e.ult(firstRow, x.f.emitRowLimit(e)), e.ult(globalCol, e.i32(x.f.n))));
      Value maskRow = e.add(e.div(x.rowBase, e.i32(8)), byteRow);
      memref::StoreOp::create(b, e.loc, byte, x.operands.lookup(x.op.getAux()[aux]),
                              ValueRange{e.toIndex(maskRow), e.toIndex(globalCol)});
    }
  }

  unsigned aux, mask; ///< the aux output, and its place among the bitmask outputs
};
} // namespace

EpilogueNodes mlir::mepi::makeEpilogueNodes(const StagedEpilog &x) {
  EpilogueNodes nodes;
  MatmulOp op = x.op;
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Matrix) {
      auto node = std::make_unique<MatrixAuxNode>(i);
      node->transposed = x.scratch.transposed[i] >= 0;
      nodes.push_back(std::move(node));
    }
  unsigned masks = 0;
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Bitmask)
      nodes.push_back(std::make_unique<BitmaskNode>(i, masks++));
  appendReductionNodes(x, nodes);
  return nodes;
}
