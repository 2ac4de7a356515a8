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

// -----

// Calls that fan out (each of 30 calls to the next, four levels deep: 30^4 copies) are refused
// before they are cloned, not inlined into millions of operations.
func.func private @leaf(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}
func.func private @f3(%x: f32) -> f32 {
  // expected-error @below {{expected the epilog to inline to at most 100000 operations, got more at call depth 4 (calls fan out)}}
  %c0 = func.call @leaf(%x) : (f32) -> f32
  %s0 = arith.addf %c0, %x : f32
  %c1 = func.call @leaf(%s0) : (f32) -> f32
  %s1 = arith.addf %c1, %x : f32
  %c2 = func.call @leaf(%s1) : (f32) -> f32
  %s2 = arith.addf %c2, %x : f32
  %c3 = func.call @leaf(%s2) : (f32) -> f32
  %s3 = arith.addf %c3, %x : f32
  %c4 = func.call @leaf(%s3) : (f32) -> f32
  %s4 = arith.addf %c4, %x : f32
  %c5 = func.call @leaf(%s4) : (f32) -> f32
  %s5 = arith.addf %c5, %x : f32
  %c6 = func.call @leaf(%s5) : (f32) -> f32
  %s6 = arith.addf %c6, %x : f32
  %c7 = func.call @leaf(%s6) : (f32) -> f32
  %s7 = arith.addf %c7, %x : f32
  %c8 = func.call @leaf(%s7) : (f32) -> f32
  %s8 = arith.addf %c8, %x : f32
  %c9 = func.call @leaf(%s8) : (f32) -> f32
  %s9 = arith.addf %c9, %x : f32
  %c10 = func.call @leaf(%s9) : (f32) -> f32
  %s10 = arith.addf %c10, %x : f32
  %c11 = func.call @leaf(%s10) : (f32) -> f32
  %s11 = arith.addf %c11, %x : f32
  %c12 = func.call @leaf(%s11) : (f32) -> f32
  %s12 = arith.addf %c12, %x : f32
  %c13 = func.call @leaf(%s12) : (f32) -> f32
  %s13 = arith.addf %c13, %x : f32
  %c14 = func.call @leaf(%s13) : (f32) -> f32
  %s14 = arith.addf %c14, %x : f32
  %c15 = func.call @leaf(%s14) : (f32) -> f32
  %s15 = arith.addf %c15, %x : f32
  %c16 = func.call @leaf(%s15) : (f32) -> f32
  %s16 = arith.addf %c16, %x : f32
  %c17 = func.call @leaf(%s16) : (f32) -> f32
  %s17 = arith.addf %c17, %x : f32
  %c18 = func.call @leaf(%s17) : (f32) -> f32
  %s18 = arith.addf %c18, %x : f32
  %c19 = func.call @leaf(%s18) : (f32) -> f32
  %s19 = arith.addf %c19, %x : f32
  %c20 = func.call @leaf(%s19) : (f32) -> f32
  %s20 = arith.addf %c20, %x : f32
  %c21 = func.call @leaf(%s20) : (f32) -> f32
  %s21 = arith.addf %c21, %x : f32
  %c22 = func.call @leaf(%s21) : (f32) -> f32
  %s22 = arith.addf %c22, %x : f32
  %c23 = func.call @leaf(%s22) : (f32) -> f32
  %s23 = arith.addf %c23, %x : f32
  %c24 = func.call @leaf(%s23) : (f32) -> f32
  %s24 = arith.addf %c24, %x : f32
  %c25 = func.call @leaf(%s24) : (f32) -> f32
  %s25 = arith.addf %c25, %x : f32
  %c26 = func.call @leaf(%s25) : (f32) -> f32
  %s26 = arith.addf %c26, %x : f32
  %c27 = func.call @leaf(%s26) : (f32) -> f32
  %s27 = arith.addf %c27, %x : f32
  %c28 = func.call @leaf(%s27) : (f32) -> f32
  %s28 = arith.addf %c28, %x : f32
  %c29 = func.call @leaf(%s28) : (f32) -> f32
  %s29 = arith.addf %c29, %x : f32
  return %s29 : f32
}
func.func private @f2(%x: f32) -> f32 {
  %c0 = func.call @f3(%x) : (f32) -> f32
  %s0 = arith.addf %c0, %x : f32
  %c1 = func.call @f3(%s0) : (f32) -> f32
  %s1 = arith.addf %c1, %x : f32
  %c2 = func.call @f3(%s1) : (f32) -> f32
  %s2 = arith.addf %c2, %x : f32
  %c3 = func.call @f3(%s2) : (f32) -> f32
  %s3 = arith.addf %c3, %x : f32
  %c4 = func.call @f3(%s3) : (f32) -> f32
  %s4 = arith.addf %c4, %x : f32
  %c5 = func.call @f3(%s4) : (f32) -> f32
  %s5 = arith.addf %c5, %x : f32
  %c6 = func.call @f3(%s5) : (f32) -> f32
  %s6 = arith.addf %c6, %x : f32
  %c7 = func.call @f3(%s6) : (f32) -> f32
  %s7 = arith.addf %c7, %x : f32
  %c8 = func.call @f3(%s7) : (f32) -> f32
  %s8 = arith.addf %c8, %x : f32
  %c9 = func.call @f3(%s8) : (f32) -> f32
  %s9 = arith.addf %c9, %x : f32
  %c10 = func.call @f3(%s9) : (f32) -> f32
  %s10 = arith.addf %c10, %x : f32
  %c11 = func.call @f3(%s10) : (f32) -> f32
  %s11 = arith.addf %c11, %x : f32
  %c12 = func.call @f3(%s11) : (f32) -> f32
  %s12 = arith.addf %c12, %x : f32
  %c13 = func.call @f3(%s12) : (f32) -> f32
  %s13 = arith.addf %c13, %x : f32
  %c14 = func.call @f3(%s13) : (f32) -> f32
  %s14 = arith.addf %c14, %x : f32
  %c15 = func.call @f3(%s14) : (f32) -> f32
  %s15 = arith.addf %c15, %x : f32
  %c16 = func.call @f3(%s15) : (f32) -> f32
  %s16 = arith.addf %c16, %x : f32
  %c17 = func.call @f3(%s16) : (f32) -> f32
  %s17 = arith.addf %c17, %x : f32
  %c18 = func.call @f3(%s17) : (f32) -> f32
  %s18 = arith.addf %c18, %x : f32
  %c19 = func.call @f3(%s18) : (f32) -> f32
  %s19 = arith.addf %c19, %x : f32
  %c20 = func.call @f3(%s19) : (f32) -> f32
  %s20 = arith.addf %c20, %x : f32
  %c21 = func.call @f3(%s20) : (f32) -> f32
  %s21 = arith.addf %c21, %x : f32
  %c22 = func.call @f3(%s21) : (f32) -> f32
  %s22 = arith.addf %c22, %x : f32
  %c23 = func.call @f3(%s22) : (f32) -> f32
  %s23 = arith.addf %c23, %x : f32
  %c24 = func.call @f3(%s23) : (f32) -> f32
  %s24 = arith.addf %c24, %x : f32
  %c25 = func.call @f3(%s24) : (f32) -> f32
  %s25 = arith.addf %c25, %x : f32
  %c26 = func.call @f3(%s25) : (f32) -> f32
  %s26 = arith.addf %c26, %x : f32
  %c27 = func.call @f3(%s26) : (f32) -> f32
  %s27 = arith.addf %c27, %x : f32
  %c28 = func.call @f3(%s27) : (f32) -> f32
  %s28 = arith.addf %c28, %x : f32
  %c29 = func.call @f3(%s28) : (f32) -> f32
  %s29 = arith.addf %c29, %x : f32
  return %s29 : f32
}
func.func private @f1(%x: f32) -> f32 {
  %c0 = func.call @f2(%x) : (f32) -> f32
  %s0 = arith.addf %c0, %x : f32
  %c1 = func.call @f2(%s0) : (f32) -> f32
  %s1 = arith.addf %c1, %x : f32
  %c2 = func.call @f2(%s1) : (f32) -> f32
  %s2 = arith.addf %c2, %x : f32
  %c3 = func.call @f2(%s2) : (f32) -> f32
  %s3 = arith.addf %c3, %x : f32
  %c4 = func.call @f2(%s3) : (f32) -> f32
  %s4 = arith.addf %c4, %x : f32
  %c5 = func.call @f2(%s4) : (f32) -> f32
  %s5 = arith.addf %c5, %x : f32
  %c6 = func.call @f2(%s5) : (f32) -> f32
  %s6 = arith.addf %c6, %x : f32
  %c7 = func.call @f2(%s6) : (f32) -> f32
  %s7 = arith.addf %c7, %x : f32
  %c8 = func.call @f2(%s7) : (f32) -> f32
  %s8 = arith.addf %c8, %x : f32
  %c9 = func.call @f2(%s8) : (f32) -> f32
  %s9 = arith.addf %c9, %x : f32
  %c10 = func.call @f2(%s9) : (f32) -> f32
  %s10 = arith.addf %c10, %x : f32
  %c11 = func.call @f2(%s10) : (f32) -> f32
  %s11 = arith.addf %c11, %x : f32
  %c12 = func.call @f2(%s11) : (f32) -> f32
  %s12 = arith.addf %c12, %x : f32
  %c13 = func.call @f2(%s12) : (f32) -> f32
  %s13 = arith.addf %c13, %x : f32
  %c14 = func.call @f2(%s13) : (f32) -> f32
  %s14 = arith.addf %c14, %x : f32
  %c15 = func.call @f2(%s14) : (f32) -> f32
  %s15 = arith.addf %c15, %x : f32
  %c16 = func.call @f2(%s15) : (f32) -> f32
  %s16 = arith.addf %c16, %x : f32
  %c17 = func.call @f2(%s16) : (f32) -> f32
  %s17 = arith.addf %c17, %x : f32
  %c18 = func.call @f2(%s17) : (f32) -> f32
  %s18 = arith.addf %c18, %x : f32
  %c19 = func.call @f2(%s18) : (f32) -> f32
  %s19 = arith.addf %c19, %x : f32
  %c20 = func.call @f2(%s19) : (f32) -> f32
  %s20 = arith.addf %c20, %x : f32
  %c21 = func.call @f2(%s20) : (f32) -> f32
  %s21 = arith.addf %c21, %x : f32
  %c22 = func.call @f2(%s21) : (f32) -> f32
  %s22 = arith.addf %c22, %x : f32
  %c23 = func.call @f2(%s22) : (f32) -> f32
  %s23 = arith.addf %c23, %x : f32
  %c24 = func.call @f2(%s23) : (f32) -> f32
  %s24 = arith.addf %c24, %x : f32
  %c25 = func.call @f2(%s24) : (f32) -> f32
  %s25 = arith.addf %c25, %x : f32
  %c26 = func.call @f2(%s25) : (f32) -> f32
  %s26 = arith.addf %c26, %x : f32
  %c27 = func.call @f2(%s26) : (f32) -> f32
  %s27 = arith.addf %c27, %x : f32
  %c28 = func.call @f2(%s27) : (f32) -> f32
  %s28 = arith.addf %c28, %x : f32
  %c29 = func.call @f2(%s28) : (f32) -> f32
  %s29 = arith.addf %c29, %x : f32
  return %s29 : f32
}

func.func @fan_out(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x16xf32>, memref<16x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = func.call @f1(%acc) : (f32) -> f32
    mepi.yield %r : f32
  }
  return
}
