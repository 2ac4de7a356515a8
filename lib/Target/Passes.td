// Target passes: getting PTX out of lowered modules.
#ifndef MEPI_TARGET_PASSES_TD
#define MEPI_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

def MepiWritePTX : Pass<"mepi-write-ptx", "::mlir::ModuleOp"> {
  let summary = "Write the PTX of the module's gpu.binary objects to a file";
  let description = [{
    Concatenates the PTX text of every `#gpu.object` of the module's `gpu.binary` ops (as made by
    `gpu-module-to-binary{format=isa}` for an NVVM target) and writes it to `output` ("-" for
    stdout). Fails when the module holds no PTX.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"", "Output file ('-': stdout)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MepiLinkCubin : Pass<"mepi-link-cubin", "::mlir::ModuleOp"> {
  let summary = "Link the module's PTX with user device objects into a cubin (nvJitLink)";
  let description = [{
    Takes the PTX of the module's `gpu.binary` objects (see `mepi-write-ptx`), links it with the
    given user device objects through nvJitLink for `arch`, and writes the cubin to `output`.
    Objects are recognised by extension: .ptx, .ltoir, .cubin, .fatbin. No GPU is needed.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"", "Target architecture">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"", "Cubin file ('-': stdout)">,
    ListOption<"objects", "objects", "std::string", "User device objects to link">,
    Option<"verbose", "verbose", "bool", /*default=*/"false",
           "Print nvJitLink's compiler report (registers, spills, performance notes) to stderr">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MepiApproximateMath : Pass<"mepi-approximate-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower math ops that allow approximation (fastmath<afn>) to Hopper's instructions";
  let description = [{
    f32 ops with the `afn` fast-math flag become one instruction each: `math.tanh` becomes
    `tanh.approx.f32` (one MUFU.TANH, relative error about 2^-11) instead of libdevice's `tanhf`
    (a dozen instructions and a branch); `math.exp2` becomes `ex2.approx.ftz.f32` (one MUFU.EX2;
    libdevice's `exp2f` adds the scaling that keeps subnormal results); `arith.divf` becomes
    `div.approx.ftz.f32` (MUFU.RCP and a multiply, 2 ulp; the form without ftz adds a test and
    two scalings for subnormal operands). Subnormal inputs and results flush to zero (an absolute
    error under 2^-126). Without the flag nothing
    changes: approximation is the epilog's choice. `math.exp` with `afn` needs no pass: it
    already lowers to `__nv_fast_expf` (`ex2.approx`).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MepiFp8Conversions : Pass<"mepi-fp8-conversions", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower conversions to and from 8-bit floats to Hopper's cvt instructions";
  let description = [{
    LLVM has no 8-bit float types, so `arith.truncf` to `f8E4M3FN` / `f8E5M2` and `arith.extf`
    from them have no upstream lowering. A truncation becomes
    `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` (round to nearest, saturate to the largest finite
    value, NaN kept: cuBLASLt's FP8 results), from f32 (a narrower source is first extended,
    exactly); an extension becomes `cvt.rn.f16x2.{e4m3,e5m2}x2` (exact) and, for a wider
    result, an `arith.extf` from f16. Run before `arith` is lowered to LLVM.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif // MEPI_TARGET_PASSES_TD
