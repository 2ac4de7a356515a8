// The wgmma family's choices fitted to the problem beyond select-config-wgmma.mlir's rules:
// batched problems (no stream-K), f32 operands (tile_k 32; strict f32 64-row tiles), a D 128
// columns wide, few tiles over a long K, D rows TMA cannot address, stream-K for line stores,
// and 128 x 192 tiles where N is just past a multiple of 256.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// A batch of 8 problems of 1216 x 384 x 3456 (the sweep's sw201): 48 pair units of 128 x 256 on
// 66 clusters leave a short last wave, but batched kernels take no stream-K form: whole units.
// With 240 tiles of 128 x 128 (under two per multiprocessor) the cost model decides: 256 x 128,
// which autotune() measured 1.96x faster than the rules' 128 x 256 in clusters (sweep-autotune).
// CHECK-LABEL: func.func @batched_no_stream_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @batched_no_stream_k(%a: memref<8x1216x3456xbf16> {mepi.alignment = 16 : i64},
                               %b: memref<8x384x3456xbf16> {mepi.alignment = 16 : i64},
                               %d: memref<8x1216x384xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8x1216x3456xbf16>, memref<8x384x3456xbf16>)
      outs(%d : memref<8x1216x384xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// f32 A and B at TF32 precision, both K-major and TMA-addressable: the wgmma family with
// 32-element lines of K (tile_k 32); strict f32 64 rows and at most 128 columns of the tile
// the rules give (each stage split in shared memory beside a buffer of its low parts: 4 stages
// of 64 x 128); an MN-major B keeps simt.
// CHECK-LABEL: func.func @tf32
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 32], mainloop = <stages = 4>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @f32_strict
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 32], mainloop = <stages = 4>>
// CHECK-LABEL: func.func @tf32_mn_major_b
// CHECK: config = #mepi.kernel_config<simt
func.func @tf32(%a: memref<2000x1024xf32> {mepi.alignment = 16 : i64},
                %b: memref<4096x1024xf32> {mepi.alignment = 16 : i64},
                %d: memref<2000x4096xf32> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2000x1024xf32>, memref<4096x1024xf32>)
      outs(%d : memref<2000x4096xf32>) attributes {transpose_b, compute = #mepi.compute<fast_tf32>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
func.func @f32_strict(%a: memref<2000x1024xf32> {mepi.alignment = 16 : i64},
                      %b: memref<4096x1024xf32> {mepi.alignment = 16 : i64},
                      %d: memref<2000x4096xf32> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2000x1024xf32>, memref<4096x1024xf32>)
      outs(%d : memref<2000x4096xf32>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
func.func @tf32_mn_major_b(%a: memref<2000x1024xf32> {mepi.alignment = 16 : i64},
                           %b: memref<1024x4096xf32> {mepi.alignment = 16 : i64},
                           %d: memref<2000x4096xf32> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2000x1024xf32>, memref<1024x4096xf32>)
      outs(%d : memref<2000x4096xf32>) attributes {compute = #mepi.compute<fast_tf32>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

// A D 128 columns wide takes 128-column tiles even where 256-column ones would fill the GPU:
// half of a 256-column tile would lie outside D (512 batch elements of 128 x 128 x 64). One
// k-step: TMA stores.
// CHECK-LABEL: func.func @narrow_n
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
func.func @narrow_n(%a: memref<512x128x64xbf16> {mepi.alignment = 16 : i64},
                    %b: memref<512x128x64xbf16> {mepi.alignment = 16 : i64},
                    %d: memref<512x128x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<512x128x64xbf16>, memref<512x128x64xbf16>)
      outs(%d : memref<512x128x128xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Few tiles and a long K (the sweep's sw120, 576 x 128 x 7488 fp16): the rules split 10 tiles of
// 128 x 128 14 ways; the cost model takes 64 x 64 tiles split 4 ways, which autotune() timed at
// 12.7 us against the rules' 20.3 us on the H200 (bench/results/sweep-autotune.json); its 18
// tiles then take the 7 splits that fill the machine (126 units), D from the registers
// (narrowSplitFill).
// CHECK-LABEL: func.func @few_tiles_long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 7>>
func.func @few_tiles_long_k(%a: memref<576x7488xf16> {mepi.alignment = 16 : i64},
                            %b: memref<128x7488xf16> {mepi.alignment = 16 : i64},
                            %d: memref<576x128xf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<576x7488xf16>, memref<128x7488xf16>) outs(%d : memref<576x128xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to f16
    mepi.yield %r : f16
  }
  return
}

// -----

// D rows of 2266 bytes (1133 bf16), which TMA cannot address: the heuristic's tile stores its
// lines through the consumer's threads (store = tma; 216 -> 377 TFLOP/s on an H100 against the
// staged form).
// CHECK-LABEL: func.func @odd_columns(
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @odd_columns(%a: memref<8704x824xbf16> {mepi.alignment = 16 : i64},
                       %b: memref<1133x824xbf16> {mepi.alignment = 16 : i64},
                       %d: memref<8704x1133xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8704x824xbf16>, memref<1133x824xbf16>) outs(%d : memref<8704x1133xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Stream-K's rule holds for line stores too: over the 15 sweep problems it takes, whole units
// ran 0.9 % slower in geomean (42578 x 331 x 15656 7 % faster, 4783 x 914 x 51339 25 % slower).
// 128 x 192 would put 7 % more of its columns inside D but leave a longer stream-K tail (29
// pair units of 66 against 10): predicted 0.99 of 128 x 256's share, so 128 x 256 stays.
// CHECK-LABEL: func.func @odd_columns_stream_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>, epilogue = <store = tma>>
func.func @odd_columns_stream_k(%a: memref<4783x51344xbf16> {mepi.alignment = 16 : i64},
    %b: memref<914x51344xbf16> {mepi.alignment = 16 : i64},
    %d: memref<4783x914xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4783x51344xbf16>, memref<914x51344xbf16>) outs(%d : memref<4783x914xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// N just past a multiple of 256: 128 x 256 tiles compute a quarter of their columns outside D
// (576 of 768), 128 x 192 none, in the same three waves: 128 x 192 in clusters of 2 (H100: 490
// -> 761 TFLOP/s).
// CHECK-LABEL: func.func @column_fitted
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @column_fitted(%a: memref<16384x8192xbf16> {mepi.alignment = 16 : i64},
    %b: memref<576x8192xbf16> {mepi.alignment = 16 : i64},
    %d: memref<16384x576xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16384x8192xbf16>, memref<576x8192xbf16>) outs(%d : memref<16384x576xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The same with a short last wave (stream-K for either width) and D's rows through the
// consumer's threads (331 columns): 331 of 384 columns inside D against 331 of 512 (356 -> 491).
// CHECK-LABEL: func.func @column_fitted_stream_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>, epilogue = <store = tma>>
func.func @column_fitted_stream_k(%a: memref<42578x15656xbf16> {mepi.alignment = 16 : i64},
    %b: memref<331x15656xbf16> {mepi.alignment = 16 : i64},
    %d: memref<42578x331xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<42578x15656xbf16>, memref<331x15656xbf16>) outs(%d : memref<42578x331xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The same D with B given as [K, N]: in clusters of 2 such a B loads 128-column blocks, so
// 128 x 192 cannot pair up and 128 x 256 stays.
// CHECK-LABEL: func.func @column_fit_mn_major_b
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @column_fit_mn_major_b(%a: memref<16384x8192xbf16> {mepi.alignment = 16 : i64},
    %b: memref<8192x576xbf16> {mepi.alignment = 16 : i64},
    %d: memref<16384x576xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16384x8192xbf16>, memref<8192x576xbf16>) outs(%d : memref<16384x576xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Predicted 7 % more inside D with 128 x 192 (all 960 columns against 960 of 1024, in 5 waves of
// pair units against 4, both nearly full): under 10 %, 128 x 256 stays (forced, 192 ran 1.00x).
// CHECK-LABEL: func.func @column_fit_small_gain
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @column_fit_small_gain(%a: memref<15552x24064xbf16> {mepi.alignment = 16 : i64},
    %b: memref<960x24064xbf16> {mepi.alignment = 16 : i64},
    %d: memref<15552x960xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<15552x24064xbf16>, memref<960x24064xbf16>) outs(%d : memref<15552x960xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// A batch of 192-row elements (a quarter of 128-row tiles' rows outside D), 24 k-steps: ping-pong
// 64 x 256 (batchRowFit), whose waves fall much more inside D; 576-row elements (a tenth
// outside) keep ping-pong 128 x 128.
// CHECK-LABEL: func.func @batch_rows_192
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @batch_rows_576
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @batch_rows_192(%a: memref<117x192x1536xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<117x3776x1536xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<117x192x3776xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<117x192x1536xbf16>, memref<117x3776x1536xbf16>)
      outs(%d : memref<117x192x3776xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @batch_rows_576(%a: memref<26x576x3008xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<26x1088x3008xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<26x576x1088xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<26x576x3008xbf16>, memref<26x1088x3008xbf16>)
      outs(%d : memref<26x576x1088xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
