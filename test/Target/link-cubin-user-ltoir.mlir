// A user LTO-IR object (nvcc -dlto -ltoir) links with the generated PTX: -lto is passed and
// libNVVM is found.
// REQUIRES: nvcc
// RUN: %nvcc -arch=lto_90a -dlto -ltoir -rdc=true %S/Inputs/user-scale.cu -o %t.ltoir
// RUN: mepi-opt %s --mepi-lower-to-ptx --mepi-link-cubin="arch=sm_90a output=%t.cubin objects=%t.ltoir" -o /dev/null
// RUN: od -An -c -N4 %t.cubin | FileCheck %s
// CHECK: 177   E   L   F

func.func @plain(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
