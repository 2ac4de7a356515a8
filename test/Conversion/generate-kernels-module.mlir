// The module becomes a GPU container holding @mepi_kernels with one kernel per matmul, named after
// the function, whose known block size is (tile_n, tile_m, 1).
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @lin(
// CHECK: gpu.launch_func @mepi_kernels::@lin_matmul_0
// CHECK: gpu.module @mepi_kernels {
// CHECK-NEXT: gpu.func @lin_matmul_0(%{{[a-z0-9_]+}}: memref<100x64xbf16>, %{{[a-z0-9_]+}}: memref<64x300xbf16>, %{{[a-z0-9_]+}}: memref<100x300xbf16>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 32, 8, 1>}
func.func @lin(%a: memref<100x64xbf16>, %b: memref<64x300xbf16>, %d: memref<100x300xbf16>) {
  mepi.matmul ins(%a, %b : memref<100x64xbf16>, memref<64x300xbf16>) outs(%d : memref<100x300xbf16>)
      attributes {config = #mepi.kernel_config<simt, tile = [8, 32, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
