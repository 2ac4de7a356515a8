// Diagnostics for epilog inputs (by broadcast kind) and aux outputs.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @scalar_memref_rank(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %s: memref<4xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog input 0 (scalar) to be a rank-0 memref or an integer, index or float value, got 'memref<4xf32>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%s as scalar : memref<4xf32>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @row_not_memref(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %s: f32, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog input 0 (row) to be a memref, got 'f32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%s as row : f32)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @col_length(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<4xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog input 0 (col) to have shape [batch..., 8], got 'memref<4xf32>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%bias as col : memref<4xf32>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @matrix_batch(%a: memref<2x4x16xf32>, %b: memref<16x8xf32>, %m: memref<3x4x8xf32>, %d: memref<2x4x8xf32>) {
  // expected-error @below {{expected batch dimension 0 of epilog input 0 (matrix) to be 1 or 2 (as in d), got 3}}
  mepi.matmul ins(%a, %b : memref<2x4x16xf32>, memref<16x8xf32>) inputs(%m as matrix : memref<3x4x8xf32>)
      outs(%d : memref<2x4x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @bad_kind(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected broadcast kind row, col, scalar or matrix, got 'column'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%bias as column : memref<8xf32>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @kind_count(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected 1 input kinds (one per epilog input), got 0}}
  "mepi.matmul"(%a, %b, %bias, %d) <{input_kinds = [], operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 1, 1, 0>}> ({
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }) : (memref<4x16xf32>, memref<16x8xf32>, memref<8xf32>, memref<4x8xf32>) -> ()
  return
}

// -----

func.func @aux_shape(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %aux: memref<4x4xi8>) {
  // expected-error @below {{expected aux 0 to have the shape of d 'memref<4x8xf32>', got 'memref<4x4xi8>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      aux(%aux : memref<4x4xi8>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %z = arith.constant 0 : i8
    mepi.yield %acc, %z : f32, i8
  }
  return
}
