// Attributes of the mepi dialect: broadcast kinds of epilog inputs and kernel configurations.
#ifndef MEPI_ATTRS_TD
#define MEPI_ATTRS_TD

include "mepi/IR/MepiDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Mepi_BroadcastKind : I32EnumAttr<"BroadcastKind",
    "how an epilog input is indexed by the output element (row, col)", [
      I32EnumAttrCase<"Row", 0, "row">,        // one value per output row: [batch..., M]
      I32EnumAttrCase<"Col", 1, "col">,        // one value per output column: [batch..., N]
      I32EnumAttrCase<"Scalar", 2, "scalar">,  // one value for the whole output
      I32EnumAttrCase<"Matrix", 3, "matrix">   // one value per element: [batch..., M, N]
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}

def Mepi_BroadcastKindAttr : EnumAttr<Mepi_Dialect, Mepi_BroadcastKind, "broadcast"> {
  let assemblyFormat = "`<` $value `>`";
}
def Mepi_BroadcastKindArrayAttr : TypedArrayAttrBase<Mepi_BroadcastKindAttr,
    "array of epilog input broadcast kinds">;

def Mepi_ComputeType : I32EnumAttr<"ComputeType", "precision of the products of A and B", [
      I32EnumAttrCase<"F32", 0, "float32">,    // full f32 products and f32 accumulation
      I32EnumAttrCase<"TF32", 1, "fast_tf32"> // f32 operands rounded to tf32 (10-bit mantissa), f32 sums
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}
def Mepi_ComputeTypeAttr : EnumAttr<Mepi_Dialect, Mepi_ComputeType, "compute"> {
  let assemblyFormat = "`<` $value `>`";
}

def Mepi_KernelStrategy : I32EnumAttr<"KernelStrategy", "kernel family used for a matmul", [
      I32EnumAttrCase<"Simt", 0, "simt">  // one thread per output element, CUDA cores
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}
def Mepi_KernelStrategyAttr : EnumAttr<Mepi_Dialect, Mepi_KernelStrategy, "strategy">;

def Mepi_KernelConfigAttr : AttrDef<Mepi_Dialect, "KernelConfig"> {
  let mnemonic = "kernel_config";
  let summary = "kernel configuration chosen for one matmul";
  let description = [{
    The kernel family and its tile: `tile_m` x `tile_n` output elements per thread block and
    `tile_k` reduction elements per main-loop step. For `simt`, a block has tile_m * tile_n threads.

    Example: `#mepi.kernel_config<simt, tile = [16, 16, 1]>`
  }];
  let parameters = (ins EnumParameter<Mepi_KernelStrategy>:$strategy, "int64_t":$tileM, "int64_t":$tileN,
                        "int64_t":$tileK);
  let assemblyFormat = "`<` $strategy `,` `tile` `=` `[` $tileM `,` $tileN `,` $tileK `]` `>`";
  let genVerifyDecl = 1;
}

#endif // MEPI_ATTRS_TD
