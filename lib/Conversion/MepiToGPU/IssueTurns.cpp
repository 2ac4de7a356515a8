// The promoted consumers' turns at issuing their wgmmas (IssueTurns.h).
#include "IssueTurns.h"
#include "WgmmaKernelGenerator.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {

void IssueTurns::emitWait(Emitter &e, Value k) const {
  Value waits = e.orI(e.ne(consumer, e.i32(0)), e.ne(k, kBegin));
  auto ifOp = scf::IfOp::create(e.b, e.loc, waits, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard then(e.b);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::BarrierOp::create(e.b, e.loc, Type(), e.add(consumer, e.i32(kIssueTurnBarrier)),
                          e.i32(2 * kWarpgroup), NVVM::BarrierReductionAttr(), Value());
}

void IssueTurns::emitPass(Emitter &e, Value k) const {
  Value passes = e.orI(e.eq(consumer, e.i32(0)), e.ne(e.add(k, e.i32(1)), kEnd));
  auto ifOp = scf::IfOp::create(e.b, e.loc, passes, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard then(e.b);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::BarrierArriveOp::create(e.b, e.loc, e.sub(e.i32(1 + kIssueTurnBarrier), consumer),
                                e.i32(2 * kWarpgroup));
}

} // namespace mlir::mepi::wgmma
