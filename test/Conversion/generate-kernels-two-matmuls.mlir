// Two matmuls in one function get two kernels, numbered by their position in the function, each
// launched in place of its op.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: func.func @two(
// CHECK-SAME: %{{[a-z0-9_]+}}: memref<8x32xf32>, %{{[a-z0-9_]+}}: memref<32x16xf32>, %[[D:[a-z0-9_]+]]: memref<8x16xf32>, %[[E:[a-z0-9_]+]]: memref<8x16xf32>)
// CHECK: gpu.launch_func @mepi_kernels::@two_matmul_0
// CHECK-SAME: %[[D]] : memref<8x16xf32>)
// CHECK: gpu.launch_func @mepi_kernels::@two_matmul_1
// CHECK-SAME: %[[E]] : memref<8x16xf32>)
// CHECK: gpu.module @mepi_kernels {
// CHECK: gpu.func @two_matmul_0(
// CHECK: arith.addf
// CHECK: gpu.func @two_matmul_1(
// CHECK: arith.mulf
func.func @two(%a: memref<8x32xf32>, %b: memref<32x16xf32>, %d: memref<8x16xf32>, %e: memref<8x16xf32>) {
  mepi.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%d : memref<8x16xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %x = arith.addf %acc, %acc : f32
    mepi.yield %x : f32
  }
  mepi.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%e : memref<8x16xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %x = arith.mulf %acc, %acc : f32
    mepi.yield %x : f32
  }
  return
}
