// mepi-link-cubin links the generated PTX into an sm_90a cubin (an ELF image) without a GPU.
// RUN: mepi-opt %s --mepi-lower-to-ptx --mepi-link-cubin="arch=sm_90a output=%t.cubin" -o /dev/null
// RUN: od -An -c -N4 %t.cubin | FileCheck %s
// CHECK: 177   E   L   F

func.func @plain(%a: memref<17x65xf16>, %b: memref<65x33xf16>, %d: memref<17x33xf16>) {
  mepi.matmul ins(%a, %b : memref<17x65xf16>, memref<65x33xf16>) outs(%d : memref<17x33xf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f16
    mepi.yield %t : f16
  }
  return
}
