// Operations of the mepi dialect.
#ifndef MEPI_IR_MEPIOPS_H
#define MEPI_IR_MEPIOPS_H

#include "mepi/IR/MepiAttrs.h"
#include "mepi/IR/MepiDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "mepi/IR/MepiOps.h.inc"

#endif // MEPI_IR_MEPIOPS_H
