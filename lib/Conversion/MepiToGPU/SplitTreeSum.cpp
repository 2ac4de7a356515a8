// Split-K's sum up a binary tree of counters. Splits 2i and 2i + 1 meet at a node, the
// carriers of those pairs' sums at the next level, and so on up to the root. At each node the
// first to arrive stores its sum as a record and marks it ready; the second waits for the
// mark, adds the record to its own sum and carries it up; the root's second runs the epilog.
// IEEE addition commutes, so a node's sum has the same bits whichever unit arrives second,
// and the splits fix the tree's shape: the same bits every launch.
// Against the last arrival's sum (SplitReduction.cpp: S records through one SM after the
// slowest unit), the slowest unit reads log2(S) records and, second at every node, stores
// none. A second arrival waits only for a unit that has already counted in at its node and
// has nothing left to wait for before its mark, so the units need not be resident at once.
#include "SplitRecords.h"
#include "WgmmaEpilogFrame.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {
namespace {
/// A node's counter: each arrival adds kArrival, the first's mark kReady once its record is
/// visible GPU-wide; at kDone the second resets it to zero for the next launch.
constexpr int32_t kArrival = 1, kReady = 2, kDone = 2 * kArrival + kReady;

/// The leader counts the warpgroup in at `counter`; arriving second, it waits for the first's
/// mark and resets the counter. It publishes at the warpgroup's flag whether it was second.
void countAtNode(Emitter &e, const SplitTree &t, Value counter) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(
      scf::IfOp::create(b, loc, t.isLeader, /*withElseRegion=*/false).thenBlock());
  Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, counter,
                                        e.i32(kArrival), LLVM::AtomicOrdering::monotonic,
                                        StringRef("device"));
  Value second = e.ne(old, e.i32(0));
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, e.eq(old, e.i32(kArrival)), /*withElseRegion=*/false)
            .thenBlock());
    scf::WhileOp::create(
        b, loc, TypeRange{}, ValueRange{},
        [&](OpBuilder &before, Location at, ValueRange) {
          Value count = loadCount(before, at, counter);
          scf::ConditionOp::create(before, at, e.ult(count, e.i32(kDone)), ValueRange{});
        },
        [&](OpBuilder &after, Location at, ValueRange) {
          scf::YieldOp::create(after, at, ValueRange{});
        });
  }
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, second, /*withElseRegion=*/false).thenBlock());
    LLVM::StoreOp::create(b, loc, e.i32(0), counter, /*alignment=*/4);
  }
  LLVM::StoreOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), second), t.flag,
                        /*alignment=*/4);
}

/// The node where this warpgroup's subtree sum `sum` (its record: split `own`'s) meets its
/// sibling's (split `sibling`'s): whether it arrived second and, there, the node's sum. A
/// first arrival stores `sum` as its record and marks it ready.
std::pair<Value, Value> meet(Emitter &e, const SplitTree &t, Value sum, int64_t quads, Value own,
                             Value sibling, Value counter) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  // Every thread has read the flag of the node below before the leader writes it again.
  emitConsumerBarrier(e, t.consumer);
  countAtNode(e, t, counter);
  emitConsumerBarrier(e, t.consumer);
  Value second =
      e.ne(LLVM::LoadOp::create(b, loc, b.getI32Type(), t.flag, /*alignment=*/4), e.i32(0));
  auto node = scf::IfOp::create(b, loc, TypeRange{sum.getType()}, second,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(node.thenBlock());
  // Acquire: the first's record, released before its mark.
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  auto vec4 = VectorType::get({4}, b.getF32Type());
  Value total = sum;
  for (int64_t q = 0; q < quads; ++q)
    total = addQuad(e, total,
                    LLVM::LoadOp::create(b, loc, vec4, t.partial(sibling, q), /*alignment=*/16),
                    q);
  scf::YieldOp::create(b, loc, total);
  b.setInsertionPointToStart(node.elseBlock());
  storePartials(e, sum, quads, own, t.partial);
  // Release: the record is visible GPU-wide before the leader marks it ready.
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  emitConsumerBarrier(e, t.consumer);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, t.isLeader, /*withElseRegion=*/false).thenBlock());
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, counter, e.i32(kReady),
                              LLVM::AtomicOrdering::monotonic, StringRef("device"));
  }
  scf::YieldOp::create(b, loc, sum);
  return {second, node.getResult(0)};
}
} // namespace

std::pair<Value, Value> emitTreeSum(Emitter &e, const SplitTree &t, Value acc, int64_t quads) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  // One trip a level, not unrolled: ptxas kept 128 x 256's accumulators in registers through
  // a loop (as through the last arrival's), not through three copies of a level.
  Value active = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto levels = scf::ForOp::create(b, loc, e.i32(0), e.i32(llvm::Log2_64_Ceil(t.splits)),
                                   e.i32(1), ValueRange{active, acc});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(levels.getBody());
  active = levels.getRegionIterArg(0);
  Value sum = levels.getRegionIterArg(1);
  // This warpgroup carries the sum of `width` splits from `own`; the sibling subtree starts at
  // own ^ width (past the last split: none, and the sum goes up alone). Their node is numbered
  // start + width - 1 among the tile's splits - 1 counters: its low bits a zero and then
  // log2(width) ones, distinct at every level.
  Value shift = levels.getInductionVar();
  Value width = arith::ShLIOp::create(b, loc, e.i32(1), shift);
  Value own = arith::ShLIOp::create(b, loc, e.shr(t.split, shift), shift);
  Value sibling = e.xorI(own, width);
  Value start = e.andI(own, e.xorI(width, e.i32(-1)));
  Value counter = t.counter(e.add(start, e.sub(width, e.i32(1))));
  Value meets = e.andI(active, e.ult(sibling, e.i32(t.splits)));
  auto level = scf::IfOp::create(b, loc, TypeRange{b.getI1Type(), sum.getType()}, meets,
                                 /*withElseRegion=*/true);
  b.setInsertionPointToStart(level.thenBlock());
  auto [second, total] = meet(e, t, sum, quads, own, sibling, counter);
  scf::YieldOp::create(b, loc, ValueRange{second, total});
  b.setInsertionPointToStart(level.elseBlock());
  scf::YieldOp::create(b, loc, ValueRange{active, sum});
  b.setInsertionPointAfter(level);
  scf::YieldOp::create(b, loc, level.getResults());
  return {levels.getResult(0), levels.getResult(1)};
}
} // namespace mlir::mepi::wgmma
