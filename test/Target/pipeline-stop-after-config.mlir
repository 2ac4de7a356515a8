// stop-after=config leaves the simplified mepi.matmul with its chosen configuration and generates
// no kernel.
// RUN: mepi-opt %s --mepi-lower-to-ptx="stop-after=config" | FileCheck %s --implicit-check-not=gpu.

// CHECK-LABEL: func.func @stage(
// CHECK-SAME: %{{[a-z0-9_]+}}: memref<64x32xf32>, %{{[a-z0-9_]+}}: memref<32x4xf32>, %{{[a-z0-9_]+}}: memref<64xf32>, %[[D:[a-z0-9_]+]]: memref<64x4xf32>)
// CHECK: mepi.matmul
// CHECK-SAME: outs(%[[D]] : memref<64x4xf32>) attributes {config = #mepi.kernel_config<simt, tile = [64, 4, 1]>} epilog {
// CHECK-NEXT: ^bb0(%[[ACC:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index):
// CHECK-NEXT: mepi.yield %[[ACC]] : f32
func.func @stage(%a: memref<64x32xf32>, %b: memref<32x4xf32>, %r: memref<64xf32>, %d: memref<64x4xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x4xf32>) inputs(%r as row : memref<64xf32>)
      outs(%d : memref<64x4xf32>) epilog {
  ^bb0(%acc: f32, %unused: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
