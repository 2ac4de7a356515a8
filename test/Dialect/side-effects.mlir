// mepi.matmul writes D: canonicalization and CSE must keep it even though it has no results.
// RUN: mepi-opt %s --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: mepi.matmul
func.func @kept(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %d: memref<4x4xf32>) {
  mepi.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%d : memref<4x4xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  mepi.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%d : memref<4x4xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
