// A user PTX object links beside the generated kernels (the cubin grows by its function).
// RUN: mepi-opt %s --mepi-lower-to-ptx --mepi-link-cubin="arch=sm_90a output=%t.plain.cubin" -o /dev/null
// RUN: mepi-opt %s --mepi-lower-to-ptx --mepi-link-cubin="arch=sm_90a output=%t.user.cubin objects=%S/Inputs/user-scale.ptx" -o /dev/null
// RUN: od -An -c -N4 %t.user.cubin | FileCheck %s
// RUN: test $(stat -c %%s %t.user.cubin) -gt $(stat -c %%s %t.plain.cubin)
// CHECK: 177   E   L   F

func.func @plain(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
