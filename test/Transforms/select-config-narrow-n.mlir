// A static N below 16 rounds tile_n up to a power of two (5 -> 8) and gives the spare threads to
// rows (256 / 8 = 32).
// RUN: mepi-opt %s --mepi-select-kernel-config | FileCheck %s

// CHECK-LABEL: func.func @narrow
// CHECK: mepi.matmul
// CHECK-SAME: attributes {config = #mepi.kernel_config<simt, tile = [32, 8, 1]>} epilog
func.func @narrow(%a: memref<100x64xf32>, %b: memref<64x5xf32>, %d: memref<100x5xf32>) {
  mepi.matmul ins(%a, %b : memref<100x64xf32>, memref<64x5xf32>) outs(%d : memref<100x5xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
