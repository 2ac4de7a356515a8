// Diagnostics for the C operand and beta.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @beta_without_c(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %beta: f32, %d: memref<4x8xf32>) {
  // expected-error @below {{expected no beta without c}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) beta(%beta) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @c_without_beta(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected beta with c}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) c(%c : memref<4x8xf32>) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @c_type(%a: memref<4x16xbf16>, %b: memref<16x8xbf16>, %c: memref<4x8xf32>, %beta: f32, %d: memref<4x8xbf16>) {
  // expected-error @below {{expected c element type to be the element type of d, got 'f32'}}
  mepi.matmul ins(%a, %b : memref<4x16xbf16>, memref<16x8xbf16>) c(%c : memref<4x8xf32>) beta(%beta)
      outs(%d : memref<4x8xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @c_shape(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<8x4xf32>, %beta: f32, %d: memref<4x8xf32>) {
  // expected-error @below {{expected c to have shape [batch..., 4, 8], got 'memref<8x4xf32>'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) c(%c : memref<8x4xf32>) beta(%beta)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @c_batch(%a: memref<2x4x16xf32>, %b: memref<16x8xf32>, %c: memref<3x4x8xf32>, %beta: f32, %d: memref<2x4x8xf32>) {
  // expected-error @below {{expected batch dimension 0 of c to be 1 or 2 (as in d), got 3}}
  mepi.matmul ins(%a, %b : memref<2x4x16xf32>, memref<16x8xf32>) c(%c : memref<3x4x8xf32>) beta(%beta)
      outs(%d : memref<2x4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @c_type_fp8_d(%a: memref<4x16xf8E4M3FN>, %b: memref<16x8xf8E4M3FN>, %c: memref<4x8xf32>, %beta: f32, %d: memref<4x8xf8E4M3FN>) {
  // expected-error @below {{expected c element type f16 or bf16 (d is fp8), got 'f32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf8E4M3FN>, memref<16x8xf8E4M3FN>) c(%c : memref<4x8xf32>) beta(%beta)
      outs(%d : memref<4x8xf8E4M3FN>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f8E4M3FN
    mepi.yield %t : f8E4M3FN
  }
  return
}
