// FP8 without fast accumulation: promoted accumulators, tile shapes ranked by waves x area /
// per-tile speed. 128 x 192 (one 64 x 192 slice per consumer, twice over: 232 registers,
// which the consumers get when the driver compiles the kernel as a whole program) for large
// problems; a problem of one wave of 128 x 128 tiles takes twice as many 128 x 64 ones (two
// consumers take turns at promoting); a problem of at most 64 rows takes 64-row tiles.
// RUN: mepi-opt %s --mepi-select-kernel-config=chip=sm_90a | FileCheck %s

// CHECK-LABEL: func.func @wide
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @wide(%a: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                %b: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                %d: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x8192xf8E4M3FN>, memref<8192x8192xf8E4M3FN>)
      outs(%d : memref<8192x8192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// 8 x 8 tiles of 128 x 128 leave half the multiprocessors idle; 8 x 16 of 128 x 64 do not.
// CHECK-LABEL: func.func @few_tiles
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 128], mainloop = <stages = 8, promote = 1>, epilogue = <store = tma>>
func.func @few_tiles(%a: memref<1024x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                     %b: memref<1024x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                     %d: memref<1024x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1024x4096xf8E4M3FN>, memref<1024x4096xf8E4M3FN>)
      outs(%d : memref<1024x1024xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// 16 rows: the problem streams B, so the swapped form (Dᵀ = B Aᵀ) of 16 rows by 64 columns,
// 128 tiles in one wave (no padding rows of A, twice the units of 64 x 128).
// CHECK-LABEL: func.func @decode
// CHECK: config = #mepi.kernel_config<wgmma, tile = [16, 64, 128], mainloop = <stages = 16, promote = 1>, swapped = true>
func.func @decode(%a: memref<16x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                  %b: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                  %d: memref<16x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x8192xf8E4M3FN>, memref<8192x8192xf8E4M3FN>)
      outs(%d : memref<16x8192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// 16 rows past one wave of 64-column tiles (696 of them): the swapped form of 128 columns.
// CHECK-LABEL: func.func @decode_wide
// CHECK: config = #mepi.kernel_config<wgmma, tile = [16, 128, 128], mainloop = <stages = 11, promote = 1>, swapped = true>
func.func @decode_wide(%a: memref<16x1840xf8E4M3FN> {mepi.alignment = 16 : i64},
                       %b: memref<44528x1840xf8E4M3FN> {mepi.alignment = 16 : i64},
                       %d: memref<16x44528xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x1840xf8E4M3FN>, memref<44528x1840xf8E4M3FN>)
      outs(%d : memref<16x44528xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Rows of 8208 bytes start off L2's 32-byte sectors: 2752 tiles of 128 x 192 in clusters of 2
// (B multicast halves B's L2 requests).
// CHECK-LABEL: func.func @rows_off_sectors
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, cluster = 2, promote = 1>, epilogue = <store = tma>>
func.func @rows_off_sectors(%a: memref<8192x8208xf8E4M3FN> {mepi.alignment = 16 : i64},
                            %b: memref<8192x8208xf8E4M3FN> {mepi.alignment = 16 : i64},
                            %d: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x8208xf8E4M3FN>, memref<8192x8208xf8E4M3FN>)
      outs(%d : memref<8192x8192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Grouped (sizes on the device): 128 x 192 where groups average more than 64 rows and the
// tiles of the mean group size give every multiprocessor one (Qwen3-30B's experts: 128 groups
// of ~505 rows, 4 x 8 tiles each); decode-like groups (8 rows on average) 64 x 128 with TMA
// stores.
// CHECK-LABEL: func.func @grouped_prefill
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @grouped_prefill(%x: memref<64608x2048xf8E4M3FN> {mepi.alignment = 16 : i64},
                           %w: memref<128x1536x2048xf8E4M3FN> {mepi.alignment = 16 : i64},
                           %offs: memref<128xi32>,
                           %d: memref<64608x1536xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<64608x2048xf8E4M3FN>, memref<128x1536x2048xf8E4M3FN>)
      groups(%offs ends : memref<128xi32>) outs(%d : memref<64608x1536xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// CHECK-LABEL: func.func @grouped_decode
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 128], mainloop = <stages = 8, promote = 1>, epilogue = <store = tma>>
func.func @grouped_decode(%x: memref<1024x2048xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %w: memref<128x1536x2048xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %offs: memref<128xi32>,
                          %d: memref<1024x1536xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<1024x2048xf8E4M3FN>, memref<128x1536x2048xf8E4M3FN>)
      groups(%offs ends : memref<128xi32>) outs(%d : memref<1024x1536xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Fast accumulation (no promotion) at 16 rows: the swapped form as promoted.
// CHECK-LABEL: func.func @decode_fast
// CHECK: config = #mepi.kernel_config<wgmma, tile = [16, 64, 128], mainloop = <stages = 16>, swapped = true>
func.func @decode_fast(%a: memref<16x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                       %b: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                       %d: memref<16x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x8192xf8E4M3FN>, memref<8192x8192xf8E4M3FN>)
      outs(%d : memref<16x8192xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Long K under one wave: 7 x 6 = 42 tiles of 128 x 192 in 3 splits (126 units of 164 k-steps)
// rank above 7 x 16 = 112 tiles of 128 x 64 whole (490 k-steps): the ranking counts a split
// unit's k-steps (and its record), not waves of whole tiles.
// CHECK-LABEL: func.func @long_k_split
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, scheduler = <split_k, splits = 3>, epilogue = <store = tma>>
func.func @long_k_split(%a: memref<896x62784xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %b: memref<1024x62784xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %d: memref<896x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<896x62784xf8E4M3FN>, memref<1024x62784xf8E4M3FN>)
      outs(%d : memref<896x1024xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// A split of 11 k-steps does not pay for its record: 1008 x 528 x 4096 keeps 8 x 9 tiles of
// 128 x 64 whole (128 x 128 in 3 splits measured 0.71 of cuBLASLt against 0.86).
// CHECK-LABEL: func.func @short_k_whole
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 128], mainloop = <stages = 8, promote = 1>, epilogue = <store = tma>>
func.func @short_k_whole(%a: memref<1008x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                         %b: memref<528x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                         %d: memref<1008x528xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1008x4096xf8E4M3FN>, memref<528x4096xf8E4M3FN>)
      outs(%d : memref<1008x528xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Fast accumulation ranked by the FP8 tile model: 47 x 3 = 141 tiles of 128 x 256 take two
// waves, the first nearly alone; 47 x 4 = 188 of 128 x 192 fill them better (the 16-bit rules
// took 128 x 256 in clusters).
// CHECK-LABEL: func.func @fast_narrow_n
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @fast_narrow_n(%a: memref<6016x4544xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<736x4544xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<6016x736xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<6016x4544xf8E4M3FN>, memref<736x4544xf8E4M3FN>)
      outs(%d : memref<6016x736xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// 15 rows of 128 x 256 tiles: in clusters of 2 they would take 16 x 17 = 272 blocks, three
// waves; alone 255 blocks, two.
// CHECK-LABEL: func.func @fast_odd_rows
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 128], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @fast_odd_rows(%a: memref<1920x7168xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<4224x7168xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<1920x4224xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1920x7168xf8E4M3FN>, memref<4224x7168xf8E4M3FN>)
      outs(%d : memref<1920x4224xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Many waves of 128 x 256 (rows paired without a wave more): in clusters of 2.
// CHECK-LABEL: func.func @fast_large
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 128], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @fast_large(%a: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x8192xf8E4M3FN>, memref<8192x8192xf8E4M3FN>)
      outs(%d : memref<8192x8192xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// K of three k-steps: the 16-bit rules' ping-pong stays first.
// CHECK-LABEL: func.func @fast_short_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 128], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @fast_short_k(%a: memref<4800x384xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<1792x384xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<4800x1792xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4800x384xf8E4M3FN>, memref<1792x384xf8E4M3FN>)
      outs(%d : memref<4800x1792xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// 128 rows, 64 k-steps: 64 x 128 whole (one wave of 128 tiles), not 128 x 128 split in 2.
// CHECK-LABEL: func.func @fast_m128
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 128], mainloop = <stages = 8>>
func.func @fast_m128(%a: memref<128x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<128x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<128x8192xf8E4M3FN>, memref<8192x8192xf8E4M3FN>)
      outs(%d : memref<128x8192xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Over 64 rows with K split into short units: no 64 x 128 (it lost there to 64 x 64).
// CHECK-LABEL: func.func @fast_short_units
// CHECK-NOT: tile = [64, 128, 128]
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 128], mainloop = <stages = 8>, scheduler = <split_k, splits = {{[0-9]+}}>>
func.func @fast_short_units(%a: memref<256x15040xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<192x15040xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<256x192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<256x15040xf8E4M3FN>, memref<192x15040xf8E4M3FN>)
      outs(%d : memref<256x192xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Block scales on DeepSeek-V3's 4096 x 7168 x 16384: 896 tiles of 256 x 128 (promoted by
// slice, the scales staged, TMA stores: 4 stages beside one buffer a consumer, 3 beside two)
// in 7 waves to 97 %, against 128 x 192's 10 (or stream-K's 9.2, whose promotions cost more)
// and its scales from global memory.
// CHECK-LABEL: func.func @block_scaled_dsv3
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma, buffers = 1>>
func.func @block_scaled_dsv3(%a: memref<4096x16384xf8E4M3FN> {mepi.alignment = 16 : i64},
                             %b: memref<7168x16384xf8E4M3FN> {mepi.alignment = 16 : i64},
                             %sa: memref<4096x128xf32, strided<[1, 4096]>>,
                             %sb: memref<56x128xf32>,
                             %d: memref<4096x7168xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x16384xf8E4M3FN>, memref<7168x16384xf8E4M3FN>)
      outs(%d : memref<4096x7168xbf16>)
      block_scales(%sa, %sb : memref<4096x128xf32, strided<[1, 4096]>>, memref<56x128xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// 64 rows stream B: 64 x 64 (64 tiles, K split in 2: 128 units) before 64 x 128 (32 tiles in
// 4), as many units in one wave and shorter splits.
// CHECK-LABEL: func.func @short_narrow
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 128], mainloop = <stages = 8, promote = 1>, scheduler = <split_k, splits = 2>>
func.func @short_narrow(%a: memref<64x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %b: memref<4096x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %d: memref<64x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x4096xf8E4M3FN>, memref<4096x4096xf8E4M3FN>)
      outs(%d : memref<64x4096xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// 64 rows whose 64 x 64 tiles (213) would take two waves: 64 x 128 (107 tiles, one wave).
// CHECK-LABEL: func.func @short_wide
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 128], mainloop = <stages = 8, promote = 1>>
func.func @short_wide(%a: memref<64x14528xf8E4M3FN> {mepi.alignment = 16 : i64},
                      %b: memref<13632x14528xf8E4M3FN> {mepi.alignment = 16 : i64},
                      %d: memref<64x13632xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x14528xf8E4M3FN>, memref<13632x14528xf8E4M3FN>)
      outs(%d : memref<64x13632xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
