// Element type diagnostics of mepi.matmul (cuBLASLt's combinations).
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @mixed(%a: memref<4x16xbf16>, %b: memref<16x8xf16>, %d: memref<4x8xf32>) {
  // expected-error @below {{unsupported operand element types 'bf16' x 'f16'; expected f16 x f16, bf16 x bf16, f32 x f32 or an fp8 pair (f8E4M3FN x f8E4M3FN, f8E4M3FN x f8E5M2, f8E5M2 x f8E4M3FN)}}
  mepi.matmul ins(%a, %b : memref<4x16xbf16>, memref<16x8xf16>) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @e5m2_pair(%a: memref<4x16xf8E5M2>, %b: memref<16x8xf8E5M2>, %d: memref<4x8xf32>) {
  // expected-error @below {{unsupported operand element types 'f8E5M2' x 'f8E5M2'; expected f16 x f16, bf16 x bf16, f32 x f32 or an fp8 pair (f8E4M3FN x f8E4M3FN, f8E4M3FN x f8E5M2, f8E5M2 x f8E4M3FN)}}
  mepi.matmul ins(%a, %b : memref<4x16xf8E5M2>, memref<16x8xf8E5M2>) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @integer_d(%a: memref<4x16xbf16>, %b: memref<16x8xbf16>, %d: memref<4x8xi32>) {
  // expected-error @below {{unsupported d element type 'i32' for 'bf16' operands; expected f16, bf16 or f32}}
  mepi.matmul ins(%a, %b : memref<4x16xbf16>, memref<16x8xbf16>) outs(%d : memref<4x8xi32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %i = arith.fptosi %acc : f32 to i32
    mepi.yield %i : i32
  }
  return
}

// -----

func.func @fp8_d_from_f16(%a: memref<4x16xf16>, %b: memref<16x8xf16>, %d: memref<4x8xf8E4M3FN>) {
  // expected-error @below {{unsupported d element type 'f8E4M3FN' for 'f16' operands; expected f16, bf16 or f32}}
  mepi.matmul ins(%a, %b : memref<4x16xf16>, memref<16x8xf16>) outs(%d : memref<4x8xf8E4M3FN>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f8E4M3FN
    mepi.yield %t : f8E4M3FN
  }
  return
}

// -----

func.func @fast_accumulation_bf16(%a: memref<4x16xbf16>, %b: memref<16x8xbf16>, %d: memref<4x8xbf16>) {
  // expected-error @below {{expected fp8 operands for fast_accumulation, got 'bf16' x 'bf16'}}
  mepi.matmul ins(%a, %b : memref<4x16xbf16>, memref<16x8xbf16>) outs(%d : memref<4x8xbf16>) attributes {fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
