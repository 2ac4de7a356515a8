// A dynamic N gives no hint: the default 16x16 tile is chosen.
// RUN: mepi-opt %s --mepi-select-kernel-config | FileCheck %s

// CHECK-LABEL: func.func @dynamic_n
// CHECK: mepi.matmul
// CHECK-SAME: attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog
func.func @dynamic_n(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %d: memref<?x?xf32>) {
  mepi.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%d : memref<?x?xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
