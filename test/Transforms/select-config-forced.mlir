// The tile-m and tile-n options override the heuristic.
// RUN: mepi-opt %s --mepi-select-kernel-config="tile-m=4 tile-n=64" | FileCheck %s

// CHECK-LABEL: func.func @forced
// CHECK: mepi.matmul
// CHECK-SAME: attributes {config = #mepi.kernel_config<simt, tile = [4, 64, 1]>} epilog
func.func @forced(%a: memref<256x64xf32>, %b: memref<64x512xf32>, %d: memref<256x512xf32>) {
  mepi.matmul ins(%a, %b : memref<256x64xf32>, memref<64x512xf32>) outs(%d : memref<256x512xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
