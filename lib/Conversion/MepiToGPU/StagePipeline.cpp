// The wgmma kernels' stage ring (see StagePipeline.h).
#include "StagePipeline.h"
#include "TileScheduler.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// Suspend-time hint of mbarrier waits (ns), as CUTLASS uses.
constexpr int64_t kWaitTicks = 0x989680;
} // namespace

std::pair<Value, Value> StagePipeline::emitBarriers(Emitter &e, Value stage) const {
  Value full = e.offset(base, e.add(e.i32(layout.barriers), e.mul(stage, e.i32(8))));
  Value empty =
      e.offset(base, e.add(e.i32(layout.barriers + 8 * stages), e.mul(stage, e.i32(8))));
  return {full, empty};
}

auto StagePipeline::emitSlot(Emitter &e, Value it) const -> Slot {
  Slot slot;
  slot.stage = e.rem(it, e.i32(stages));
  slot.phase = e.andI(e.div(it, e.i32(stages)), e.i32(1));
  std::tie(slot.full, slot.empty) = emitBarriers(e, slot.stage);
  slot.ready = layout.ready ? e.offset(base, e.add(e.i32(layout.ready), e.mul(slot.stage, e.i32(8))))
                            : slot.full;
  return slot;
}

void StagePipeline::emitInit(Emitter &e, int64_t producerArrivals, int64_t readers,
                             int64_t transformers) const {
  for (int64_t s = 0; s < stages; ++s) {
    Value full = e.offset(base, e.i32(layout.barriers + 8 * s));
    Value empty = e.offset(base, e.i32(layout.barriers + 8 * (stages + s)));
    NVVM::MBarrierInitOp::create(e.b, e.loc, full, e.i32(producerArrivals), Value());
    NVVM::MBarrierInitOp::create(e.b, e.loc, empty, e.i32(readers), Value());
    if (layout.ready)
      NVVM::MBarrierInitOp::create(e.b, e.loc, e.offset(base, e.i32(layout.ready + 8 * s)),
                                   e.i32(transformers), Value());
  }
  if (rows * columns > 1) // the peer blocks arrive on them and multicast into this block
    NVVM::FenceMbarrierInitOp::create(e.b, e.loc);
}

void StagePipeline::emitAcquire(Emitter &e, const Slot &slot) const {
  NVVM::MBarrierTryWaitParityOp::create(e.b, e.loc, slot.empty, e.xorI(slot.phase, e.i32(1)),
                                        e.i32(kWaitTicks));
}

void StagePipeline::emitWait(Emitter &e, const Slot &slot) const {
  NVVM::MBarrierTryWaitParityOp::create(e.b, e.loc, slot.ready, slot.phase, e.i32(kWaitTicks));
}

void StagePipeline::emitWaitLanded(Emitter &e, const Slot &slot) const {
  NVVM::MBarrierTryWaitParityOp::create(e.b, e.loc, slot.full, slot.phase, e.i32(kWaitTicks));
}

void StagePipeline::emitTransformed(Emitter &e, const Slot &slot) const {
  // The tensor cores read shared memory through the async proxy.
  e.fenceAsyncShared();
  NVVM::MBarrierArriveOp::create(e.b, e.loc, Type(), slot.ready, Value());
}

void StagePipeline::emitRelease(Emitter &e, Value it, Value thread, Value isLeader) const {
  OpBuilder &b = e.b;
  if (rows * columns == 1) {
    auto leader = scf::IfOp::create(b, e.loc, isLeader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(leader.thenBlock());
    Value empty = emitBarriers(e, e.rem(it, e.i32(stages))).second;
    NVVM::MBarrierArriveOp::create(b, e.loc, Type(), empty, Value());
    return;
  }
  Value empty = emitBarriers(e, e.rem(it, e.i32(stages))).second;
  // Thread i of the warpgroup arrives on the stage's barrier in the i-th block that reads it,
  // as CUTLASS's cluster barriers do: the arrivals leave at once, not one after another from
  // one thread (H200, 2026-11-30, `release-ab.log`: clusters of 8 sharing both operands +1.3 %,
  // of 4 +0.3 %, clusters of 2 within noise).
  SmallVector<Value> targets = emitTargets(e);
  Value target = targets.front();
  for (auto [i, other] : llvm::enumerate(ArrayRef<Value>(targets).drop_front()))
    target = e.select(e.eq(thread, e.i32(int64_t(i) + 1)), other, target);
  auto arrives = scf::IfOp::create(b, e.loc, e.ult(thread, e.i32(int64_t(targets.size()))),
                                   /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(arrives.thenBlock());
  // The default CTA scope, as CUTLASS's cluster barriers use: a cluster-scope release makes
  // ptxas fence with MEMBAR.ALL.GPU before each arrive, which measured 2-3x slower
  // (bench/NOTES.md). The stage was read by wgmmas this warpgroup waited for.
  auto sharedCluster = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value remote = NVVM::MapaOp::create(b, e.loc, sharedCluster, empty, target);
  NVVM::MBarrierArriveOp::create(b, e.loc, Type(), remote, Value());
}

SmallVector<Value> StagePipeline::emitTargets(Emitter &e) const {
  // The blocks whose producers multicast into this one: every block of a cluster of one row or
  // column; in R x C, this block's row (ranks rankRow + R j) and the
  // rest of its column (((rankRow + i) % R) + R rankColumn, 0 < i < R).
  SmallVector<Value> targets;
  if (rows == 1 || columns == 1) {
    for (int64_t r = 0; r < rows * columns; ++r)
      targets.push_back(e.i32(r));
    return targets;
  }
  auto [rankRow, rankColumn] = emitClusterPosition(e, config, rank);
  Value columnBase = e.mul(rankColumn, e.i32(rows));
  for (int64_t j = 0; j < columns; ++j)
    targets.push_back(e.add(rankRow, e.i32(rows * j)));
  for (int64_t i = 1; i < rows; ++i)
    targets.push_back(e.add(columnBase, e.rem(e.add(rankRow, e.i32(i)), e.i32(rows))));
  return targets;
}
