// The swapped form's epilogs (Dᵀ = B Aᵀ; see WgmmaRegisterEpilog.h): element by element, or
// through stmatrix.trans into the TMA store buffers.
#include "WgmmaRegisterEpilog.h"

#include "EpilogEmitter.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
using mlir::mepi::sm90::kWarpgroup;
constexpr int64_t kLineBytes = sm90::kSwizzleBytes, kBufferBytes = sm90::kTmaStoreBufferBytes;

/// The swapped form's registers r and r + 1 (D rows `row` and `row` + 1 of column `col`) through
/// the epilog, as one 32-bit word of two 16-bit D elements. Elements outside D are zero (their
/// epilog inputs may lie outside the operands; TMA clips them from the store).
Value transposedPair(Emitter &e, MatmulOp op, const IRMapping &operands,
                     const WgmmaEpilogFrame &f, Value acc, int64_t r, Value row, Value col) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type element = storageElementType(op.getD().getType().getElementType());
  Value pair = LLVM::UndefOp::create(b, loc, VectorType::get({2}, element));
  for (int64_t c = 0; c < 2; ++c) {
    Value elementRow = e.add(row, e.i32(c));
    auto ifOp = scf::IfOp::create(
        b, loc, TypeRange{element},
        e.andI(e.ult(elementRow, e.i32(f.m)), e.ult(col, e.i32(f.n))), /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    ElementIndex index;
    index.row = e.toIndex(elementRow);
    index.col = e.toIndex(col);
    SmallVector<Value> results = emitEpilogValues(
        b, loc, op, operands, LLVM::ExtractValueOp::create(b, loc, acc, r + c), index);
    scf::YieldOp::create(b, loc, emitToStorage(b, loc, results[0]));
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc,
                         Value(arith::ConstantOp::create(b, loc, b.getZeroAttr(element))));
    b.setInsertionPointAfter(ifOp);
    pair = LLVM::InsertElementOp::create(b, loc, pair, ifOp.getResult(0), e.i32(c));
  }
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair);
}
} // namespace

