// The mepi dialect class.
#ifndef MEPI_IR_MEPIDIALECT_H
#define MEPI_IR_MEPIDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Dialect.h"

#include "mepi/IR/MepiOpsDialect.h.inc"

#endif // MEPI_IR_MEPIDIALECT_H
