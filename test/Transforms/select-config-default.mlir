// Without options and for a large static shape, the SIMT heuristic picks 16x16 threads per block.
// RUN: mepi-opt %s --mepi-select-kernel-config | FileCheck %s

// CHECK-LABEL: func.func @large
// CHECK: mepi.matmul
// CHECK-SAME: attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog
func.func @large(%a: memref<256x64xf16>, %b: memref<64x512xf16>, %d: memref<256x512xf16>) {
  mepi.matmul ins(%a, %b : memref<256x64xf16>, memref<64x512xf16>) outs(%d : memref<256x512xf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f16
    mepi.yield %t : f16
  }
  return
}
