// The wgmma family's epilog (see WgmmaEpilog.h).
#include "WgmmaEpilog.h"

#include "EpilogEmitter.h"
#include "WgmmaFragment.h"
#include "WgmmaRegisterEpilog.h"
#include "mepi/Sm90/EpilogScratch.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::mepi;

namespace {
using namespace mlir::mepi::sm90;

/// Runs `body` where `inside` holds (always when null) and returns its values; elsewhere the
/// values are those of `repeat` elements outside D.
SmallVector<Value> emitGuarded(Emitter &e, MatmulOp op, Value inside, int64_t repeat,
                               const std::function<SmallVector<Value>()> &body) {
  if (!inside)
    return body();
  OpBuilder &b = e.b;
  SmallVector<Type> types;
  for (int64_t r = 0; r < repeat; ++r)
    llvm::append_range(types, combinedValueTypes(op));
  auto ifOp = scf::IfOp::create(b, e.loc, types, inside, /*withElseRegion=*/!types.empty());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  SmallVector<Value> values = body();
  if (types.empty())
    return {};
  scf::YieldOp::create(b, e.loc, values);
  b.setInsertionPointToStart(ifOp.elseBlock());
  SmallVector<Value> outside;
  for (int64_t r = 0; r < repeat; ++r)
    llvm::append_range(outside, emitOutsideCombinedValues(e, op));
  scf::YieldOp::create(b, e.loc, outside);
  return ifOp.getResults();
}

void thenIf(Emitter &e, Value condition) {
  auto ifOp = scf::IfOp::create(e.b, e.loc, condition, /*withElseRegion=*/false);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
}
} // namespace

