// Declarations and registration of mepi's conversion passes.
#ifndef MEPI_CONVERSION_PASSES_H
#define MEPI_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::mepi {
#define GEN_PASS_DECL
#include "Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Conversion/Passes.h.inc"
} // namespace mlir::mepi

#endif // MEPI_CONVERSION_PASSES_H
