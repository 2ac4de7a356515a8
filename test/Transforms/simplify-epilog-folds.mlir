// Constant arithmetic inside an epilog region is folded by mepi-simplify-epilog.
// RUN: mepi-opt %s --mepi-simplify-epilog | FileCheck %s

// CHECK-LABEL: func.func @fold_addf
// CHECK: mepi.matmul
// CHECK: ^bb0(%[[ACC:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index):
// CHECK-NEXT: %[[CST:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[MUL:.*]] = arith.mulf %[[ACC]], %[[CST]] : f32
// CHECK-NEXT: mepi.yield %[[MUL]] : f32
func.func @fold_addf(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>) {
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %three = arith.addf %one, %two : f32
    %m = arith.mulf %acc, %three : f32
    mepi.yield %m : f32
  }
  return
}
