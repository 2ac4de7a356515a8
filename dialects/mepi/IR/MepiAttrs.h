// Attributes of the mepi dialect (broadcast kinds, kernel configurations).
#ifndef MEPI_IR_MEPIATTRS_H
#define MEPI_IR_MEPIATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "mepi/IR/MepiEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mepi/IR/MepiAttrs.h.inc"

#endif // MEPI_IR_MEPIATTRS_H
