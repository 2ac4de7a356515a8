// An epilog input whose block argument is unused is dropped (operand, kind, block argument);
// a used one is kept.
// RUN: mepi-opt %s --mepi-simplify-epilog | FileCheck %s

// CHECK-LABEL: func.func @drop_unused
// CHECK-SAME: (%{{[a-z0-9_]+}}: memref<4x16xf32>, %{{[a-z0-9_]+}}: memref<16x8xf32>, %[[ROWV:[a-z0-9_]+]]: memref<4xf32>, %[[COLV:[a-z0-9_]+]]: memref<8xf32>,
// CHECK: mepi.matmul
// CHECK-SAME: inputs(%[[COLV]] as col : memref<8xf32>) outs(
// CHECK: ^bb0(%[[ACC:[a-z0-9_]+]]: f32, %[[BIAS:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[BIAS]] : f32
// CHECK-NEXT: mepi.yield %[[SUM]] : f32
func.func @drop_unused(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %r: memref<4xf32>,
                       %c: memref<8xf32>, %d: memref<4x8xf32>) {
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>)
      inputs(%r as row : memref<4xf32>, %c as col : memref<8xf32>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %unused: f32, %bias: f32, %row: index, %col: index):
    %s = arith.addf %acc, %bias : f32
    mepi.yield %s : f32
  }
  return
}
