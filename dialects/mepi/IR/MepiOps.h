// Operations of the mepi dialect.
#ifndef MEPI_IR_MEPIOPS_H
#define MEPI_IR_MEPIOPS_H

#include "mepi/IR/BlockScaling.h"
#include "mepi/IR/MepiAttrs.h"
#include "mepi/IR/MepiDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include <string>

#define GET_OP_CLASSES
#include "mepi/IR/MepiOps.h.inc"

namespace mlir::mepi {
/// Argument attribute of a planned function: the byte alignment the caller promises for the
/// addresses of a memref argument (the runtime sets it from the operands it checked).
inline constexpr llvm::StringLiteral kAlignmentAttr = "mepi.alignment";
/// The alignment in bytes promised for `value` (kAlignmentAttr on the entry block argument of
/// a function), 0 when unknown.
int64_t getPromisedAlignment(Value value);

/// Whether `op`'s epilog writes D only (no aux output, no reduction) into a static row-major D.
bool writesOnlyStaticD(MatmulOp op);
/// Whether the wgmma epilog's 128-byte store lines hold D elements of `type`: bf16, f16, f32.
bool isStoreLineElement(Type type);
/// Whether, besides (writesOnlyStaticD), D's element pairs are aligned: the wgmma kernels may
/// store D from the registers (`store = registers`).
bool canStoreDFromRegisters(MatmulOp op);
/// Whether, besides, D is bf16, f16 or f32 with rows of a multiple of 16 bytes at a 16-byte
/// aligned address, which a TMA descriptor can address (`store = tma`).
bool canStoreDThroughTma(MatmulOp op);
/// Columns of D in one TMA store of the wgmma epilog: 128 bytes of a row (a swizzle line).
int64_t tmaStoreLineColumns(MatmulOp op);
/// Why a TMA descriptor (mepi.tensor_map) cannot describe a memref of `type`: rank 2 to 5,
/// unit stride in the last dimension, a row pitch and non-broadcast batch strides of 16-byte
/// multiples; none where it can.
std::optional<std::string> whyNotTmaAddressable(MemRefType type);
} // namespace mlir::mepi

#endif // MEPI_IR_MEPIOPS_H
