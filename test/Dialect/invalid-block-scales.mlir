// Block scales (a_block_scales [M, ceil(K / 128)], b_block_scales [ceil(N / 128),
// ceil(K / 128)], f32) are checked for their pairing, shapes and what they need of the matmul.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @a_shape(%a: memref<70x300xf8E4M3FN>, %b: memref<200x300xf8E4M3FN>, %d: memref<70x200xbf16>,
                   %sa: memref<70x2xf32>, %sb: memref<2x3xf32>) {
  // expected-error @below {{expected a_block_scales to be f32 [70, 3] (M, ceil(K / 128)), got 'memref<70x2xf32>'}}
  mepi.matmul ins(%a, %b : memref<70x300xf8E4M3FN>, memref<200x300xf8E4M3FN>)
      outs(%d : memref<70x200xbf16>) block_scales(%sa, %sb : memref<70x2xf32>, memref<2x3xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @b_shape(%a: memref<70x300xf8E4M3FN>, %b: memref<200x300xf8E4M3FN>, %d: memref<70x200xbf16>,
                   %sa: memref<70x3xf32>, %sb: memref<200x3xf32>) {
  // expected-error @below {{expected b_block_scales to be f32 [2, 3] (ceil(N / 128), ceil(K / 128)), got 'memref<200x3xf32>'}}
  mepi.matmul ins(%a, %b : memref<70x300xf8E4M3FN>, memref<200x300xf8E4M3FN>)
      outs(%d : memref<70x200xbf16>) block_scales(%sa, %sb : memref<70x3xf32>, memref<200x3xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @b_type(%a: memref<70x300xf8E4M3FN>, %b: memref<200x300xf8E4M3FN>, %d: memref<70x200xbf16>,
                  %sa: memref<70x3xf32>, %sb: memref<2x3xf16>) {
  // expected-error @below {{expected b_block_scales to be f32 [2, 3] (ceil(N / 128), ceil(K / 128)), got 'memref<2x3xf16>'}}
  mepi.matmul ins(%a, %b : memref<70x300xf8E4M3FN>, memref<200x300xf8E4M3FN>)
      outs(%d : memref<70x200xbf16>) block_scales(%sa, %sb : memref<70x3xf32>, memref<2x3xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @not_fp8(%a: memref<70x300xbf16>, %b: memref<200x300xbf16>, %d: memref<70x200xbf16>,
                   %sa: memref<70x3xf32>, %sb: memref<2x3xf32>) {
  // expected-error @below {{expected 8-bit (fp8) a and b with block scales, got 'bf16'}}
  mepi.matmul ins(%a, %b : memref<70x300xbf16>, memref<200x300xbf16>)
      outs(%d : memref<70x200xbf16>) block_scales(%sa, %sb : memref<70x3xf32>, memref<2x3xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @fast(%a: memref<70x300xf8E4M3FN>, %b: memref<200x300xf8E4M3FN>, %d: memref<70x200xbf16>,
                %sa: memref<70x3xf32>, %sb: memref<2x3xf32>) {
  // expected-error @below {{block scales need promoted sums: expected no fast_accumulation}}
  mepi.matmul ins(%a, %b : memref<70x300xf8E4M3FN>, memref<200x300xf8E4M3FN>)
      outs(%d : memref<70x200xbf16>) block_scales(%sa, %sb : memref<70x3xf32>, memref<2x3xf32>)
      attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @batched(%a: memref<2x70x300xf8E4M3FN>, %b: memref<200x300xf8E4M3FN>, %d: memref<2x70x200xbf16>,
                   %sa: memref<70x3xf32>, %sb: memref<2x3xf32>) {
  // expected-error @below {{block scales take 2-D a, b and d without groups}}
  mepi.matmul ins(%a, %b : memref<2x70x300xf8E4M3FN>, memref<200x300xf8E4M3FN>)
      outs(%d : memref<2x70x200xbf16>) block_scales(%sa, %sb : memref<70x3xf32>, memref<2x3xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
