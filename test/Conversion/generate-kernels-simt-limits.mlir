// The SIMT kernel's reductions count the contributing blocks in 32-bit integers: a grid of
// more blocks is refused by name rather than wrapped.
// RUN: mepi-opt %s --mepi-generate-kernels --verify-diagnostics

func.func @too_many_blocks(%a: memref<256x65536x64xf32>, %b: memref<256x64x65536xf32>,
                           %d: memref<256x65536x65536xf32>, %amax: memref<f32>) {
  // expected-error @below {{'mepi.matmul' op simt kernels with reductions take at most 2^31 - 1 blocks (32-bit counters), got 4294967296}}
  mepi.matmul ins(%a, %b : memref<256x65536x64xf32>, memref<256x64x65536xf32>)
      outs(%d : memref<256x65536x65536xf32>) reduce(%amax as scalar max : memref<f32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %abs = math.absf %acc : f32
    mepi.yield %acc, %abs : f32, f32
  }
  return
}
