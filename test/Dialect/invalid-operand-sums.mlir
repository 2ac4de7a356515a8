// Operand sums (a_sums: one per row of op(A), b_sums: one per column of op(B)) are checked
// for their length and element type.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @a_sums_length(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %s: memref<8xf32>) {
  // expected-error @below {{expected a_sums to have shape [batch..., 4], got 'memref<8xf32>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      a_sums(%s : memref<8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @b_sums_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %s: memref<8xi32>) {
  // expected-error @below {{expected b_sums to have f16, bf16 or f32 elements, got 'i32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      b_sums(%s : memref<8xi32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