void mlir::mepi::emitTransposedEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                                      int64_t m, int64_t n, int64_t tileM, int64_t tileN,
                                      Value acc, Value tileRow, Value tileCol, Value tid,
                                      Value consumer) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value thread = e.rem(tid, e.i32(kWarpgroup));
  Value lane = e.rem(tid, e.i32(32));
  // Fragment layout of the 64 x tile_m block of Dᵀ (DESIGN §5): register r of lane l in warp w
  // is its row 16w + l/4 + 8((r/2)%2) (a column of D) and column 8(r/4) + 2(l%4) + r%2 (a row).
  Value fragmentCol = e.add(e.mul(e.div(thread, e.i32(32)), e.i32(16)), e.div(lane, e.i32(4)));
  Value fragmentRow = e.mul(e.rem(lane, e.i32(4)), e.i32(2));
  Value rowBase = e.mul(tileRow, e.i32(tileM));
  Value colBase = e.add(e.mul(tileCol, e.i32(tileN)), e.mul(consumer, e.i32(64)));
  SmallVector<unsigned> masks; // the bitmask aux outputs
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Bitmask)
      masks.push_back(i);
  Value noBit = arith::ConstantIntOp::create(b, loc, 0, 1);
  // bits[k][r]: mask k's bit of register r's element (0 outside D).
  SmallVector<SmallVector<Value>> bits(masks.size());
  for (int64_t r = 0; r < tileM / 2; ++r) {
    Value row = e.add(rowBase, e.add(fragmentRow, e.i32(8 * (r / 4) + r % 2)));
    Value col = e.add(colBase, e.add(fragmentCol, e.i32(8 * ((r / 2) % 2))));
    OpBuilder::InsertionGuard guard(b);
    auto ifOp = scf::IfOp::create(b, loc, SmallVector<Type>(masks.size(), b.getI1Type()),
                                  e.andI(e.ult(row, e.i32(m)), e.ult(col, e.i32(n))),
                                  /*withElseRegion=*/true);
    // Without results the builder added the terminators; the yields below are the blocks'.
    for (Block *block : {ifOp.thenBlock(), ifOp.elseBlock()})
      if (!block->empty())
        block->back().erase();
    b.setInsertionPointToStart(ifOp.thenBlock());
    ElementIndex index;
    index.row = e.toIndex(row);
    index.col = e.toIndex(col);
    SmallVector<Value> values = emitEpilogAndStore(
        b, loc, op, operands, LLVM::ExtractValueOp::create(b, loc, acc, r), index);
    SmallVector<Value> mine;
    for (unsigned i : masks)
      mine.push_back(values[1 + i]);
    scf::YieldOp::create(b, loc, mine);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, SmallVector<Value>(masks.size(), noBit));
    for (size_t k = 0; k < masks.size(); ++k)
      bits[k].push_back(ifOp.getResult(k));
  }
  // Bitmask bytes (cuBLASLt's layout: byte (row / 8, col) holds rows 8j..8j+7 of a column):
  // the byte of rows 8j.. of a column is spread over a quad, lane q holding rows 8j + 2q and
  // 8j + 2q + 1 (registers r and r + 1 of r = 4j + 2h, h the column's half); the quad ORs its
  // bits together and its first lane stores the byte.
  Value quadLane = e.rem(lane, e.i32(4));
  for (auto [k, aux] : llvm::enumerate(masks)) {
    for (int64_t r = 0; r < tileM / 2; r += 2) {
      Value word = e.i32(0);
      for (int64_t bit = 0; bit < 2; ++bit) {
        Value flag = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits[k][r + bit]);
        Value shift = e.add(e.mul(quadLane, e.i32(2)), e.i32(bit));
        word = e.orI(word, arith::ShLIOp::create(b, loc, flag, shift));
      }
      for (int64_t mask : {1, 2})
        word = e.orI(word, NVVM::ShflOp::create(b, loc, b.getI32Type(), e.i32(-1), word,
                                                e.i32(mask), e.i32(0x1f), NVVM::ShflKind::bfly,
                                                UnitAttr()));
      Value firstRow = e.add(rowBase, e.i32(8 * (r / 4)));
      Value col = e.add(colBase, e.add(fragmentCol, e.i32(8 * ((r / 2) % 2))));
      OpBuilder::InsertionGuard guard(b);
      auto store = scf::IfOp::create(
          b, loc,
          e.andI(e.eq(quadLane, e.i32(0)),
                 e.andI(e.ult(firstRow, e.i32(m)), e.ult(col, e.i32(n)))),
          /*withElseRegion=*/false);
      b.setInsertionPointToStart(store.thenBlock());
      Value byte = arith::TruncIOp::create(b, loc, b.getI8Type(), word);
      memref::StoreOp::create(b, loc, byte, operands.lookup(op.getAux()[aux]),
                              ValueRange{e.toIndex(e.div(firstRow, e.i32(8))), e.toIndex(col)});
    }
  }
}

