// Declarations and registration of the mepi dialect's passes.
#ifndef MEPI_TRANSFORMS_PASSES_H
#define MEPI_TRANSFORMS_PASSES_H

#include "mepi/IR/MepiOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::mepi {
#define GEN_PASS_DECL
#include "mepi/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mepi/Transforms/Passes.h.inc"
} // namespace mlir::mepi

#endif // MEPI_TRANSFORMS_PASSES_H
