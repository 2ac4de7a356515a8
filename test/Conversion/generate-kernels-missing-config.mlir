// Kernel generation needs the configuration chosen by mepi-select-kernel-config.
// RUN: mepi-opt %s --mepi-generate-kernels --verify-diagnostics

func.func @unplanned(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %d: memref<32x16xf32>) {
  // expected-error @below {{'mepi.matmul' op expected a kernel configuration (run mepi-select-kernel-config first)}}
  mepi.matmul ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%d : memref<32x16xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
