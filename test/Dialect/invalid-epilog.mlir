// Diagnostics for the epilog region's signature and its mepi.yield.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @arg_count(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog to have 4 arguments (acc, 1 inputs, row, col), got 3}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%bias as col : memref<8xf32>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @acc_type(%a: memref<4x16xf16>, %b: memref<16x8xf16>, %d: memref<4x8xf16>) {
  // expected-error @below {{expected epilog argument 0 (acc) to be f32, got 'f16'}}
  mepi.matmul ins(%a, %b : memref<4x16xf16>, memref<16x8xf16>) outs(%d : memref<4x8xf16>) epilog {
  ^bb0(%acc: f16, %row: index, %col: index):
    mepi.yield %acc : f16
  }
  return
}

// -----

func.func @input_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xbf16>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog argument 1 (input 0) to be 'bf16', got 'f32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%bias as col : memref<8xbf16>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %x: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @index_types(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog row and col arguments to be index, got 'i32' and 'index'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: i32, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @not_yield(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog to end in mepi.yield, got llvm.unreachable}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    llvm.unreachable
  }
  return
}

// -----

func.func @yield_count(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %aux: memref<4x8xf32>) {
  // expected-error @below {{expected epilog to yield 2 values (d, 1 aux and 0 reductions), got 1}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      aux(%aux as matrix : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @yield_d_type(%a: memref<4x16xbf16>, %b: memref<16x8xbf16>, %d: memref<4x8xbf16>) {
  // expected-error @below {{expected yielded value 0 to be 'bf16' (element type of d), got 'f32'}}
  mepi.matmul ins(%a, %b : memref<4x16xbf16>, memref<16x8xbf16>) outs(%d : memref<4x8xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @yield_aux_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %aux: memref<4x8xi8>) {
  // expected-error @below {{expected yielded value 1 to be 'i8' (element type of aux 0), got 'f32'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      aux(%aux as matrix : memref<4x8xi8>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc, %acc : f32, f32
  }
  return
}

// -----

func.func @yield_bitmask_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %mask: memref<16x8xi8>) {
  // expected-error @below {{expected yielded value 1 to be 'i1' (a bit of aux 0), got 'i8'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      aux(%mask as bitmask : memref<16x8xi8>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %z = arith.constant 0 : i8
    mepi.yield %acc, %z : f32, i8
  }
  return
}

// -----

func.func @yield_reduction_type(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %d: memref<4x8xf32>, %r: memref<4xf32>) {
  // expected-error @below {{expected yielded value 1 to be f32 (reduction 0), got 'f16'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
      reduce(%r as row add : memref<4xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %h = arith.truncf %acc : f32 to f16
    mepi.yield %acc, %h : f32, f16
  }
  return
}

// -----

func.func @bitmask_input_arg(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %mask: memref<1x8xi8>, %d: memref<4x8xf32>) {
  // expected-error @below {{expected epilog argument 1 (input 0) to be 'i1', got 'i8'}}
  mepi.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) inputs(%mask as bitmask : memref<1x8xi8>)
      outs(%d : memref<4x8xf32>) epilog {
  ^bb0(%acc: f32, %m: i8, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @yield_outside() {
  // expected-error @below {{'mepi.yield' op expects parent op 'mepi.matmul'}}
  "mepi.yield"() : () -> ()
  return
}
