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
  // expected-error @below {{expected broadcast kind row, col, scalar, matrix, bitmask or cyclic_row, got 'column'}}
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
  "mepi.matmul"(%a, %b, %bias, %d) <{input_kinds = [], aux_kinds = [], reduction_kinds = [], reduction_combiners = [], operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> ({
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }) : (memref<4x16xf32>, memref<16x8xf32>, memref<8xf32>, memref<4x8xf32>) -> ()
  return
}

// -----

func.func @aux_shape(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %aux: memref<4x4xi8>) {
  // expected-error @below {{expected aux 0 (matrix) to have shape [batch..., >= 4, 8], got 'memref<4x4xi8>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      aux(%aux as matrix : memref<4x4xi8>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %z = arith.constant 0 : i8
    mepi.yield %acc, %z : f32, i8
  }
  return
}

// -----

func.func @aux_padded_rows_ok(%a: memref<100x16xf32>, %b: memref<16x8xf32>, %d: memref<100x8xf32>, %aux: memref<104x8xf32, strided<[1, 104]>>, %mask: memref<16x8xi8, strided<[1, 16]>>) {
  mepi.matmul ins(%a, %b : memref<100x16xf32>, memref<16x8xf32>) outs(%d : memref<100x8xf32>)
      aux(%aux as matrix : memref<104x8xf32, strided<[1, 104]>>, %mask as bitmask : memref<16x8xi8, strided<[1, 16]>>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.constant true
    mepi.yield %acc, %acc, %t : f32, f32, i1
  }
  return
}

// -----

func.func @bitmask_rows(%a: memref<100x16xf32>, %b: memref<16x8xf32>, %d: memref<100x8xf32>, %mask: memref<12x8xi8>) {
  // expected-error @below {{expected aux 0 (bitmask) to have shape [batch..., >= 13, 8], got 'memref<12x8xi8>'}}
  mepi.matmul ins(%a, %b : memref<100x16xf32>, memref<16x8xf32>) outs(%d : memref<100x8xf32>)
      aux(%mask as bitmask : memref<12x8xi8>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.constant true
    mepi.yield %acc, %t : f32, i1
  }
  return
}

// -----

func.func @bitmask_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %mask: memref<1x8xi32>) {
  // expected-error @below {{expected aux 0 (bitmask) to have i8 elements, got 'i32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      aux(%mask as bitmask : memref<1x8xi32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.constant true
    mepi.yield %acc, %t : f32, i1
  }
  return
}

// -----

func.func @bitmask_input_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %mask: memref<1x8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog input 0 (bitmask) to have i8 elements, got 'f32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%mask as bitmask : memref<1x8xf32>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %m: i1, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @aux_kind(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %aux: memref<4xf32>) {
  // expected-error @below {{expected aux 0 (row) to be matrix or bitmask}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      aux(%aux as row : memref<4xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

func.func @aux_batch(%a: memref<2x4x16xf32>, %b: memref<16x8xf32>, %d: memref<2x4x8xf32>, %aux: memref<4x8xf32>) {
  // expected-error @below {{expected aux 0 (matrix) to have the batch dimensions of d [2], got []}}
  mepi.matmul ins(%a, %b : memref<2x4x16xf32>, memref<16x8xf32>) outs(%d : memref<2x4x8xf32>)
      aux(%aux as matrix : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

func.func @reduction_kind(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %r: memref<4x8xf32>) {
  // expected-error @below {{expected reduction 0 (matrix) to be row, col or scalar}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      reduce(%r as matrix add : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

func.func @reduction_shape(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %r: memref<8xf32>) {
  // expected-error @below {{expected reduction 0 (row) to have shape [batch..., 4], got 'memref<8xf32>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      reduce(%r as row add : memref<8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

func.func @reduction_scalar(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %r: memref<1xf32>) {
  // expected-error @below {{expected reduction 0 (scalar) to be a rank-0 memref, got 'memref<1xf32>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      reduce(%r as scalar max : memref<1xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

func.func @reduction_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %r: memref<4xi32>) {
  // expected-error @below {{expected reduction 0 (row) to have f16, bf16 or f32 elements, got 'i32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      reduce(%r as row add : memref<4xi32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

func.func @bad_combiner(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %r: memref<4xf32>) {
  // expected-error @+2 {{expected combiner add or max, got 'min'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      reduce(%r as row min : memref<4xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

// A cyclic row input repeats every P rows: P must divide D's rows.
func.func @cyclic_row_period(%a: memref<12x16xf32>, %b: memref<16x8xf32>, %r: memref<5xf32>, %d: memref<12x8xf32>) {
  // expected-error @below {{expected epilog input 0 (cyclic_row) to have shape [P] with P dividing 12 (the rows of d), got 'memref<5xf32>'}}
  mepi.matmul ins(%a, %b : memref<12x16xf32>, memref<16x8xf32>) inputs(%r as cyclic_row : memref<5xf32>)
      outs(%d : memref<12x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    %s = arith.addf %acc, %x : f32
    mepi.yield %s : f32
  }
  return
}

// -----

// One vector for every element: no batch dimensions.
func.func @cyclic_row_batch(%a: memref<2x12x16xf32>, %b: memref<16x8xf32>, %r: memref<2x4xf32>, %d: memref<2x12x8xf32>) {
  // expected-error @below {{expected epilog input 0 (cyclic_row) to have shape [P] with P dividing 12 (the rows of d), got 'memref<2x4xf32>'}}
  mepi.matmul ins(%a, %b : memref<2x12x16xf32>, memref<16x8xf32>) inputs(%r as cyclic_row : memref<2x4xf32>)
      outs(%d : memref<2x12x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    %s = arith.addf %acc, %x : f32
    mepi.yield %s : f32
  }
  return
}

// -----

func.func @cyclic_row_dynamic(%a: memref<?x16xf32>, %b: memref<16x8xf32>, %r: memref<4xf32>, %d: memref<?x8xf32>) {
  // expected-error @below {{expected epilog input 0 (cyclic_row) to have shape [P] with P dividing ? (the rows of d), got 'memref<4xf32>'}}
  mepi.matmul ins(%a, %b : memref<?x16xf32>, memref<16x8xf32>) inputs(%r as cyclic_row : memref<4xf32>)
      outs(%d : memref<?x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    %s = arith.addf %acc, %x : f32
    mepi.yield %s : f32
  }
  return
}

// -----

// Outputs are written per element: an aux output is never cyclic.
func.func @cyclic_row_aux(%a: memref<12x16xf32>, %b: memref<16x8xf32>, %d: memref<12x8xf32>, %aux: memref<4xf32>) {
  // expected-error @below {{expected aux 0 (cyclic_row) to be matrix or bitmask}}
  mepi.matmul ins(%a, %b : memref<12x16xf32>, memref<16x8xf32>) outs(%d : memref<12x8xf32>)
      aux(%aux as cyclic_row : memref<4xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}
