// The tf32 compute opt-in round-trips on f32 operands and is refused on 16-bit ones.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @tf32
// CHECK: attributes {compute = #mepi.compute<fast_tf32>}
func.func @tf32(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%d : memref<8x8xf32>)
      attributes {compute = #mepi.compute<fast_tf32>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @tf32_on_f16(%a: memref<8x4xf16>, %b: memref<4x8xf16>, %d: memref<8x8xf16>) {
  // expected-error @below {{expected f32 operands for tf32 compute, got 'f16' x 'f16'}}
  mepi.matmul ins(%a, %b : memref<8x4xf16>, memref<4x8xf16>) outs(%d : memref<8x8xf16>)
      attributes {compute = #mepi.compute<fast_tf32>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f16
    mepi.yield %t : f16
  }
  return
}
