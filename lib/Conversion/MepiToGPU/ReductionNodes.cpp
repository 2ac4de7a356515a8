// The staged epilog's reduction nodes: a declared row, column or scalar reduction combines its
// values in the consumer's scratch slots in a fixed order, stores the slice's partial, and the
// last slice to arrive combines the partials in contributor order (Reductions.h), so results do
// not depend on scheduling.
#include "EpilogueNodes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::sm90;

namespace {

/// What every reduction does: its combiner, its arrival and the slot of its last-arrival flag.
class ReductionNode : public EpilogueNode {
public:
  ReductionNode(unsigned j, unsigned value, const ReductionLayout &layout)
      : j(j), value(value), layout(layout) {}

  Value combine(const StagedEpilog &x, Value a, Value b) const {
    return emitCombine(x.e, x.op.getReductionCombiner(j), a, b);
  }
  Value identity(const StagedEpilog &x) const {
    return emitReductionIdentity(x.e, x.op.getReductionCombiner(j));
  }
  Value flag(const StagedEpilog &x) const {
    return x.e.offset(x.area, x.e.i32(x.scratch.flags + 4 * j));
  }
  /// The partials' group: the slice's row group, the tile column, or the one scalar group.
  virtual Value group(const StagedEpilog &x, const TileReductions &t) const = 0;

  void arrive(const StagedEpilog &x, const TileReductions &t) override {
    Value last = emitArrival(x.e, x.f.workspace, layout, group(x, t));
    x.store(arith::ExtUIOp::create(x.e.b, x.e.loc, x.e.b.getI32Type(), last), flag(x), 4);
  }
  /// Whether this slice arrived last (i1), then the group.
  std::pair<Value, Value> lastArrival(const StagedEpilog &x, const TileReductions &t) const {
    Value isLast = x.e.ne(x.load(x.e.b.getI32Type(), flag(x), 4), x.e.i32(0));
    return {isLast, group(x, t)};
  }

