// Conversion passes: mepi ops to GPU kernels.
#ifndef MEPI_CONVERSION_PASSES_TD
#define MEPI_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def MepiGenerateKernels : Pass<"mepi-generate-kernels", "::mlir::ModuleOp"> {
  let summary = "Generate a gpu.module kernel for each mepi.matmul and launch it";
  let description = [{
    For each `mepi.matmul` (which must carry a `config`), generates a `gpu.func` kernel in the
    module's `gpu.module @mepi_kernels` with the epilog region inlined, and replaces the op by a
    `gpu.launch_func` of that kernel. Kernel arguments mirror the op's operands in order:
    a, b, [alpha], [c], [beta], epilog inputs..., d, aux...

    Calls that the epilog still makes go to external device code (declared `func.func`s, given
    to nvJitLink as PTX or LTO-IR): they become `llvm.call`s with C types (index as i64).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

#endif // MEPI_CONVERSION_PASSES_TD
