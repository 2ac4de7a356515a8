// Approximation is the epilog's choice: math.tanh with fastmath<afn> becomes one
// tanh.approx.f32, math.exp with afn ex2.approx without libdevice's range reduction, math.exp2
// with afn one ex2.approx.ftz.f32, and arith.divf with afn div.approx.ftz.f32. The same ops
// without the flag keep libdevice's accurate tanhf and exp2f and the IEEE division.
// RUN: mepi-opt %s --mepi-lower-to-ptx="ptx-file=-" -o /dev/null | FileCheck %s --implicit-check-not=.extern --implicit-check-not=__nv_

// CHECK-LABEL: .visible .entry fast_matmul_0(
// CHECK: tanh.approx.f32
// CHECK: ex2.approx
// CHECK: ex2.approx.ftz.f32
// CHECK: div.approx.ftz.f32
// CHECK: ret;
func.func @fast(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%x: f32, %row: index, %col: index):
    %t = math.tanh %x fastmath<afn> : f32
    %e = math.exp %t fastmath<afn> : f32
    %e2 = math.exp2 %e fastmath<afn> : f32
    %y = arith.divf %t, %e2 fastmath<afn> : f32
    mepi.yield %y : f32
  }
  return
}

// CHECK-LABEL: .visible .entry accurate_matmul_0(
// CHECK-NOT: tanh.approx
// CHECK-NOT: div.approx
// CHECK: div.rn.f32
// CHECK: ret;
func.func @accurate(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%x: f32, %row: index, %col: index):
    %t = math.tanh %x : f32
    %e = math.exp %t : f32
    %e2 = math.exp2 %e : f32
    %y = arith.divf %t, %e2 : f32
    mepi.yield %y : f32
  }
  return
}
