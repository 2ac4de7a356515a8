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

#endif // MEPI_TARGET_PASSES_TD
