// An epilog may only call functions whose single-block body is in the module.
// RUN: mepi-opt %s --split-input-file --mepi-inline-epilog-calls --verify-diagnostics

func.func private @branchy(%x: f32) -> f32 {
  cf.br ^next(%x : f32)
^next(%y: f32):
  return %y : f32
}

func.func @multi_block(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x16xf32>, memref<16x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    // expected-error @below {{expected the epilog's callee @branchy to have a single block (use scf for control flow), got 2 blocks}}
    %r = func.call @branchy(%acc) : (f32) -> f32
    mepi.yield %r : f32
  }
  return
}

// -----

func.func private @forever(%x: f32) -> f32 {
  // The call inlined over and over keeps this location.
  // expected-error @below {{expected epilog calls to end within 16 levels, got deeper (recursion?)}}
  %y = func.call @forever(%x) : (f32) -> f32
  return %y : f32
}

func.func @recursive(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x16xf32>, memref<16x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = func.call @forever(%acc) : (f32) -> f32
    mepi.yield %r : f32
  }
  return
}