  unsigned j;     ///< the reduction
  unsigned value; ///< its place among an element's combined values
  ReductionLayout layout;
};

/// The row and scalar reductions' steps: the 4 elements into one f32 slot of the thread.
class SlotReductionNode : public ReductionNode {
public:
  using ReductionNode::ReductionNode;
  virtual Value stepSlot(const StagedEpilog &x, const StagedStep &step) const = 0;
  void visitStep(const StagedEpilog &x, const StagedStep &step) override {
    Value pointer = stepSlot(x, step);
    Value total = x.load(x.e.b.getF32Type(), pointer, 4);
    for (int64_t i = 0; i < kEpilogVector; ++i)
      total = combine(x, total, step.combined[i][value]);
    x.store(total, pointer, 4);
  }
};

/// One value per row of D: a slot per (row, thread of the row), combined per row at the end of
/// the tile.
class RowReductionNode : public SlotReductionNode {
public:
  using SlotReductionNode::SlotReductionNode;
  Value group(const StagedEpilog &, const TileReductions &t) const override { return t.rowGroup; }
  // Each thread writes only its own slots.
  void beginTile(const StagedEpilog &x) override {
    Emitter &e = x.e;
    for (int64_t s = 0; s < kChunkSteps; ++s)
      x.store(identity(x), x.slot(j, e.add(x.thread, e.i32(s * kWarpgroup))), 4);
  }
  Value stepSlot(const StagedEpilog &x, const StagedStep &step) const override {
    return x.slot(j, step.linear);
  }
  void storePartial(const StagedEpilog &x, const TileReductions &t) override {
    Emitter &e = x.e;
    OpBuilder::InsertionGuard guard(e.b);
    thenIf(e, e.ult(x.thread, e.i32(64)));
    Value total = identity(x);
    for (int64_t i = 0; i < kThreadsPerRow; ++i)
      total =
          combine(x, total,
                  x.load(e.b.getF32Type(),
                         x.slot(j, e.add(e.mul(x.thread, e.i32(kThreadsPerRow)), e.i32(i))), 4));
    x.store(total, emitPartialAddress(e, x.f.workspace, layout, t.rowGroup, x.tileCol, x.thread),
            4);
  }
  void finish(const StagedEpilog &x, const TileReductions &t) override {
    Emitter &e = x.e;
    OpBuilder::InsertionGuard guard(e.b);
    auto [isLast, group] = lastArrival(x, t);
    Value row = e.add(x.rowBase, x.thread);
    thenIf(e, e.andI(isLast, e.andI(e.ult(x.thread, e.i32(64)), e.ult(row, x.f.emitRowLimit(e)))));
    // Acquire: the other contributors' partials, released before their count.
    NVVM::MembarOp::create(e.b, e.loc, NVVM::MemScopeKind::GPU);
    Value result = emitCombinedPartials(e, x.f.workspace, layout, group, x.thread);
    emitStoreReduction(e, x.op, x.operands, j, result, ValueRange{e.toIndex(row)});
  }
};

/// One value for the whole of D: a slot per thread, combined by thread 0 at the end of the tile.
class ScalarReductionNode : public SlotReductionNode {
public:
  using SlotReductionNode::SlotReductionNode;
  Value group(const StagedEpilog &x, const TileReductions &) const override { return x.e.i32(0); }
  void beginTile(const StagedEpilog &x) override { x.store(identity(x), x.slot(j, x.thread), 4); }
  Value stepSlot(const StagedEpilog &x, const StagedStep &) const override {
    return x.slot(j, x.thread);
  }
  /// The consumer's threads' slots combined in thread order (by one thread).
  Value combinedSlots(const StagedEpilog &x) const {
    Emitter &e = x.e;
    OpBuilder &b = e.b;
    auto loop = scf::ForOp::create(b, e.loc, e.i32(0), e.i32(kWarpgroup), e.i32(1),
                                   ValueRange{identity(x)});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(b, e.loc,
                         combine(x, loop.getRegionIterArg(0),
                                 x.load(b.getF32Type(), x.slot(j, loop.getInductionVar()), 4)));
    return loop.getResult(0);
  }
  void storePartial(const StagedEpilog &x, const TileReductions &t) override {
    Emitter &e = x.e;
    OpBuilder &b = e.b;
    OpBuilder::InsertionGuard guard(b);
    thenIf(e, e.eq(x.thread, e.i32(0)));
    Value tile = e.add(e.mul(x.tileRow, e.i32(t.tilesN)), x.tileCol);
    Value contributor = e.add(e.mul(tile, e.i32(x.f.slices)), x.slice);
    x.store(combinedSlots(x),
            emitPartialAddress(e, x.f.workspace, layout, e.i32(0), contributor, e.i32(0)), 4);
  }
  void finish(const StagedEpilog &x, const TileReductions &t) override {
    Emitter &e = x.e;
    OpBuilder::InsertionGuard guard(e.b);
    auto [isLast, group] = lastArrival(x, t);
    thenIf(e, e.andI(isLast, e.eq(x.thread, e.i32(0))));
    NVVM::MembarOp::create(e.b, e.loc, NVVM::MemScopeKind::GPU);
    Value result = emitCombinedPartials(e, x.f.workspace, layout, group, e.i32(0));
    emitStoreReduction(e, x.op, x.operands, j, result, ValueRange{});
  }
};

/// Grouped kernels' scalar maximum (an amax): the tiles' count is on the device, so there is
/// no last arrival to count to; thread 0 combines the slots and takes the maximum with the
/// output atomically (the runtime sets it to -inf before each launch). On the f32 bits: as
/// signed integers for values >= 0, reversed as unsigned ones below 0.
class AtomicMaxNode : public ScalarReductionNode {
public:
  using ScalarReductionNode::ScalarReductionNode;
  void storePartial(const StagedEpilog &x, const TileReductions &) override {
    Emitter &e = x.e;
    OpBuilder &b = e.b;
    OpBuilder::InsertionGuard guard(b);
    thenIf(e, e.eq(x.thread, e.i32(0)));
    Value bits = LLVM::BitcastOp::create(b, e.loc, b.getI32Type(), combinedSlots(x));
    Value target = emitGlobalBase(e, x.operands.lookup(x.op.getReductions()[j]));
    Value negative = e.ult(e.i32(0x7fffffff), bits); // the sign bit
    auto sign = scf::IfOp::create(b, e.loc, negative, /*withElseRegion=*/true);
    b.setInsertionPointToStart(sign.thenBlock());
    LLVM::AtomicRMWOp::create(b, e.loc, LLVM::AtomicBinOp::umin, target, bits,
                              LLVM::AtomicOrdering::monotonic);
    b.setInsertionPointToStart(sign.elseBlock());
    LLVM::AtomicRMWOp::create(b, e.loc, LLVM::AtomicBinOp::max, target, bits,
                              LLVM::AtomicOrdering::monotonic);
  }
  void arrive(const StagedEpilog &, const TileReductions &) override {}
  void finish(const StagedEpilog &, const TileReductions &) override {}
};

/// One value per column of D: a slot per (row group of 4 threads' rows, column), combined per
/// chunk into the column's partial.
class ColReductionNode : public ReductionNode {
public:
  using ReductionNode::ReductionNode;
  Value group(const StagedEpilog &x, const TileReductions &) const override { return x.tileCol; }
  Value stepSlot(const StagedEpilog &x) const {
    return x.slot(j, x.e.mul(x.thread, x.e.i32(kEpilogVector)));
  }
  // The slots restart per chunk (the previous chunk's were read before its last barrier).
  void beginChunk(const StagedEpilog &x) override {
    Emitter &e = x.e;
    auto vec4 = VectorType::get({kEpilogVector}, e.b.getF32Type());
    Value init = LLVM::UndefOp::create(e.b, e.loc, vec4);
    for (int64_t i = 0; i < kEpilogVector; ++i)
      init = LLVM::InsertElementOp::create(e.b, e.loc, init, identity(x), e.i32(i));
    x.store(init, stepSlot(x), 16);
  }
  void visitStep(const StagedEpilog &x, const StagedStep &step) override {
    Emitter &e = x.e;
    auto vec4 = VectorType::get({kEpilogVector}, e.b.getF32Type());
    Value pointer = stepSlot(x);
    Value partial = x.load(vec4, pointer, 16);
    for (int64_t i = 0; i < kEpilogVector; ++i) {
      Value old = LLVM::ExtractElementOp::create(e.b, e.loc, partial, e.i32(i));
      partial = LLVM::InsertElementOp::create(e.b, e.loc, partial,
                                              combine(x, old, step.combined[i][value]), e.i32(i));
    }
    x.store(partial, pointer, 16);
  }
  bool readsOtherThreads() const override { return true; }
  // Column t's 16 slots, in row order.
  void endChunk(const StagedEpilog &x, Value chunk) override {
    Emitter &e = x.e;
    OpBuilder::InsertionGuard guard(e.b);
    thenIf(e, e.ult(x.thread, e.i32(kChunkColumns)));
    Value total = identity(x);
    for (int64_t r = 0; r < kRowsPerStep; ++r)
      total = combine(
          x, total,
          x.load(e.b.getF32Type(), x.slot(j, e.add(x.thread, e.i32(r * kChunkColumns))), 4));
    Value contributor = e.add(e.mul(x.tileRow, e.i32(x.f.slices)), x.slice);
    Value local = e.add(e.mul(chunk, e.i32(kChunkColumns)), x.thread);
    x.store(total, emitPartialAddress(e, x.f.workspace, layout, x.tileCol, contributor, local), 4);
  }
  void finish(const StagedEpilog &x, const TileReductions &t) override {
    Emitter &e = x.e;
    OpBuilder::InsertionGuard guard(e.b);
    auto [isLast, group] = lastArrival(x, t);
    thenIf(e, isLast);
    NVVM::MembarOp::create(e.b, e.loc, NVVM::MemScopeKind::GPU);
    for (int64_t first = 0; first < x.f.tileN; first += kWarpgroup) {
      OpBuilder::InsertionGuard colGuard(e.b);
      Value local = e.add(x.thread, e.i32(first));
      Value col = e.add(x.colBase, local);
      thenIf(e, e.andI(e.ult(local, e.i32(x.f.tileN)), e.ult(col, e.i32(x.f.n))));
      Value result = emitCombinedPartials(e, x.f.workspace, layout, group, local);
      emitStoreReduction(e, x.op, x.operands, j, result, ValueRange{e.toIndex(col)});
    }
  }
};
} // namespace

void mlir::mepi::appendReductionNodes(const StagedEpilog &x, EpilogueNodes &nodes) {
  unsigned masks = x.scratch.masks.size();
  for (auto [j, layout] : llvm::enumerate(x.f.reductions)) {
    unsigned value = masks + j;
    switch (x.op.getReductionKind(j)) {
    case BroadcastKind::Row:
      nodes.push_back(std::make_unique<RowReductionNode>(j, value, layout));
      break;
    case BroadcastKind::Col:
      nodes.push_back(std::make_unique<ColReductionNode>(j, value, layout));
      break;
    default:
      if (x.op.isGrouped()) // the verifier takes scalar f32 maxima only
        nodes.push_back(std::make_unique<AtomicMaxNode>(j, value, layout));
      else
        nodes.push_back(std::make_unique<ScalarReductionNode>(j, value, layout));
      break;
    }
  }
}
