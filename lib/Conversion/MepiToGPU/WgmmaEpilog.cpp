// The wgmma family's epilog (see WgmmaEpilog.h): the staged walk over a slice, which stores D
// and calls the epilogue nodes (EpilogueNodes.h) of the other outputs.
#include "WgmmaEpilog.h"

#include "EpilogEmitter.h"
#include "EpilogueNodes.h"
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

} // namespace

namespace {
using namespace mlir::mepi::sm90;

/// Per-row inputs (a bias) of the thread's kChunkSteps rows, loaded once per tile: the rows are
/// the same in every chunk, and a load inside the step would wait behind the previous step's
/// stores of D (nothing tells the compiler they do not alias), exposing its latency 4 times a
/// chunk.
SmallVector<SmallVector<Value>> preloadRowInputs(const StagedEpilog &x) {
  Emitter &e = x.e;
  MatmulOp op = x.op;
  SmallVector<SmallVector<Value>> rowInputs(op.getEpilogInputs().size());
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs())) {
    Value vector = x.operands.lookup(input);
    if (!isRowVectorInput(op, i))
      continue;
    for (int64_t s = 0; s < kChunkSteps; ++s) {
      Value row =
          e.add(x.rowBase, e.add(e.i32(s * kRowsPerStep), e.div(x.thread, e.i32(kThreadsPerRow))));
      rowInputs[i].push_back(emitRowVectorLoad(e, x.f, op, i, vector, row));
    }
  }
  return rowInputs;
}

/// Copies the chunk's accumulators into the staging block, two adjacent columns per 8-byte
/// store: a switch over the chunks, since registers need static indices.
void emitChunkCopy(const StagedEpilog &x, Value chunk, Value acc, Value fragmentRow,
                   Value fragmentCol) {
  Emitter &e = x.e;
  OpBuilder &b = e.b;
  int64_t chunks = x.f.tileN / kChunkColumns;
  auto vec2 = VectorType::get({2}, b.getF32Type());
  SmallVector<int64_t> caseValues = llvm::to_vector(llvm::seq<int64_t>(0, chunks));
  auto copy =
      scf::IndexSwitchOp::create(b, e.loc, TypeRange{}, e.toIndex(chunk), caseValues, chunks);
  b.createBlock(&copy.getDefaultRegion());
  scf::YieldOp::create(b, e.loc);
  for (int64_t ch = 0; ch < chunks; ++ch) {
    b.createBlock(&copy.getCaseRegions()[ch]);
    for (int64_t r = ch * 16; r < ch * 16 + 16; r += 2) {
      Value row = e.add(fragmentRow, e.i32(fragment::rowOffset(r)));
      Value col = e.add(fragmentCol, e.i32(fragment::colOffset(r) - ch * kChunkColumns));
      Value offset = e.mul(e.add(e.mul(row, e.i32(kStagingPitch)), col), e.i32(4));
      Value pair = LLVM::UndefOp::create(b, e.loc, vec2);
      for (int64_t j = 0; j < 2; ++j)
        pair = LLVM::InsertElementOp::create(
            b, e.loc, pair, LLVM::ExtractValueOp::create(b, e.loc, acc, r + j), e.i32(j));
      x.store(pair, e.offset(x.staging, offset), 8);
    }
    scf::YieldOp::create(b, e.loc);
  }
  b.setInsertionPointAfter(copy);
}

/// A step's elements in registers, where they lie in D, and the row inputs picked for it.
struct StepElements {
  Value values; ///< vector of kEpilogVector f32 from the staging block
  Value row, col0;
  SmallVector<Value> preloaded;
  std::pair<Value, ElementIndex> element(Emitter &e, int64_t j) const {
    ElementIndex index;
    index.row = e.toIndex(row);
    index.col = e.toIndex(e.add(col0, e.i32(j)));
    return std::make_pair(LLVM::ExtractElementOp::create(e.b, e.loc, values, e.i32(j)).getResult(),
                          index);
  }
};

