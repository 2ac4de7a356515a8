// A symbol named like the kernel container that is not a gpu.module is a clear error.
// RUN: mepi-opt %s --mepi-generate-kernels --verify-diagnostics

// expected-error @below {{expected symbol 'mepi_kernels' to be the gpu.module of generated kernels, got func.func}}
func.func @mepi_kernels(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
