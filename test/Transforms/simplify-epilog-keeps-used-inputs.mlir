// Every epilog input that the region reads stays, in its order and with its broadcast kind.
// RUN: mepi-opt %s --mepi-simplify-epilog | FileCheck %s

// CHECK-LABEL: func.func @keep_used
// CHECK-SAME: (%{{[a-z0-9_]+}}: memref<4x16xf32>, %{{[a-z0-9_]+}}: memref<16x8xf32>, %[[R:[a-z0-9_]+]]: memref<4xf32>, %[[C:[a-z0-9_]+]]: memref<8xf32>, %[[S:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: memref<4x8xf32>,
// CHECK: mepi.matmul
// CHECK-SAME: inputs(%[[R]] as row : memref<4xf32>, %[[C]] as col : memref<8xf32>, %[[S]] as scalar : f32, %[[M]] as matrix : memref<4x8xf32>)
// CHECK: ^bb0(%[[ACC:[a-z0-9_]+]]: f32, %[[RI:[a-z0-9_]+]]: f32, %[[CI:[a-z0-9_]+]]: f32, %[[SI:[a-z0-9_]+]]: f32, %[[MI:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index):
// CHECK-NEXT: %[[X0:.*]] = arith.addf %[[ACC]], %[[RI]] : f32
// CHECK-NEXT: %[[X1:.*]] = arith.addf %[[X0]], %[[CI]] : f32
// CHECK-NEXT: %[[X2:.*]] = arith.mulf %[[X1]], %[[SI]] : f32
// CHECK-NEXT: %[[X3:.*]] = arith.subf %[[X2]], %[[MI]] : f32
// CHECK-NEXT: mepi.yield %[[X3]] : f32
func.func @keep_used(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %r: memref<4xf32>,
                     %c: memref<8xf32>, %s: f32, %m: memref<4x8xf32>, %d: memref<4x8xf32>) {
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>)
      inputs(%r as row : memref<4xf32>, %c as col : memref<8xf32>, %s as scalar : f32,
             %m as matrix : memref<4x8xf32>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %ri: f32, %ci: f32, %si: f32, %mi: f32, %row: index, %col: index):
    %x0 = arith.addf %acc, %ri : f32
    %x1 = arith.addf %x0, %ci : f32
    %x2 = arith.mulf %x1, %si : f32
    %x3 = arith.subf %x2, %mi : f32
    mepi.yield %x3 : f32
  }
  return
}