/// D row-major with rows of whole vectors, at an address aligned for them: each group of
/// kEpilogVector columns is one store, and inside or outside D as a whole. The nodes see each
/// element's results.
SmallVector<Value> emitVectorStep(const StagedEpilog &x, const EpilogueNodes &nodes,
                                  StagedStep &step, const StepElements &s) {
  Emitter &e = x.e;
  OpBuilder &b = e.b;
  const WgmmaEpilogFrame &f = x.f;
  MatmulOp op = x.op;
  Value inside;
  if (f.rowBounds())
    inside = e.ult(s.row, f.emitRowLimit(e));
  if (f.n % f.tileN != 0) {
    Value colInside = e.ult(s.col0, e.i32(f.n));
    inside = inside ? e.andI(inside, colInside) : colInside;
  }
  return emitGuarded(e, op, inside, kEpilogVector, [&] {
    Type dElement = op.getD().getType().getElementType();
    Value out = LLVM::UndefOp::create(
        b, e.loc, VectorType::get({kEpilogVector}, storageElementType(dElement)));
    SmallVector<Value> picked;
    for (int64_t j = 0; j < kEpilogVector; ++j) {
      auto [accValue, index] = s.element(e, j);
      SmallVector<Value> results =
          emitEpilogValues(b, e.loc, op, x.operands, accValue, index, s.preloaded);
      out = LLVM::InsertElementOp::create(b, e.loc, out, emitToStorage(b, e.loc, results[0]),
                                          e.i32(j));
      llvm::append_range(picked, pickCombinedValues(op, results));
      for (const auto &node : nodes)
        node->visitElement(x, step, j, results, index);
    }
    Value linearIndex = e.add(e.mul(e.zext64(s.row), e.i64(f.n)), e.zext64(s.col0));
    int64_t dBytes = op.getD().getType().getElementTypeBitWidth() / 8;
    for (Value stored : storedOperands(op)) {
      Value base = emitGlobalBase(e, x.operands.lookup(stored));
      Value target = LLVM::GEPOp::create(b, e.loc, e.globalPtr(), storageElementType(dElement),
                                         base, ArrayRef<LLVM::GEPArg>{linearIndex});
      x.store(out, target, kEpilogVector * dBytes);
    }
    return picked;
  });
}

/// One step of a chunk: the thread's kEpilogVector elements through the epilog into D, then the
/// nodes combine their values.
void emitStep(const StagedEpilog &x, const EpilogueNodes &nodes, Value chunk, Value stepIndex,
              ArrayRef<SmallVector<Value>> rowInputs) {
  Emitter &e = x.e;
  const WgmmaEpilogFrame &f = x.f;
  MatmulOp op = x.op;
  StagedStep step;
  step.linear = e.add(e.mul(stepIndex, e.i32(kWarpgroup)), x.thread);
  step.localRow = e.div(step.linear, e.i32(kThreadsPerRow));
  step.localCol = e.mul(e.rem(step.linear, e.i32(kThreadsPerRow)), e.i32(kEpilogVector));
  Value offset = e.mul(e.add(e.mul(step.localRow, e.i32(kStagingPitch)), step.localCol), e.i32(4));
  StepElements s;
  s.values =
      x.load(VectorType::get({kEpilogVector}, e.b.getF32Type()), e.offset(x.staging, offset), 16);
  s.row = e.add(x.rowBase, step.localRow);
  // This step's preloaded row inputs.
  s.preloaded.resize(op.getEpilogInputs().size());
  for (auto [i, perStep] : llvm::enumerate(rowInputs)) {
    if (perStep.empty())
      continue;
    Value picked = perStep[0];
    for (int64_t k = 1; k < kChunkSteps; ++k)
      picked = arith::SelectOp::create(e.b, e.loc, e.eq(stepIndex, e.i32(k)), perStep[k], picked);
    s.preloaded[i] = picked;
  }
  s.col0 = x.chunkColumn(chunk, step.localCol);
  step.combined.resize(kEpilogVector);
  if (hasVectorStores(op)) {
    SmallVector<Value> all = emitVectorStep(x, nodes, step, s);
    size_t per = all.size() / kEpilogVector;
    for (int64_t j = 0; j < kEpilogVector; ++j)
      step.combined[j] = SmallVector<Value>(ArrayRef(all).slice(j * per, per));
  } else {
    for (int64_t j = 0; j < kEpilogVector; ++j) {
      auto [accValue, index] = s.element(e, j);
      Value inside;
      if (f.rowBounds() || f.n % f.tileN != 0)
        inside =
            e.andI(e.ult(s.row, f.emitRowLimit(e)), e.ult(e.add(s.col0, e.i32(j)), e.i32(f.n)));
      step.combined[j] = emitGuarded(e, op, inside, 1, [&, accValue = accValue, index = index] {
        return pickCombinedValues(op,
                                  emitEpilogAndStore(e.b, e.loc, op, x.operands, accValue, index));
      });
    }
  }
  for (const auto &node : nodes)
    node->visitStep(x, step);
}