void mlir::mepi::emitTransposedTmaStores(Emitter &e, MatmulOp op, const IRMapping &operands,
                                         const WgmmaEpilogFrame &f, Value acc, Value tileRow,
                                         Value tileCol, int64_t boxRows) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  constexpr int64_t kGroupRows = 8, kChunkRows = sm90::kSliceRows;
  Value consumer = f.consumer;
  Value thread = e.rem(f.tid, e.i32(kWarpgroup));
  Value lane = e.rem(f.tid, e.i32(32)), warp = e.div(thread, e.i32(32));
  Value rowBase = e.mul(tileRow, e.i32(f.tileM));
  Value colBase = e.add(e.mul(tileCol, e.i32(f.tileN)), e.mul(consumer, e.i32(kChunkRows)));
  // The fragment of the 64 x tile_m block of Dᵀ (emitTransposedEpilog): register 4g + 2h + c
  // of lane l in warp w is D row 8g + 2(l % 4) + c of column 16w + 8h + l / 4. Registers
  // 4g + 2h and + 1 are the lane's pair of 8 x 8 matrix (g, h) of Dᵀ; stmatrix.trans stores
  // its transpose, rows of D, and lane l gives the address of D row 8g + l % 8 of matrix
  // l / 8 = 2 (g - g0) + h: 16 bytes at column 16w + 8h of the buffer's 128-byte line.
  Value fragmentCol = e.add(e.mul(warp, e.i32(16)), e.div(lane, e.i32(4)));
  Value fragmentRow = e.mul(e.rem(lane, e.i32(4)), e.i32(2));
  Value matrix = e.div(lane, e.i32(8));
  Value unitByte = e.mul(e.add(e.mul(warp, e.i32(2)), e.rem(matrix, e.i32(2))), e.i32(16));
  Value matrixRow = e.add(e.mul(e.div(matrix, e.i32(2)), e.i32(kGroupRows)), e.rem(lane, e.i32(8)));
  Value buffers = e.add(e.i32(f.staging), e.mul(consumer, e.i32(f.stagingBytes)));
  int64_t count = f.tmaStoreBuffers;
  TmaBufferTurns turns{count};
  Value isLeader = e.eq(thread, e.i32(0));
  auto leader = [&](llvm::function_ref<void()> body) {
    OpBuilder::InsertionGuard guard(b);
    auto ifOp = scf::IfOp::create(b, loc, isLeader, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  };
  auto waitBuffersRead = [&] {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0), b.getUnitAttr());
  };
  // Chunks of up to 64 rows take the consumer's buffers in turn, as emitTmaStores' lines do.
  int64_t chunks = llvm::divideCeil(f.tileM, kChunkRows);
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    if (turns.waitsBefore(chunk, chunks)) {
      leader(waitBuffersRead);
      emitConsumerBarrier(e, consumer);
    }
    int64_t rows = std::min(kChunkRows, f.tileM - chunk * kChunkRows);
    int64_t firstGroup = chunk * kChunkRows / kGroupRows;
    Value buffer = e.offset(f.base, e.add(buffers, e.i32((chunk % count) * kBufferBytes)));
    for (int64_t g = firstGroup; g < firstGroup + rows / kGroupRows; g += 2) {
      SmallVector<Value> words;
      for (int64_t i = 0; i < 4; ++i) {
        int64_t group = g + i / 2, h = i % 2;
        Value row = e.add(rowBase, e.add(fragmentRow, e.i32(kGroupRows * group)));
        Value col = e.add(colBase, e.add(fragmentCol, e.i32(8 * h)));
        words.push_back(transposedPair(e, op, operands, f, acc, 4 * group + 2 * h, row, col));
      }
      Value bufferRow = e.add(e.i32(kGroupRows * (g - firstGroup)), matrixRow);
      NVVM::StMatrixOp::create(b, loc, e.offset(buffer, swizzledOffset(e, bufferRow, unitByte)),
                               words, NVVM::MMALayout::col,
                               NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
                               NVVM::LdStMatrixEltType::B16);
    }
    // The generic-proxy writes become visible to the TMA unit (the async proxy).
    e.fenceAsyncShared();
    if (turns.waitsAtEnd())
      leader(waitBuffersRead);
    emitConsumerBarrier(e, consumer);
    leader([&] {
      SmallVector<Value> maps = {f.dMap};
      llvm::append_range(maps, f.mirrorMaps);
      for (int64_t box = 0; box < rows / boxRows; ++box) {
        SmallVector<Value> coordinates = {
            colBase, e.add(rowBase, e.i32(chunk * kChunkRows + box * boxRows))};
        Value source = e.offset(buffer, e.i32(box * boxRows * kLineBytes));
        for (Value map : maps)
          NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
              b, loc, map, source, coordinates, /*l2CacheHint=*/f.dStorePolicy,
              NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    });
  }
}
