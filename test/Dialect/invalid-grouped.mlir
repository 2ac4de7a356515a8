// Diagnostics of the grouped form: the groups operand and its form, ranks, B's matrices,
// weight_indices, per-group inputs, the epilog's group argument.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @groups_type(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xf32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected groups to be a 1-D static memref of i32 or i64, got 'memref<2xf32>'}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xf32>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @form(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected group form ends, indptr, lengths or masked, got 'offsets'}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g offsets : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @empty_indptr(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<1xi64>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected groups to give at least one group, got 1 elements in the indptr form}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g indptr : memref<1xi64>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @ranks(%x: memref<64x64xbf16>, %w: memref<64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected a grouped matmul's a, b and d to have ranks 2, 3 and 2 ([T, K], [W, K, N], [T, N]), got 2, 2 and 2}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<64x64xbf16>) groups(%g ends : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @matrices(%x: memref<64x64xbf16>, %w: memref<3x64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected b to have one matrix per group (2) without weight_indices, got 3}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<3x64x64xbf16>) groups(%g ends : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @weights(%x: memref<64x64xbf16>, %w: memref<3x64x64xbf16>, %g: memref<2xi32>, %wi: memref<3xi32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected weight_indices to be a memref of 2 i32 or i64 (one per group), got 'memref<3xi32>'}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<3x64x64xbf16>) groups(%g ends : memref<2xi32>)
      weights(%wi : memref<3xi32>) outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @k(%x: memref<64x32xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected op(a) and op(b) to agree on K, got 32 and 64}}
  mepi.matmul ins(%x, %w : memref<64x32xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @per_group_input(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %bias: memref<3x64xbf16>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected epilog input 0 (col) to have no leading dimension or one of the 2 groups, got 1 leading dimensions of 3}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xi32>)
      inputs(%bias as col : memref<3x64xbf16>) outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %b: bf16, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @group_argument(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected epilog to have 4 arguments (acc, 0 inputs, row, col, group), got 3}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @reductions(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>, %r: memref<64xf32>) {
  // expected-error @below {{expected only scalar f32 maxima among a grouped matmul's reductions, got reduction 0 (row, add, 'f32')}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) reduce(%r as row add : memref<64xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t, %acc : bf16, f32
  }
  return
}

// -----

// A scalar sum would depend on the order in which the tiles add in.
func.func @scalar_sum(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>, %r: memref<f32>) {
  // expected-error @below {{expected only scalar f32 maxima among a grouped matmul's reductions, got reduction 0 (scalar, add, 'f32')}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) reduce(%r as scalar add : memref<f32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t, %acc : bf16, f32
  }
  return
}

// -----

func.func @bitmask_aux(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>, %mask: memref<8x64xi8>) {
  // expected-error @below {{expected no bitmask aux outputs in a grouped matmul (a byte's 8 rows may lie in two groups), got aux 0}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) aux(%mask as bitmask : memref<8x64xi8>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf oge, %acc, %zero : f32
    mepi.yield %t, %p : bf16, i1
  }
  return
}

// -----

func.func @masked_rows(%x: memref<100x64xbf16>, %w: memref<3x64x64xbf16>, %m: memref<3xi32>, %d: memref<100x64xbf16>) {
  // expected-error @below {{expected the masked form's 100 rows of d to be a multiple of its 3 groups (R rows each)}}
  mepi.matmul ins(%x, %w : memref<100x64xbf16>, memref<3x64x64xbf16>) groups(%m masked : memref<3xi32>)
      outs(%d : memref<100x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @along_k_ranks(%x: memref<64x64xbf16>, %w: memref<64x64xbf16>, %g: memref<2xi32>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected a matmul grouped along k to have a, b and d of ranks 2, 2 and 3 ([M, K], [K, N], [S, M, N]), got 2, 2 and 2}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<64x64xbf16>) groups(%g ends along k : memref<2xi32>)
      outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @along_k_groups(%x: memref<64x64xbf16>, %w: memref<64x64xbf16>, %g: memref<2xi32>, %d: memref<3x64x64xbf16>) {
  // expected-error @below {{expected d to have one matrix per group (2), got 3}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<64x64xbf16>) groups(%g ends along k : memref<2xi32>)
      outs(%d : memref<3x64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @along_k_lengths(%x: memref<64x64xbf16>, %w: memref<64x64xbf16>, %g: memref<2xi32>, %d: memref<2x64x64xbf16>) {
  // expected-error @below {{expected groups along k in the ends or indptr form without weight_indices, got the lengths form}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<64x64xbf16>) groups(%g lengths along k : memref<2xi32>)
      outs(%d : memref<2x64x64xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @along_k_bias(%x: memref<64x64xbf16>, %w: memref<64x64xbf16>, %g: memref<2xi32>, %bias: memref<3x64xbf16>, %d: memref<2x64x64xbf16>) {
  // expected-error @below {{expected epilog input 0 (col) to have no leading dimension or one of the 2 groups, got 1 leading dimensions of 3}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<64x64xbf16>) groups(%g ends along k : memref<2xi32>)
      inputs(%bias as col : memref<3x64xbf16>) outs(%d : memref<2x64x64xbf16>) epilog {
  ^bb0(%acc: f32, %b: bf16, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// A grouped matmul's rows are its groups': no cyclic row input.
func.func @cyclic_row(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %g: memref<2xi32>, %r: memref<32xbf16>, %d: memref<64x64xbf16>) {
  // expected-error @below {{expected epilog input 0 (cyclic_row) in a matmul that is not grouped}}
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%g ends : memref<2xi32>)
      inputs(%r as cyclic_row : memref<32xbf16>) outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %v: bf16, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
