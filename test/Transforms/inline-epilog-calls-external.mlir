// A call to a declaration (external device code, linked by nvJitLink) stays a call.
// RUN: mepi-opt %s --mepi-inline-epilog-calls | FileCheck %s

// CHECK: func.func private @user_gelu(f32) -> f32
func.func private @user_gelu(f32) -> f32

// CHECK-LABEL: func.func @external
// CHECK: %[[G:.*]] = func.call @user_gelu(%{{.*}}) : (f32) -> f32
// CHECK: mepi.yield %[[G]] : f32
func.func @external(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x16xf32>, memref<16x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = func.call @user_gelu(%acc) : (f32) -> f32
    mepi.yield %r : f32
  }
  return
}
