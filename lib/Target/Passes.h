// Declarations and registration of mepi's target passes.
#ifndef MEPI_TARGET_PASSES_H
#define MEPI_TARGET_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::mepi {
#define GEN_PASS_DECL
#include "Target/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Target/Passes.h.inc"
} // namespace mlir::mepi

#endif // MEPI_TARGET_PASSES_H
