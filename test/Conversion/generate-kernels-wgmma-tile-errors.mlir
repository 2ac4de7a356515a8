// Tile widths the wgmma generator cannot emit are refused with the reason, not miscompiled:
// the epilog stages 32 columns at a time, and a B given as [K, N] loads 64-row blocks.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics --mepi-generate-kernels

func.func @narrow(%a: memref<200x128xbf16>, %b: memref<16x128xbf16>, %d: memref<200x16xbf16>) {
  // expected-error @+1 {{expected tile_n a multiple of 32 for the wgmma epilog (it stages 32 columns at a time), got 16}}
  mepi.matmul ins(%a, %b : memref<200x128xbf16>, memref<16x128xbf16>)
      outs(%d : memref<200x16xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 16, 64], stages = 6>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

func.func @mn_major_b(%a: memref<200x128xbf16>, %b: memref<128x96xbf16>, %d: memref<200x96xbf16>) {
  // expected-error @+1 {{expected tile_n a multiple of 64 for a B given as [K, N] (it loads 64-row blocks), got 96}}
  mepi.matmul ins(%a, %b : memref<200x128xbf16>, memref<128x96xbf16>)
      outs(%d : memref<200x96xbf16>)
      attributes {config = #mepi.kernel_config<wgmma, tile = [128, 96, 64], stages = 6>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// A ping-pong consumer computes whole tiles: it has no 64-row share of the operand sums.
func.func @pingpong_sums(%a: memref<200x128xbf16>, %b: memref<128x128xbf16>, %d: memref<200x128xbf16>,
                         %ga: memref<200xbf16>) {
  // expected-error @+1 {{ping-pong wgmma kernels take no operand sums (a_sums, b_sums); use the cooperative kernel}}
  mepi.matmul ins(%a, %b : memref<200x128xbf16>, memref<128x128xbf16>)
      outs(%d : memref<200x128xbf16>) a_sums(%ga : memref<200xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6, pingpong = true>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