Value mlir::mepi::emitGlobalBase(Emitter &e, Value value) {
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(e.b, e.loc, value);
  // A view (one batch element of a batched operand) starts `offset` elements in.
  auto type = cast<MemRefType>(value.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  if (offset != 0) {
    auto metadata = memref::ExtractStridedMetadataOp::create(e.b, e.loc, value);
    Value bytes = arith::MulIOp::create(
        e.b, e.loc, metadata.getOffset(),
        arith::ConstantIndexOp::create(e.b, e.loc, type.getElementTypeBitWidth() / 8));
    pointer = arith::AddIOp::create(e.b, e.loc, pointer, bytes);
  }
  Value address = arith::IndexCastUIOp::create(e.b, e.loc, e.b.getI64Type(), pointer);
  return LLVM::IntToPtrOp::create(e.b, e.loc, e.globalPtr(), address);
}

void mlir::mepi::emitConsumerBarrier(Emitter &e, Value consumer) {
  NVVM::BarrierOp::create(e.b, e.loc, Type(), e.add(consumer, e.i32(1)), e.i32(kWarpgroup),
                          NVVM::BarrierReductionAttr(), Value());
}

void mlir::mepi::emitWgmmaEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                                 const WgmmaEpilogFrame &f, Value acc, Value tileRow,
                                 Value tileCol, Value slice) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value thread = e.rem(f.tid, e.i32(kWarpgroup));
  Value fragmentRow = fragment::firstRow(e, thread);
  Value fragmentCol = fragment::firstCol(e, thread);
  Value sliceRow = e.mul(slice, e.i32(64));
  Value tileFirstRow = f.firstRow ? f.firstRow : e.mul(tileRow, e.i32(f.tileM));
  Value rowBase = e.add(tileFirstRow, sliceRow);
  Value colBase = e.mul(tileCol, e.i32(f.tileN));
  // D from the registers, straight or through TMA stores (WgmmaRegisterEpilog.h).
  if (f.store != DStore::Staged)
    return emitRegisterEpilog(e, op, operands, f, acc, rowBase, colBase, fragmentRow,
                              fragmentCol);

  ScratchLayout scratch(op);
  int64_t chunks = f.tileN / kChunkColumns;
  unsigned masks = scratch.masks.size();
  Type f32 = b.getF32Type();
  Value consumer = e.sub(e.div(f.tid, e.i32(kWarpgroup)), e.i32(1));
  Value staging = e.offset(
      f.base, e.add(e.i32(f.staging), e.mul(consumer, e.i32(Sm90Spec::stagingBytes(f.store)))));
  Value area = e.offset(f.base, e.add(e.i32(f.scratch), e.mul(consumer, e.i32(scratch.bytes))));
  auto sync = [&] { emitConsumerBarrier(e, consumer); };
  auto vec2 = VectorType::get({2}, f32);
  auto vec4 = VectorType::get({kEpilogVector}, f32);
  // f32 slot `index` of reduction j.
  auto slot = [&](unsigned j, Value index) {
    return e.offset(area, e.add(e.i32(scratch.slots[j]), e.mul(index, e.i32(4))));
  };
  auto load = [&](Type type, Value pointer, int64_t alignment) -> Value {
    return LLVM::LoadOp::create(b, loc, type, pointer, alignment);
  };
  auto store = [&](Value v, Value pointer, int64_t alignment) {
    LLVM::StoreOp::create(b, loc, v, pointer, alignment);
  };
  auto combine = [&](unsigned j, Value x, Value y) {
    return emitCombine(e, op.getReductionCombiner(j), x, y);
  };
  auto identity = [&](unsigned j) { return emitReductionIdentity(e, op.getReductionCombiner(j)); };
  auto kindOf = [&](unsigned j) { return op.getReductionKind(j); };
  unsigned numReductions = op.getReductions().size();

  bool rowBounds = f.rowBounds(), colBounds = f.n % f.tileN != 0;
  // D row-major with rows of whole vectors, at an address aligned for them: each group of
  // kEpilogVector columns is one store, and inside or outside D as a whole.
  MemRefType dType = op.getD().getType();
  int64_t dBytes = dType.getElementTypeBitWidth() / 8;
  bool vectorStores = hasVectorStores(op);
  bool transposedAux = llvm::any_of(scratch.transposed, [](int64_t at) { return at >= 0; });
  // An aux output's 16-byte-aligned address, as a global pointer.
  auto auxBase = [&](unsigned i) { return emitGlobalBase(e, operands.lookup(op.getAux()[i])); };

  // Row and scalar slots start at the identity; each thread writes only its own slots.
  for (unsigned j = 0; j < numReductions; ++j) {
    if (kindOf(j) == BroadcastKind::Row)
      for (int64_t s = 0; s < kChunkSteps; ++s)
        store(identity(j), slot(j, e.add(thread, e.i32(s * kWarpgroup))), 4);
    else if (kindOf(j) == BroadcastKind::Scalar)
      store(identity(j), slot(j, thread), 4);
  }

  // Per-row inputs (a bias) of the thread's kChunkSteps rows, loaded once per tile: the rows are
  // the same in every chunk, and a load inside the step would wait behind the previous step's
  // stores of D (nothing tells the compiler they do not alias), exposing its latency 4 times
  // a chunk. Rows past M read row 0 (valid memory); their elements are never stored.
  SmallVector<SmallVector<Value>> rowInputs(op.getEpilogInputs().size());
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs())) {
    auto type = dyn_cast<MemRefType>(input.getType());
    if (op.getInputKind(i) != BroadcastKind::Row || !type || type.getRank() != 1)
      continue;
    for (int64_t s = 0; s < kChunkSteps; ++s) {
      Value row = e.add(rowBase, e.add(e.i32(s * kRowsPerStep),
                                       e.div(thread, e.i32(kThreadsPerRow))));
      Value safe = arith::SelectOp::create(b, loc, e.ult(row, f.emitRowLimit(e)), row, e.i32(0));
      rowInputs[i].push_back(memref::LoadOp::create(b, loc, operands.lookup(input),
                                                    ValueRange{e.toIndex(safe)}));
    }
  }

  // The chunk loop is a runtime loop so that the epilog is emitted once; only the copy of the
  // chunk's registers to shared memory, which needs static register indices, is per chunk.
  auto chunkLoop = scf::ForOp::create(b, loc, e.i32(0), e.i32(chunks), e.i32(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    Value chunk = chunkLoop.getInductionVar();
    SmallVector<int64_t> caseValues = llvm::to_vector(llvm::seq<int64_t>(0, chunks));
    auto copy = scf::IndexSwitchOp::create(b, loc, TypeRange{}, e.toIndex(chunk), caseValues,
                                           chunks);
    b.createBlock(&copy.getDefaultRegion());
    scf::YieldOp::create(b, loc);
    for (int64_t ch = 0; ch < chunks; ++ch) {
      b.createBlock(&copy.getCaseRegions()[ch]);
      // Registers of this chunk's columns, two adjacent columns per 8-byte store.
      for (int64_t r = ch * 16; r < ch * 16 + 16; r += 2) {
        Value row = e.add(fragmentRow, e.i32(fragment::rowOffset(r)));
        Value col = e.add(fragmentCol, e.i32(fragment::colOffset(r) - ch * kChunkColumns));
        Value offset = e.mul(e.add(e.mul(row, e.i32(kStagingPitch)), col), e.i32(4));
        Value pair = LLVM::UndefOp::create(b, loc, vec2);
        for (int64_t j = 0; j < 2; ++j)
          pair = LLVM::InsertElementOp::create(
              b, loc, pair, LLVM::ExtractValueOp::create(b, loc, acc, r + j), e.i32(j));
        store(pair, e.offset(staging, offset), 8);
      }
      scf::YieldOp::create(b, loc);
    }
    b.setInsertionPointAfter(copy);
    // Column slots restart per chunk (the previous chunk's were read before its last barrier).
    for (unsigned j = 0; j < numReductions; ++j)
      if (kindOf(j) == BroadcastKind::Col) {
        Value init = LLVM::UndefOp::create(b, loc, vec4);
        for (int64_t i = 0; i < kEpilogVector; ++i)
          init = LLVM::InsertElementOp::create(b, loc, init, identity(j), e.i32(i));
        store(init, slot(j, e.mul(thread, e.i32(kEpilogVector))), 16);
      }
    sync();

    auto steps = scf::ForOp::create(b, loc, e.i32(0), e.i32(kChunkSteps), e.i32(1));
    {
      OpBuilder::InsertionGuard stepGuard(b);
      b.setInsertionPointToStart(steps.getBody());
      Value linear = e.add(e.mul(steps.getInductionVar(), e.i32(kWarpgroup)), thread);
      Value localRow = e.div(linear, e.i32(kThreadsPerRow));
      Value localCol = e.mul(e.rem(linear, e.i32(kThreadsPerRow)), e.i32(kEpilogVector));
      Value offset = e.mul(e.add(e.mul(localRow, e.i32(kStagingPitch)), localCol), e.i32(4));
      Value values = load(vec4, e.offset(staging, offset), 16);
      Value row = e.add(rowBase, localRow);
      // This step's preloaded row inputs.
      SmallVector<Value> preloaded(op.getEpilogInputs().size());
      for (auto [i, perStep] : llvm::enumerate(rowInputs)) {
        if (perStep.empty())
          continue;
        Value picked = perStep[0];
        for (int64_t s = 1; s < kChunkSteps; ++s)
          picked = arith::SelectOp::create(b, loc, e.eq(steps.getInductionVar(), e.i32(s)),
                                           perStep[s], picked);
        preloaded[i] = picked;
      }
      Value col0 = e.add(colBase, e.add(e.mul(chunk, e.i32(kChunkColumns)), localCol));
      auto element = [&](int64_t j) {
        ElementIndex index;
        index.row = e.toIndex(row);
        index.col = e.toIndex(e.add(col0, e.i32(j)));
        return std::make_pair(
            LLVM::ExtractElementOp::create(b, loc, values, e.i32(j)).getResult(), index);
      };
      // combined[j]: element j's bitmask bits and reduction values.
      SmallVector<SmallVector<Value>> combined(kEpilogVector);
      if (vectorStores) {
        Value inside;
        if (rowBounds)
          inside = e.ult(row, f.emitRowLimit(e));
        if (colBounds) {
          Value colInside = e.ult(col0, e.i32(f.n));
          inside = inside ? e.andI(inside, colInside) : colInside;
        }
        SmallVector<Value> all = emitGuarded(e, op, inside, kEpilogVector, [&] {
          Type dElement = dType.getElementType();
          Value out = LLVM::UndefOp::create(
              b, loc, VectorType::get({kEpilogVector}, storageElementType(dElement)));
          SmallVector<Value> picked;
          for (int64_t j = 0; j < kEpilogVector; ++j) {
            auto [accValue, index] = element(j);
            SmallVector<Value> results =
                emitEpilogValues(b, loc, op, operands, accValue, index, preloaded);
            out = LLVM::InsertElementOp::create(b, loc, out, emitToStorage(b, loc, results[0]),
                                                e.i32(j));
            llvm::append_range(picked, pickCombinedValues(op, results));
            // Matrix aux outputs: column-major ones into their transposing block (written out
            // by whole columns after the chunk), others element by element.
            for (unsigned i = 0; i < op.getAux().size(); ++i) {
              if (op.getAuxKind(i) != BroadcastKind::Matrix)
                continue;
              if (scratch.transposed[i] < 0) {
                SmallVector<Value> at(index.batch);
                at.append({index.row, index.col});
                memref::StoreOp::create(b, loc, results[1 + i], operands.lookup(op.getAux()[i]),
                                        at);
                continue;
              }
              int64_t bytes = results[1 + i].getType().getIntOrFloatBitWidth() / 8;
              Value column = e.add(localCol, e.i32(j));
              Value at = e.add(e.i32(scratch.transposed[i]),
                               e.add(e.mul(column, e.i32(transposePitch(op, i))),
                                     e.mul(localRow, e.i32(bytes))));
              store(results[1 + i], e.offset(area, at), bytes);
            }
          }
          Value dBase = emitGlobalBase(e, operands.lookup(op.getD()));
          Value linearIndex = e.add(e.mul(e.zext64(row), e.i64(f.n)), e.zext64(col0));
          Value target = LLVM::GEPOp::create(b, loc, e.globalPtr(), storageElementType(dElement), dBase,
                                             ArrayRef<LLVM::GEPArg>{linearIndex});
          store(out, target, kEpilogVector * dBytes);
          return picked;
        });
        size_t per = all.size() / kEpilogVector;
        for (int64_t j = 0; j < kEpilogVector; ++j)
          combined[j] = SmallVector<Value>(ArrayRef(all).slice(j * per, per));
      } else {
        for (int64_t j = 0; j < kEpilogVector; ++j) {
          auto [accValue, index] = element(j);
          Value inside;
          if (rowBounds || colBounds)
            inside = e.andI(e.ult(row, f.emitRowLimit(e)), e.ult(e.add(col0, e.i32(j)), e.i32(f.n)));
          combined[j] = emitGuarded(e, op, inside, 1, [&, accValue = accValue, index = index] {
            return pickCombinedValues(
                op, emitEpilogAndStore(b, loc, op, operands, accValue, index));
          });
        }
      }

      // Bitmask bits: the 4 elements' flags as the bytes of one word.
      for (unsigned i = 0; i < masks; ++i) {
        Value word = e.i32(0);
        for (int64_t j = 0; j < kEpilogVector; ++j) {
          Value bit = arith::ExtUIOp::create(b, loc, b.getI32Type(), combined[j][i]);
          word = e.orI(word, arith::ShLIOp::create(b, loc, bit, e.i32(8 * j)));
        }
        Value at = e.add(e.i32(scratch.masks[i]),
                         e.add(e.mul(localRow, e.i32(kMaskPitch)), localCol));
        store(word, e.offset(area, at), 4);
      }
      // Reduction values into this thread's slots, in element order.
      for (unsigned j = 0; j < numReductions; ++j) {
        unsigned k = masks + j;
        if (kindOf(j) == BroadcastKind::Col) {
          Value pointer = slot(j, e.mul(thread, e.i32(kEpilogVector)));
          Value partial = load(vec4, pointer, 16);
          for (int64_t i = 0; i < kEpilogVector; ++i) {
            Value old = LLVM::ExtractElementOp::create(b, loc, partial, e.i32(i));
            partial = LLVM::InsertElementOp::create(b, loc, partial,
                                                    combine(j, old, combined[i][k]), e.i32(i));
          }
          store(partial, pointer, 16);
          continue;
        }
        Value pointer = slot(j, kindOf(j) == BroadcastKind::Row ? linear : thread);
        Value total = load(f32, pointer, 4);
        for (int64_t i = 0; i < kEpilogVector; ++i)
          total = combine(j, total, combined[i][k]);
        store(total, pointer, 4);
      }
    }

    bool combinesPerChunk = masks > 0 || transposedAux ||
                            llvm::any_of(llvm::seq(0u, numReductions), [&](unsigned j) {
                              return kindOf(j) == BroadcastKind::Col;
                            });
    if (combinesPerChunk)
      sync();
    // Column-major aux outputs: each column of the chunk's block is 64 contiguous rows, written
    // as 16-byte vectors, consecutive threads along a column. A vector covers whole rows of the
    // buffer's padded row count, so it is inside or outside as a whole.
    for (unsigned i = 0; i < op.getAux().size(); ++i) {
      if (scratch.transposed[i] < 0)
        continue;
      auto type = cast<MemRefType>(op.getAux()[i].getType());
      int64_t bytes = type.getElementTypeBitWidth() / 8, rowsPerVector = 16 / bytes;
      int64_t vectorsPerColumn = 64 / rowsPerVector;
      int64_t ld = type.getStridesAndOffset().first[1], rows = type.getShape()[0];
      Value base = auxBase(i);
      auto vector = VectorType::get({4}, b.getI32Type());
      for (int64_t first = 0; first < kChunkColumns * vectorsPerColumn; first += kWarpgroup) {
        OpBuilder::InsertionGuard auxGuard(b);
        Value linear = e.add(thread, e.i32(first));
        Value column = e.div(linear, e.i32(vectorsPerColumn));
        Value localRowStart = e.mul(e.rem(linear, e.i32(vectorsPerColumn)), e.i32(rowsPerVector));
        Value globalRow = e.add(rowBase, localRowStart);
        Value globalCol = e.add(colBase, e.add(e.mul(chunk, e.i32(kChunkColumns)), column));
        thenIf(e, e.andI(e.ult(globalRow, e.i32(rows)), e.ult(globalCol, e.i32(f.n))));
        Value from = e.add(e.i32(scratch.transposed[i]),
                           e.add(e.mul(column, e.i32(transposePitch(op, i))),
                                 e.mul(localRowStart, e.i32(bytes))));
        Value values = load(vector, e.offset(area, from), 16);
        Value element = e.add(e.mul(e.zext64(globalCol), e.i64(ld)), e.zext64(globalRow));
        Value target = LLVM::GEPOp::create(b, loc, e.globalPtr(), storageElementType(type.getElementType()), base,
                                           ArrayRef<LLVM::GEPArg>{element});
        store(values, target, 16);
      }
    }
    // Bitmask bytes: thread t packs byte row t % 8 of columns t / 8 and t / 8 + 16; a warp's
    // stores are runs of 8 consecutive bytes of the column-major mask.
    unsigned maskIndex = 0;
    for (auto [i, aux] : llvm::enumerate(op.getAux())) {
      if (op.getAuxKind(i) != BroadcastKind::Bitmask)
        continue;
      int64_t flagsAt = scratch.masks[maskIndex++];
      Value byteRow = e.rem(thread, e.i32(8));
      for (int64_t half = 0; half < 2; ++half) {
        OpBuilder::InsertionGuard halfGuard(b);
        Value col = e.add(e.div(thread, e.i32(8)), e.i32(16 * half));
        Value byte = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
        for (int64_t r = 0; r < 8; ++r) {
          Value row = e.add(e.mul(byteRow, e.i32(8)), e.i32(r));
          Value at = e.add(e.i32(flagsAt), e.add(e.mul(row, e.i32(kMaskPitch)), col));
          Value flag = load(b.getI8Type(), e.offset(area, at), 1);
          Value shift = arith::ConstantIntOp::create(b, loc, b.getI8Type(), r);
          byte = arith::OrIOp::create(b, loc, byte, arith::ShLIOp::create(b, loc, flag, shift));
        }
        Value firstRow = e.add(rowBase, e.mul(byteRow, e.i32(8)));
        Value globalCol = e.add(colBase, e.add(e.mul(chunk, e.i32(kChunkColumns)), col));
        thenIf(e, e.andI(e.ult(firstRow, f.emitRowLimit(e)), e.ult(globalCol, e.i32(f.n))));
        Value maskRow = e.add(e.div(rowBase, e.i32(8)), byteRow);
        memref::StoreOp::create(b, loc, byte, operands.lookup(aux),
                                ValueRange{e.toIndex(maskRow), e.toIndex(globalCol)});
      }
    }
    // Column partials of this chunk: column t's 16 slots, in row order.
    for (auto [j, layout] : llvm::enumerate(f.reductions)) {
      if (layout.kind != BroadcastKind::Col)
        continue;
      OpBuilder::InsertionGuard colGuard(b);
      thenIf(e, e.ult(thread, e.i32(kChunkColumns)));
      Value total = identity(j);
      for (int64_t r = 0; r < kRowsPerStep; ++r)
        total = combine(j, total,
                        load(f32, slot(j, e.add(thread, e.i32(r * kChunkColumns))), 4));
      Value contributor = e.add(e.mul(tileRow, e.i32(f.slices)), slice);
      Value local = e.add(e.mul(chunk, e.i32(kChunkColumns)), thread);
      store(total, emitPartialAddress(e, f.workspace, layout, tileCol, contributor, local), 4);
    }
    sync(); // the chunk's blocks are read before the next chunk overwrites them
  }
  if (f.reductions.empty())
    return;

  // Row and scalar partials of the tile, then every reduction counts this warpgroup in.
  int64_t tilesN = llvm::divideCeil(f.n, f.tileN);
  Value rowGroup = e.add(e.mul(tileRow, e.i32(f.slices)), slice);
  for (auto [j, layout] : llvm::enumerate(f.reductions)) {
    OpBuilder::InsertionGuard partialGuard(b);
    if (layout.kind == BroadcastKind::Row) {
      thenIf(e, e.ult(thread, e.i32(64)));
      Value total = identity(j);
      for (int64_t i = 0; i < kThreadsPerRow; ++i)
        total = combine(j, total,
                        load(f32, slot(j, e.add(e.mul(thread, e.i32(kThreadsPerRow)), e.i32(i))),
                             4));
      store(total, emitPartialAddress(e, f.workspace, layout, rowGroup, tileCol, thread), 4);
    } else if (layout.kind == BroadcastKind::Scalar) {
      thenIf(e, e.eq(thread, e.i32(0)));
      auto loop = scf::ForOp::create(b, loc, e.i32(0), e.i32(kWarpgroup), e.i32(1),
                                     ValueRange{identity(j)});
      b.setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(b, loc,
                           combine(j, loop.getRegionIterArg(0),
                                   load(f32, slot(j, loop.getInductionVar()), 4)));
      b.setInsertionPointAfter(loop);
      Value tile = e.add(e.mul(tileRow, e.i32(tilesN)), tileCol);
      Value contributor = e.add(e.mul(tile, e.i32(f.slices)), slice);
      store(loop.getResult(0),
            emitPartialAddress(e, f.workspace, layout, e.i32(0), contributor, e.i32(0)), 4);
    }
  }
  // Release: the partials are visible GPU-wide before the leader counts the warpgroup in.
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  sync();
  auto groupOf = [&](BroadcastKind kind) {
    return kind == BroadcastKind::Row ? rowGroup
           : kind == BroadcastKind::Col ? tileCol
                                        : e.i32(0);
  };
  auto flag = [&](unsigned j) { return e.offset(area, e.i32(scratch.flags + 4 * j)); };
  {
    OpBuilder::InsertionGuard leaderGuard(b);
    thenIf(e, e.eq(thread, e.i32(0)));
    for (auto [j, layout] : llvm::enumerate(f.reductions)) {
      Value last = emitArrival(e, f.workspace, layout, groupOf(layout.kind));
      store(arith::ExtUIOp::create(b, loc, b.getI32Type(), last), flag(j), 4);
    }
  }
  sync();
  // The last warpgroup to arrive combines the partials in contributor order and stores.
  for (auto [j, layout] : llvm::enumerate(f.reductions)) {
    OpBuilder::InsertionGuard lastGuard(b);
    Value isLast = e.ne(load(b.getI32Type(), flag(j), 4), e.i32(0));
    Value group = groupOf(layout.kind);
    if (layout.kind == BroadcastKind::Row) {
      Value row = e.add(rowBase, thread);
      thenIf(e, e.andI(isLast, e.andI(e.ult(thread, e.i32(64)), e.ult(row, f.emitRowLimit(e)))));
      // Acquire: the other contributors' partials, released before their count.
      NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
      Value result = emitCombinedPartials(e, f.workspace, layout, group, thread);
      emitStoreReduction(e, op, operands, j, result, ValueRange{e.toIndex(row)});
    } else if (layout.kind == BroadcastKind::Col) {
      thenIf(e, isLast);
      NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
      for (int64_t first = 0; first < f.tileN; first += kWarpgroup) {
        OpBuilder::InsertionGuard colGuard(b);
        Value local = e.add(thread, e.i32(first));
        Value col = e.add(colBase, local);
        thenIf(e, e.andI(e.ult(local, e.i32(f.tileN)), e.ult(col, e.i32(f.n))));
        Value result = emitCombinedPartials(e, f.workspace, layout, group, local);
        emitStoreReduction(e, op, operands, j, result, ValueRange{e.toIndex(col)});
      }
    } else {
      thenIf(e, e.andI(isLast, e.eq(thread, e.i32(0))));
      NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
      Value result = emitCombinedPartials(e, f.workspace, layout, group, e.i32(0));
      emitStoreReduction(e, op, operands, j, result, ValueRange{});
    }
  }
}
