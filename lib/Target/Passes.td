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
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // MEPI_TARGET_PASSES_TD
