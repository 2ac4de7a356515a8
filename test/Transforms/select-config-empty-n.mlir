// A static N of 0 (an empty output) still gets a valid one-column tile instead of dividing by 0.
// RUN: mepi-opt %s --mepi-select-kernel-config | FileCheck %s

// CHECK-LABEL: func.func @empty
// CHECK: config = #mepi.kernel_config<simt, tile = [256, 1, 1]>
func.func @empty(%a: memref<8x4xf32>, %b: memref<4x0xf32>, %d: memref<8x0xf32>) {
  mepi.matmul ins(%a, %b : memref<8x4xf32>, memref<4x0xf32>) outs(%d : memref<8x0xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