/// The chunk loop is a runtime loop so that the epilog is emitted once; only the copy of the
/// chunk's registers to shared memory, which needs static register indices, is per chunk.
void emitChunks(const StagedEpilog &x, const EpilogueNodes &nodes, Value acc, Value fragmentRow,
                Value fragmentCol, ArrayRef<SmallVector<Value>> rowInputs) {
  Emitter &e = x.e;
  OpBuilder &b = e.b;
  int64_t chunks = x.f.tileN / kChunkColumns;
  auto chunkLoop = scf::ForOp::create(b, e.loc, e.i32(0), e.i32(chunks), e.i32(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunkLoop.getBody());
  Value chunk = chunkLoop.getInductionVar();
  emitChunkCopy(x, chunk, acc, fragmentRow, fragmentCol);
  for (const auto &node : nodes)
    node->beginChunk(x);
  x.sync();
  auto steps = scf::ForOp::create(b, e.loc, e.i32(0), e.i32(kChunkSteps), e.i32(1));
  {
    OpBuilder::InsertionGuard stepGuard(b);
    b.setInsertionPointToStart(steps.getBody());
    emitStep(x, nodes, chunk, steps.getInductionVar(), rowInputs);
  }
  if (llvm::any_of(nodes, [](const auto &node) { return node->readsOtherThreads(); }))
    x.sync();
  for (const auto &node : nodes)
    node->endChunk(x, chunk);
  x.sync(); // the chunk's blocks are read before the next chunk overwrites them
}

/// Each reduction's partial of the tile, then every reduction counts this warpgroup in, and the
/// last warpgroup to arrive combines the partials in contributor order and stores.
void completeReductions(const StagedEpilog &x, const EpilogueNodes &nodes) {
  Emitter &e = x.e;
  TileReductions t;
  t.tilesN = x.f.tilesN();
  t.rowGroup = e.add(e.mul(x.tileRow, e.i32(x.f.slices)), x.slice);
  for (const auto &node : nodes)
    node->storePartial(x, t);
  // Release: the partials are visible GPU-wide before the leader counts the warpgroup in.
  NVVM::MembarOp::create(e.b, e.loc, NVVM::MemScopeKind::GPU);
  x.sync();
  {
    OpBuilder::InsertionGuard leaderGuard(e.b);
    thenIf(e, e.eq(x.thread, e.i32(0)));
    for (const auto &node : nodes)
      node->arrive(x, t);
  }
  x.sync();
  for (const auto &node : nodes)
    node->finish(x, t);
}
} // namespace

void mlir::mepi::emitWgmmaEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                                 const WgmmaEpilogFrame &f, Value acc, Value tileRow, Value tileCol,
                                 Value slice) {
  Value thread = e.rem(f.tid, e.i32(kWarpgroup));
  Value fragmentRow = fragment::firstRow(e, thread);
  Value fragmentCol = fragment::firstCol(e, thread);
  Value sliceRow = e.mul(slice, e.i32(64));
  Value tileFirstRow = f.firstRow ? f.firstRow : e.mul(tileRow, e.i32(f.tileM));
  Value rowBase = e.add(tileFirstRow, sliceRow);
  Value colBase = e.mul(tileCol, e.i32(f.tileN));
  // D from the registers, straight or through TMA stores (WgmmaRegisterEpilog.h).
  if (f.store != DStore::Staged)
    return emitRegisterEpilog(e, op, operands, f, acc, rowBase, colBase, fragmentRow, fragmentCol);
  StagedEpilog x(e, op, operands, f, thread, tileRow, tileCol, slice, rowBase, colBase);
  EpilogueNodes nodes = makeEpilogueNodes(x);
  for (const auto &node : nodes)
    node->beginTile(x);
  SmallVector<SmallVector<Value>> rowInputs = preloadRowInputs(x);
  emitChunks(x, nodes, acc, fragmentRow, fragmentCol, rowInputs);
  if (!f.reductions.empty())
    completeReductions(x, nodes);
}
