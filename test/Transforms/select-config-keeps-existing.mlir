// A matmul that already carries a configuration keeps it, even when options force another tile.
// RUN: mepi-opt %s --mepi-select-kernel-config="tile-m=4 tile-n=64" | FileCheck %s

// CHECK-LABEL: func.func @existing
// CHECK: mepi.matmul
// CHECK-SAME: attributes {config = #mepi.kernel_config<simt, tile = [8, 32, 1]>} epilog
// CHECK-NOT: tile = [4, 64, 1]
func.func @existing(%a: memref<256x64xf32>, %b: memref<64x512xf32>, %d: memref<256x512xf32>) {
  mepi.matmul ins(%a, %b : memref<256x64xf32>, memref<64x512xf32>) outs(%d : memref<256x512xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [8, 32, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
