// A split needs at least one k-step of 64: K = 100 has 2, so 3 splits are refused.
// RUN: mepi-opt %s --verify-diagnostics --mepi-generate-kernels

func.func @gemm(%a: memref<200x100xbf16>, %b: memref<300x100xbf16>, %d: memref<200x300xbf16>) {
  // expected-error @+1 {{expected at most 2 splits (one k-step of 64 each), got 3}}
  mepi.matmul ins(%a, %b : memref<200x100xbf16>, memref<300x100xbf16>)
      outs(%d : memref<200x300xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 3>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
