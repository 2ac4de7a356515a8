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

    Tensor-core families (`wgmma`) add leading kernel arguments: TMA descriptors made on the
    host side by `mepi.tensor_map`, counted by the kernel attribute `mepi.tensor_map_params`.
    The launch carries the configuration as `mepi.config` and the dynamic shared memory size.

    Calls that the epilog still makes go to external device code (declared `func.func`s, given
    to nvJitLink as PTX or LTO-IR): they become `llvm.call`s with C types (index as i64).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target GPU whose figures size the kernels (TargetInfo)">,
    Option<"multiprocessors", "multiprocessors", "int64_t", /*default=*/"0",
           "Multiprocessors of the target GPU (0: the chip's reference part)">,
  ];
}

def MepiLowerTensorMapParams : Pass<"mepi-lower-tensor-map-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass a kernel's TMA descriptors by value as grid constants";
  let description = [{
    Runs after the kernels became `llvm.func`s. The first `mepi.tensor_map_params` arguments of
    a kernel are 128-byte `CUtensorMap`s: they become `byval` parameters aligned to 64 bytes
    with `nvvm.grid_constant`, so that the kernel reads them in parameter space (TMA takes
    their generic address) and the runtime passes them in the launch's parameter buffer with
    no copy to device memory.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif // MEPI_CONVERSION_PASSES_TD
