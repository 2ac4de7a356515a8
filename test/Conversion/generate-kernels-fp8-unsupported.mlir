// The SIMT kernel loads only f16, bf16 and f32 matrices; fp8 operands are rejected.
// RUN: mepi-opt %s --mepi-generate-kernels --verify-diagnostics

func.func @fp8(%a: memref<32x64xf8E4M3FN>, %b: memref<64x16xf8E4M3FN>, %d: memref<32x16xf32>) {
  // expected-error @below {{'mepi.matmul' op kernel generation supports f16, bf16 and f32 element types, got 'f8E4M3FN'}}
  mepi.matmul ins(%a, %b : memref<32x64xf8E4M3FN>, memref<64x16xf8E4M3FN>) outs(%d : memref<32x16xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
