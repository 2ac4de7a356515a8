// Shape diagnostics of mepi.matmul: ranks, M/N/K agreement and numpy batch broadcasting.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @rank(%a: memref<16xf32>, %b: memref<16x8xf32>, %d: memref<1x8xf32>) {
  // expected-error @below {{expected a to have rank >= 2, got 1}}
  mepi.matmul ins(%a, %b : memref<16xf32>, memref<16x8xf32>) outs(%d : memref<1x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @k_mismatch(%a: memref<4x16xf32>, %b: memref<8x8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected op(a) and op(b) to agree on K, got 16 and 8}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<8x8xf32>) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @k_mismatch_transposed(%a: memref<16x4xf32>, %b: memref<16x8xf32>, %d: memref<16x8xf32>) {
  // expected-error @below {{expected d to have M = 4 rows (from op(a)), got 16}}
  mepi.matmul ins(%a, %b : memref<16x4xf32>, memref<16x8xf32>) outs(%d : memref<16x8xf32>)
      attributes {transpose_a} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @m_mismatch(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<5x8xf32>) {
  // expected-error @below {{expected d to have M = 4 rows (from op(a)), got 5}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<5x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @n_mismatch(%a: memref<4x16xf32>, %b: memref<8x16xf32>, %d: memref<4x16xf32>) {
  // expected-error @below {{expected d to have N = 8 columns (from op(b)), got 16}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<8x16xf32>) outs(%d : memref<4x16xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @batch_not_broadcastable(%a: memref<3x4x16xf32>, %b: memref<16x8xf32>, %d: memref<2x4x8xf32>) {
  // expected-error @below {{expected batch dimension 0 of a to be 1 or 2 (as in d), got 3}}
  mepi.matmul ins(%a, %b : memref<3x4x16xf32>, memref<16x8xf32>) outs(%d : memref<2x4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @batch_rank(%a: memref<4x16xf32>, %b: memref<2x2x16x8xf32>, %d: memref<2x4x8xf32>) {
  // expected-error @below {{expected b to have at most 1 batch dimensions (as d), got 2}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<2x2x16x8xf32>) outs(%d : memref<2x4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @batch_from_nowhere(%a: memref<1x4x16xf32>, %b: memref<16x8xf32>, %d: memref<5x4x8xf32>) {
  // expected-error @below {{expected batch dimension 0 of d to be 1 (a and b both broadcast it), got 5}}
  mepi.matmul ins(%a, %b : memref<1x4x16xf32>, memref<16x8xf32>) outs(%d : memref<5x4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
