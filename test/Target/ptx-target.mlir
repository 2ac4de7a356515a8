// The PTX written by ptx-file=- targets sm_90a and has one .visible .entry per kernel whose
// .maxntid is the kernel's (tile_n, tile_m, 1) block.
// RUN: mepi-opt %s --mepi-lower-to-ptx="ptx-file=-" -o /dev/null | FileCheck %s

// CHECK: .version 8.0
// CHECK: .target sm_90a
// CHECK: .address_size 64
// CHECK-LABEL: .visible .entry square_matmul_0(
// CHECK: .maxntid 16, 16, 1
// CHECK-LABEL: .visible .entry wide_matmul_0(
// CHECK: .maxntid 32, 8, 1
func.func @square(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

func.func @wide(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [8, 32, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
