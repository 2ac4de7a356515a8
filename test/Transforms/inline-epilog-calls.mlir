// A user epilog written as a func.func is inlined into the epilog (nested calls too), and the
// private callees left unused are erased; a public one stays.
// RUN: mepi-opt %s --mepi-inline-epilog-calls | FileCheck %s

// CHECK-NOT: func.func private @silu
// CHECK-NOT: func.func private @sigmoid
// CHECK: func.func @public_helper
func.func private @sigmoid(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %neg = arith.negf %x : f32
  %e = math.exp %neg : f32
  %den = arith.addf %one, %e : f32
  %s = arith.divf %one, %den : f32
  return %s : f32
}
func.func private @silu(%acc: f32, %row: index, %col: index) -> bf16 {
  %s = func.call @sigmoid(%acc) : (f32) -> f32
  %y = arith.mulf %acc, %s : f32
  %t = arith.truncf %y : f32 to bf16
  return %t : bf16
}
func.func @public_helper(%x: f32) -> f32 {
  return %x : f32
}

// CHECK-LABEL: func.func @silu_matmul
// CHECK: mepi.matmul
// CHECK: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index):
// CHECK-NOT: func.call
// CHECK: %[[NEG:.*]] = arith.negf %[[ACC]] : f32
// CHECK: math.exp %[[NEG]]
// CHECK: %[[Y:.*]] = arith.mulf %[[ACC]], %{{.*}} : f32
// CHECK: %[[T:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK: mepi.yield %[[T]] : bf16
func.func @silu_matmul(%a: memref<8x16xbf16>, %b: memref<16x8xbf16>, %d: memref<8x8xbf16>) {
  mepi.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x8xbf16>) outs(%d : memref<8x8xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = func.call @silu(%acc, %row, %col) : (f32, index, index) -> bf16
    mepi.yield %r : bf16
  }
  return
}
