// Tile widths the wgmma generator cannot emit are refused with the reason, not miscompiled:
// the epilog stages 32 columns at a time, and a B given as [K, N] loads 64-row blocks.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics --mepi-generate-kernels

func.func @narrow(%a: memref<200x128xbf16>, %b: memref<16x128xbf16>, %d: memref<200x16xbf16>) {
  // expected-error @+1 {{expected tile_n a multiple of 32 for the wgmma epilog (it stages 32 columns at a time), got 16}}
  mepi.matmul ins(%a, %b : memref<200x128xbf16>, memref<16x128xbf16>)
      outs(%d : memref<200x16xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 16, 64], mainloop = <stages = 6>>} epilog {
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
      attributes {config = #mepi.kernel_config<wgmma, tile = [128, 96, 64], mainloop = <stages = 6>>} epilog {
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
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// D from the registers serves epilogs that write D only.
func.func @registers_aux(%a: memref<200x128xbf16>, %b: memref<128x128xbf16>,
                         %d: memref<200x128xbf16> {mepi.alignment = 16 : i64},
                         %aux: memref<200x128xbf16>) {
  // expected-error @+1 {{store = registers needs an epilog that writes D only (no aux output, no reduction) into a static row-major D; use store = staged}}
  mepi.matmul ins(%a, %b : memref<200x128xbf16>, memref<128x128xbf16>)
      outs(%d : memref<200x128xbf16>) aux(%aux as matrix : memref<200x128xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4>, epilogue = <store = registers>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r, %r : bf16, bf16
  }
  return
}

// -----

// The swapped form's TMA stores address rows of a multiple of 16 bytes: 1002 bf16 are 2004.
// (Unswapped, the consumer's threads store such lines.)
func.func @tma_store_rows(%a: memref<16x128xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<1002x128xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<16x1002xbf16> {mepi.alignment = 16 : i64}) {
  // expected-error @+1 {{store = tma in the swapped form needs a bf16, f16 or f32 D with rows of a multiple of 16 bytes at a 16-byte aligned address, got 'memref<16x1002xbf16>'}}
  mepi.matmul ins(%a, %b : memref<16x128xbf16>, memref<1002x128xbf16>)
      outs(%d : memref<16x1002xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [16, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma>, swapped = true>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// A cluster along N multicasts half of A's tile from each block: an A given as [K, M] loads
// 64-row blocks, so a 64-row tile has no half to share.
func.func @mn_major_a_multicast(%a: memref<128x200xbf16>, %b: memref<512x128xbf16>, %d: memref<200x512xbf16>) {
  // expected-error @+1 {{expected tile_m a multiple of 128 for an A given as [K, M] in a cluster (it loads 64-row blocks, an equal share per block of its cluster row), got 64}}
  mepi.matmul ins(%a, %b : memref<128x200xbf16>, memref<512x128xbf16>)
      outs(%d : memref<200x512xbf16>)
      attributes {transpose_a, transpose_b, config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The swapped form's TMA stores write 16 rows of D at a time (stmatrix.trans of two 8-row
// groups) and a 128-byte line per consumer: tile_m a multiple of 16, a 16-bit D.
func.func @swapped_tma_store_height(%a: memref<200x128xbf16> {mepi.alignment = 16 : i64},
                                   %b: memref<1024x128xbf16> {mepi.alignment = 16 : i64},
                                   %d: memref<200x1024xbf16> {mepi.alignment = 16 : i64}) {
  // expected-error @+1 {{store = tma in the swapped form needs a 16-bit D and tile_m a multiple of 16, got 'memref<200x1024xbf16>' and tile_m 72}}
  mepi.matmul ins(%a, %b : memref<200x128xbf16>, memref<1024x128xbf16>) outs(%d : memref<200x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [72, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma>, swapped = true>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Swapped, the accumulator rows are D's columns: block scales (per row of A, per 128 columns
// of B, applied to row slices) are refused.
func.func @swapped_block_scales(%a: memref<16x256xf8E4M3FN>, %b: memref<200x256xf8E4M3FN>,
                                %sa: memref<16x2xf32>, %sb: memref<2x2xf32>,
                                %d: memref<16x200xbf16>) {
  // expected-error @+1 {{swapped wgmma kernels take 16-bit or 8-bit A and B without block scales}}
  mepi.matmul ins(%a, %b : memref<16x256xf8E4M3FN>, memref<200x256xf8E4M3FN>)
      outs(%d : memref<16x200xbf16>) block_scales(%sa, %sb : memref<16x2xf32>, memref<2x2xf32>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [16, 64, 128], mainloop = <stages = 8, promote = 1>, swapped = true>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Grouped: vertically adjacent tiles may belong to two groups, each with its own matrix of B,
// so clusters may share A's tile (along N, one tile row) but not B's.
func.func @grouped_clusters_sharing_b(%x: memref<1000x256xbf16> {mepi.alignment = 16 : i64},
                                      %w: memref<4x512x256xbf16> {mepi.alignment = 16 : i64},
                                      %offs: memref<4xi32>,
                                      %d: memref<1000x512xbf16> {mepi.alignment = 16 : i64}) {
  // expected-error @+1 {{grouped wgmma kernels need TMA loads and take no split-K, stream-K, swapped form or clusters sharing B (multicast = a only)}}
  mepi.matmul ins(%x, %w : memref<1000x256xbf16>, memref<4x512x256xbf16>)
      groups(%offs ends : memref<4xi32>) outs(%d : memref<1000x512xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
