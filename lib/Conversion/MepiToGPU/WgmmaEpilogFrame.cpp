// The primitives of WgmmaEpilogFrame.h.
#include "WgmmaEpilogFrame.h"

#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mepi;

Value mlir::mepi::emitEvictFirstPolicy(Emitter &e) {
  return LLVM::InlineAsmOp::create(
             e.b, e.loc, e.b.getI64Type(), ValueRange{},
             "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l",
             /*has_side_effects=*/false, /*is_align_stack=*/false, LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr::get(e.b.getContext(), LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

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
  NVVM::BarrierOp::create(e.b, e.loc, Type(), e.add(consumer, e.i32(1)), e.i32(sm90::kWarpgroup),
                          NVVM::BarrierReductionAttr(), Value());
}

bool mlir::mepi::isRowVectorInput(MatmulOp op, unsigned i) {
  auto type = dyn_cast<MemRefType>(op.getEpilogInputs()[i].getType());
  BroadcastKind kind = op.getInputKind(i);
  return type && type.getRank() == 1 &&
         (kind == BroadcastKind::Row || kind == BroadcastKind::CyclicRow);
}

Value mlir::mepi::emitRowVectorLoad(Emitter &e, const WgmmaEpilogFrame &f, MatmulOp op,
                                    unsigned i, Value input, Value row) {
  Value safe = arith::SelectOp::create(e.b, e.loc, e.ult(row, f.emitRowLimit(e)), row, e.i32(0));
  // A cyclic row input repeats every P rows (P static: a remainder by a constant, which the
  // compiler turns into a multiply and a shift).
  if (op.getInputKind(i) == BroadcastKind::CyclicRow)
    safe = e.rem(safe, e.i32(cast<MemRefType>(input.getType()).getDimSize(0)));
  return memref::LoadOp::create(e.b, e.loc, input, ValueRange{e.toIndex(safe)});
}
