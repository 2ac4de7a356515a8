// A GELU (tanh form) epilog lowers with libdevice linked and inlined: tanh becomes ex2.approx
// arithmetic in the kernel and the PTX declares or calls no external function.
// RUN: mepi-opt %s --mepi-lower-to-ptx="ptx-file=-" -o /dev/null | FileCheck %s --implicit-check-not=.extern --implicit-check-not=__nv_ --implicit-check-not=call

// CHECK-LABEL: .visible .entry gelu_matmul_0(
// CHECK: fma.rn.f32
// CHECK: ex2.approx
// CHECK: st.global.b32
// CHECK: ret;
func.func @gelu(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%x: f32, %row: index, %col: index):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608028654 : f32
    %k1 = arith.constant 0.044715 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %inner = math.fma %k1, %x3, %x : f32
    %scaled = arith.mulf %k0, %inner : f32
    %t = math.tanh %scaled : f32
    %onep = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %x : f32
    %y = arith.mulf %hx, %onep : f32
    mepi.yield %y : f32
  }
  return
}
