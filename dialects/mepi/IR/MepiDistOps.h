// The mepi dialect's distributed operations (MepiDistOps.td).
#ifndef MEPI_IR_MEPIDISTOPS_H
#define MEPI_IR_MEPIDISTOPS_H

#include "mepi/IR/MepiDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_CLASSES
#include "mepi/IR/MepiDistOps.h.inc"

#endif // MEPI_IR_MEPIDISTOPS_H
