// Passes over the mepi dialect (before kernel generation).
#ifndef MEPI_TRANSFORMS_PASSES_TD
#define MEPI_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MepiSimplifyEpilog : Pass<"mepi-simplify-epilog"> {
  let summary = "Canonicalize epilog regions and drop epilog inputs they never read";
  let description = [{
    Runs the canonicalization patterns of the loaded dialects over the ops of each `mepi.matmul`
    epilog, then removes every epilog input whose block argument has no use (with its broadcast
    kind), so that the kernel neither takes nor loads it.
  }];
  let dependentDialects = ["::mlir::mepi::MepiDialect", "::mlir::arith::ArithDialect"];
}

def MepiInlineEpilogCalls : Pass<"mepi-inline-epilog-calls", "::mlir::ModuleOp"> {
  let summary = "Inline the functions that epilog regions call (user epilogs given as MLIR)";
  let description = [{
    Replaces every `func.call` inside a `mepi.matmul` epilog by the body of its callee, a
    single-block `func.func` of the module (calls inside callees are inlined too), so that the
    kernel holds the user's epilog as straight-line code: no call survives to PTX or SASS.
    Calls to declarations (external device functions, given to nvJitLink as PTX or LTO-IR)
    stay calls. Callees left without uses are erased when private.
  }];
  let dependentDialects = ["::mlir::mepi::MepiDialect", "::mlir::func::FuncDialect"];
}

def MepiSelectKernelConfig : Pass<"mepi-select-kernel-config"> {
  let summary = "Choose a kernel configuration for each mepi.matmul";
  let description = [{
    Attaches `config = #mepi.kernel_config<...>` to every `mepi.matmul` that has none, by a
    heuristic over the problem's static shape. The options force a tile instead.

    On an sm_90a `chip`, a matmul of 16-bit A and B with contiguous rows (K-major: A M x K, B
    N x K with `transpose_b`; or MN-major: A K x M with `transpose_a`, B K x N), static and
    rank 2, gets the `wgmma` family; everything else gets `simt`. The wgmma kernel loads with TMA when both row pitches are multiples of 16
    bytes and the function argument attribute `mepi.alignment` >= 16 is on both (the runtime
    sets it from the actual addresses); otherwise with `tma = false` (ordinary loads).
  }];
  let dependentDialects = ["::mlir::mepi::MepiDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target GPU (e.g. sm_90a); tensor-core families need their chip">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"\"",
           "Force a kernel family: simt or wgmma (empty: heuristic)">,
    Option<"tileM", "tile-m", "int64_t", /*default=*/"0",
           "Rows of D per thread block (0: heuristic)">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"0",
           "Columns of D per thread block (0: heuristic)">,
    Option<"multiprocessors", "multiprocessors", "int64_t", /*default=*/"0",
           "Multiprocessors of the target GPU (0: the chip's reference part, TargetInfo)">,
  ];
}

#endif // MEPI_TRANSFORMS_PASSES_TD
