// A small builder of integer and pointer arithmetic in the forms kernel generators emit all the
// time (i32 index math, byte offsets of global and shared pointers).
#ifndef MEPI_CONVERSION_MEPITOGPU_EMITTER_H
#define MEPI_CONVERSION_MEPITOGPU_EMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::mepi {

struct Emitter {
  OpBuilder &b;
  Location loc;

  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value toIndex(Value x) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), x);
  }
  Value zext64(Value x) { return arith::ExtUIOp::create(b, loc, b.getI64Type(), x); }
  Value ne(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, y);
  }

  Type globalPtr() { return LLVM::LLVMPointerType::get(b.getContext(), 1); }
  /// `base` + `offsetBytes` (i64) bytes of a global pointer.
  Value globalOffset(Value base, Value offsetBytes) {
    return LLVM::GEPOp::create(b, loc, globalPtr(), b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{offsetBytes});
  }

  /// Makes this thread's ordinary shared-memory writes visible to the async proxy, through
  /// which TMA stores and the wgmmas read shared memory (before the barrier that hands them
  /// over).
  void fenceAsyncShared();

  Type sharedPtr() { return LLVM::LLVMPointerType::get(b.getContext(), 3); }
  /// `base` + `offset` bytes (a shared-memory pointer).
  Value offset(Value base, Value offsetBytes) {
    return LLVM::GEPOp::create(b, loc, sharedPtr(), b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{offsetBytes});
  }
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_EMITTER_H
