// On sm_90a, 16-bit K-major operands get the wgmma family: ping-pong 128 x 128 with 4 stages
// when K <= 4096 and there are two such tiles per SM, else 128 x 256 in clusters of 2 when that
// covers 132 SMs, 128 x 128 otherwise (and, with 4 stages, for a D of 2^30 elements or more), 64 x 128
// for short M (64 x 256 where those fill the GPU over 32 k-steps or more; stages filling ~200 KiB;
// TMA stores over at most 6 k-steps); with TMA loads
// when rows and addresses are 16-byte aligned, else `tma = false`. When the tiles leave at
// least half of the SMs idle, K is split: up to 132 work units, each of >= 8 k-steps, at most
// 16 splits. Up to 32 rows with an element-wise epilog take the swapped form (Dᵀ = B Aᵀ).
// When the epilog writes D only into a D that TMA can address (a 16-byte aligned
// address, 16-byte rows), D goes through TMA stores in the 128-row kernels, and K <= 4096 takes
// 256 x 128 tiles instead of ping-pong unless the epilog is costly (transcendentals, divisions,
// calls) and there are 16 tiles of 128 x 128 per SM or more; above K = 4096 no ping-pong. A cooperative choice with TMA
// stores whose last wave is at most half full takes stream-K where that should gain 5 %
// (4096 x 4224: 272 pair units on 66 clusters, a last wave of 8); 4096 x 4096 x 14336 (a last
// wave of 58) and 65536 x 16384 (248 waves) keep whole units.
// Where 128 x 192 tiles (in clusters alike) are predicted to spend 10 % more of the SMs' time
// inside D than 128 x 256 (N just past a multiple of 256), they replace them.
// Batched problems take the same forms but stream-K; f32 with K-major A and B takes tile_k 32,
// strict f32 (split into TF32 parts in shared memory) 64-row tiles of one consumer, unbatched.
// Other layouts and other chips keep simt. Where 128 x 128 tiles would not give every SM two, the
// cost model (Sm90CostModel.h) takes the candidate it predicts 5 % faster than the rules' choice.
// The batched, f32, narrow-D, stream-K and 128 x 192 cases: select-config-wgmma-fit.mlir.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config | FileCheck %s --check-prefix=NOCHIP

// D without 16-byte alignment takes no TMA stores: 128 x 256 in clusters of 2 (not ping-pong
// 128 x 128 with staged stores, 1.20-1.23 times the fastest candidate on the sweeps), its lines
// stored by the consumer's threads (store = tma without a D tensor map).
// CHECK-LABEL: func.func @big
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
// NOCHIP-LABEL: func.func @big
// NOCHIP: config = #mepi.kernel_config<simt
func.func @big(%a: memref<4096x1024xbf16> {mepi.alignment = 16 : i64},
               %b: memref<4096x1024xbf16> {mepi.alignment = 16 : i64}, %d: memref<4096x4096xbf16>) {
  mepi.matmul ins(%a, %b : memref<4096x1024xbf16>, memref<4096x1024xbf16>) outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @big_stored
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @big_stored(%a: memref<4096x2048xbf16> {mepi.alignment = 16 : i64},
                      %b: memref<4096x2048xbf16> {mepi.alignment = 16 : i64},
                      %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x2048xbf16>, memref<4096x2048xbf16>) outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Short K (K = 320: 5 k-steps) with TMA stores: ping-pong, one consumer's epilog under the
// other's main loop; for this cheap epilog, where 128-row tiles cover no more rows than 64-row
// ones, 128 x 128, not 64 x 256 (cheapSquarePingpong).
// CHECK-LABEL: func.func @short_k_stored
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_stored(%a: memref<1536x320xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<4096x320xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<1536x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1536x320xbf16>, memref<4096x320xbf16>) outs(%d : memref<1536x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// K = 512 (8 k-steps) is short for the 64 x 256 ping-pong only with a costly epilog; a cheap
// one takes ping-pong 128 x 128 (shortCheapPingpong: 384 tiles in three waves fill them as
// much as 128 x 192's 264 in two, 0.97 with its last column 128 past D).
// CHECK-LABEL: func.func @cheap_k512_stored
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @cheap_k512_stored(%a: memref<1536x512xbf16> {mepi.alignment = 16 : i64},
                             %b: memref<4096x512xbf16> {mepi.alignment = 16 : i64},
                             %d: memref<1536x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1536x512xbf16>, memref<4096x512xbf16>) outs(%d : memref<1536x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// M = 320: 256-row tiles would compute 512 rows where 128-row ones compute 384, so 128 x 256.
// CHECK-LABEL: func.func @m320_stored
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @m320_stored(%a: memref<320x2048xbf16> {mepi.alignment = 16 : i64},
                       %b: memref<16384x2048xbf16> {mepi.alignment = 16 : i64},
                       %d: memref<320x16384xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<320x2048xbf16>, memref<16384x2048xbf16>) outs(%d : memref<320x16384xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 144 tiles of 128 x 128 (just past one wave of 132): one partial wave of 128-row tiles, not
// in clusters, instead of stream-K, as wide as fills the wave best: 120 tiles of 160 columns
// (2400 of them, 96 % inside D) over 72 of 256 (D-only epilog: TMA stores of two whole lines
// a slice, the last half line by the threads).
// CHECK-LABEL: func.func @partial_wave
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 160, 64], mainloop = <stages = 5>, epilogue = <store = tma>>
func.func @partial_wave(%a: memref<1024x2048xbf16> {mepi.alignment = 16 : i64},
                        %b: memref<2304x2048xbf16> {mepi.alignment = 16 : i64},
                        %d: memref<1024x2304xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1024x2048xbf16>, memref<2304x2048xbf16>) outs(%d : memref<1024x2304xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 4416 x 576: 175 tiles of 128 x 128; 160 columns would take two waves (140 tiles), so 105
// tiles of 192 (TMA stores: whole lines) rather than 105 of 224 or 256, more of which lies
// outside D. (With N <= 512 the swapped form's fitted height comes first: @fitted_height.)
// CHECK-LABEL: func.func @partial_wave_192
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @partial_wave_192(%a: memref<4416x1472xbf16> {mepi.alignment = 16 : i64},
                            %b: memref<576x1472xbf16> {mepi.alignment = 16 : i64},
                            %d: memref<4416x576xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4416x1472xbf16>, memref<576x1472xbf16>) outs(%d : memref<4416x576xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The same partial wave with B given as [K, N] (MN-major: 64-row blocks of B per load): 160 is
// no width for it, 96 tiles of 192 are.
// CHECK-LABEL: func.func @partial_wave_mn_major_b
// CHECK: tile = [128, 192, 64]
func.func @partial_wave_mn_major_b(%a: memref<1024x2048xbf16> {mepi.alignment = 16 : i64},
                                   %b: memref<2048x2304xbf16> {mepi.alignment = 16 : i64},
                                   %d: memref<1024x2304xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1024x2048xbf16>, memref<2048x2304xbf16>) outs(%d : memref<1024x2304xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The partial wave above K = 16384 too (1024 x 2368 x 25216: 152 tiles of 128 x 128): 120
// tiles of 160 columns in one wave, not stream-K over the 128 x 128 ones.
// CHECK-LABEL: func.func @partial_wave_long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 160, 64], mainloop = <stages = 5>, epilogue = <store = tma>>
func.func @partial_wave_long_k(%a: memref<1024x25216xbf16> {mepi.alignment = 16 : i64},
                               %b: memref<2368x25216xbf16> {mepi.alignment = 16 : i64},
                               %d: memref<1024x2368xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1024x25216xbf16>, memref<2368x25216xbf16>) outs(%d : memref<1024x2368xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// A narrow D (N <= 512) of few tiles: the swapped form with a fitted height, two consumers, TMA
// stores: 11520 x 256 in 176 x 128 tiles is 66 x 2 = 132 tiles (one wave), against 90 of
// 128 x 256.
// CHECK-LABEL: func.func @fitted_height
// CHECK: config = #mepi.kernel_config<wgmma, tile = [176, 128, 64], mainloop = <stages = 5>, epilogue = <store = tma>, swapped = true>
func.func @fitted_height(%a: memref<11520x37312xbf16> {mepi.alignment = 16 : i64},
                         %b: memref<256x37312xbf16> {mepi.alignment = 16 : i64},
                         %d: memref<11520x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<11520x37312xbf16>, memref<256x37312xbf16>) outs(%d : memref<11520x256xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 256 x 128 or 128 x 192, whichever's waves fall more inside D (ties to 128 x 192;
// WgmmaHeuristic::narrowerThan256x128): 25600 x 512 is 400 tiles of 256 x 128 (four waves, the
// last 0.03 full: 0.76 of the time inside D) against 600 of 128 x 192 (five, 0.55; 0.81 with
// the third column's 64 past D); 30720 x 512 is 480 against 720 (four waves, 0.91, against six,
// 0.81): 256 x 128.
// CHECK-LABEL: func.func @narrower_than_256x128
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @narrower_than_256x128(%a: memref<25600x1152xf16> {mepi.alignment = 16 : i64},
                                 %b: memref<512x1152xf16> {mepi.alignment = 16 : i64},
                                 %d: memref<25600x512xf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<25600x1152xf16>, memref<512x1152xf16>) outs(%d : memref<25600x512xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to f16
    mepi.yield %r : f16
  }
  return
}

// -----

// CHECK-LABEL: func.func @not_narrower_than_256x128
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @not_narrower_than_256x128(%a: memref<30720x1152xf16> {mepi.alignment = 16 : i64},
                                     %b: memref<512x1152xf16> {mepi.alignment = 16 : i64},
                                     %d: memref<30720x512xf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<30720x1152xf16>, memref<512x1152xf16>) outs(%d : memref<30720x512xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to f16
    mepi.yield %r : f16
  }
  return
}

// -----

// Where no height of 64 rows or more fills the wave: 48-row swapped tiles of two consumers,
// split along K into as many ranges as one wave holds (WgmmaHeuristic::lowSplitHeight):
// 768 x 128 is 16 tiles, in 8 splits of 32 k-steps 128 units; 4800 x 128 is 100 tiles unsplit.
// CHECK-LABEL: func.func @low_split_height
// CHECK: config = #mepi.kernel_config<wgmma, tile = [48, 128, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 8>, epilogue = <store = tma>, swapped = true>
func.func @low_split_height(%a: memref<768x16128xbf16> {mepi.alignment = 16 : i64},
                           %b: memref<128x16128xbf16> {mepi.alignment = 16 : i64},
                           %d: memref<768x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<768x16128xbf16>, memref<128x16128xbf16>) outs(%d : memref<768x128xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @low_height_whole_units
// CHECK: config = #mepi.kernel_config<wgmma, tile = [48, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>, swapped = true>
func.func @low_height_whole_units(%a: memref<4800x8064xbf16> {mepi.alignment = 16 : i64},
                                 %b: memref<128x8064xbf16> {mepi.alignment = 16 : i64},
                                 %d: memref<4800x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4800x8064xbf16>, memref<128x8064xbf16>) outs(%d : memref<4800x128xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// N = 192: a quarter of the 128-column tiles' columns would lie outside D (48-row tiles ran
// 1.2-1.3x slower there): the unswapped split-K tiles stay.
// CHECK-LABEL: func.func @low_height_not_for_192_columns
// CHECK-NOT: swapped = true
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 2>, epilogue = <store = tma>>
func.func @low_height_not_for_192_columns(%a: memref<1024x8768xbf16> {mepi.alignment = 16 : i64},
                                         %b: memref<192x8768xbf16> {mepi.alignment = 16 : i64},
                                         %d: memref<1024x192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1024x8768xbf16>, memref<192x8768xbf16>) outs(%d : memref<1024x192xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The same class where the best two-consumer height fills less than 0.85 of its waves
// (8576 x 320: 42 x 3 = 126 tiles of 208 x 128, 384 columns for 320: 0.78): the rules'
// 256 x 128.
// CHECK-LABEL: func.func @fitted_height_poor_fill
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @fitted_height_poor_fill(%a: memref<8576x53568xbf16> {mepi.alignment = 16 : i64},
                                   %b: memref<320x53568xbf16> {mepi.alignment = 16 : i64},
                                   %d: memref<8576x320xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8576x53568xbf16>, memref<320x53568xbf16>) outs(%d : memref<8576x320xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Split-K's width fitted to the wave: 48 tiles of 128 x 128 split in 2 fill 96 of 132 SMs;
// 32 of 128 x 192 split in 4 fill 128 (1472 of their 1536 columns inside D). B (81 MiB) is
// larger than half of L2: the four tile rows in pairs sharing it (PairedSplitRules.cpp).
// CHECK-LABEL: func.func @split_width
// CHECK: tile = [128, 192, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <split_k, splits = 4>, epilogue = <store = tma>
func.func @split_width(%a: memref<512x28928xf16> {mepi.alignment = 16 : i64},
                       %b: memref<1472x28928xf16> {mepi.alignment = 16 : i64},
                       %d: memref<512x1472xf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<512x28928xf16>, memref<1472x28928xf16>) outs(%d : memref<512x1472xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to f16
    mepi.yield %r : f16
  }
  return
}

// -----

// An epilog of special ops (an exp and a division per element) takes ping-pong 128 x 128, 6
// stages, with TMA stores (WgmmaHeuristic::pingpongForm).
// CHECK-LABEL: func.func @big_stored_costly
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @big_stored_costly(%a: memref<4096x1024xbf16> {mepi.alignment = 16 : i64},
                             %b: memref<14336x1024xbf16> {mepi.alignment = 16 : i64},
                             %d: memref<4096x14336xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x1024xbf16>, memref<14336x1024xbf16>) outs(%d : memref<4096x14336xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %e = math.exp %acc : f32
    %s = arith.addf %one, %e : f32
    %x = arith.divf %acc, %s : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The same problem with the built-in GELU's form (exp2 and a division with fastmath<afn>, one
// MUFU instruction each: an Approximate epilog): ping-pong as well.
// CHECK-LABEL: func.func @big_stored_approximate
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @big_stored_approximate(%a: memref<4096x1024xbf16> {mepi.alignment = 16 : i64},
                                  %b: memref<14336x1024xbf16> {mepi.alignment = 16 : i64},
                                  %d: memref<4096x14336xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x1024xbf16>, memref<14336x1024xbf16>) outs(%d : memref<4096x14336xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %e = math.exp2 %acc fastmath<afn> : f32
    %s = arith.addf %one, %e : f32
    %x = arith.divf %acc, %s fastmath<afn> : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// An Approximate epilog at short K (2 k-steps) keeps the 64 x 256 ping-pong even with many
// tiles per SM, as an Expanded one does.
// CHECK-LABEL: func.func @short_k_approximate
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_approximate(%a: memref<13696x128xbf16> {mepi.alignment = 16 : i64},
                               %b: memref<10816x128xbf16> {mepi.alignment = 16 : i64},
                               %d: memref<13696x10816xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<13696x128xbf16>, memref<10816x128xbf16>) outs(%d : memref<13696x10816xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %e = math.exp2 %acc fastmath<afn> : f32
    %s = arith.addf %one, %e : f32
    %x = arith.divf %acc, %s fastmath<afn> : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @big_long_k_stored
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @big_long_k_stored(%a: memref<4096x8192xbf16> {mepi.alignment = 16 : i64},
                             %b: memref<4096x8192xbf16> {mepi.alignment = 16 : i64},
                             %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x8192xbf16>, memref<4096x8192xbf16>) outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// A costly epilog at K = 8192, even with 64 x 64 tiles of 128 x 128 (16 or more per SM): no
// ping-pong above K = 4096 (its 4 stages starve long main loops), 128 x 256 in clusters.
// CHECK-LABEL: func.func @big_long_k_costly
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @big_long_k_costly(%a: memref<8192x8192xbf16> {mepi.alignment = 16 : i64},
                             %b: memref<8192x8192xbf16> {mepi.alignment = 16 : i64},
                             %d: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x8192xbf16>, memref<8192x8192xbf16>) outs(%d : memref<8192x8192xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %e = math.tanh %acc : f32
    %r = arith.truncf %e : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @big_long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @big_long_k(%a: memref<4096x8192xbf16> {mepi.alignment = 16 : i64},
                      %b: memref<4096x8192xbf16> {mepi.alignment = 16 : i64}, %d: memref<4096x4096xbf16>) {
  mepi.matmul ins(%a, %b : memref<4096x8192xbf16>, memref<4096x8192xbf16>) outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @few_tiles
// 64 tiles of 128 x 128 and 16 k-steps (too few to split): 128 tiles of 128 x 64, in one wave.
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 8>>
func.func @few_tiles(%a: memref<1000x1000xf16> {mepi.alignment = 16 : i64},
                     %b: memref<1000x1000xf16> {mepi.alignment = 16 : i64}, %d: memref<1000x1000xf32>) {
  mepi.matmul ins(%a, %b : memref<1000x1000xf16>, memref<1000x1000xf16>) outs(%d : memref<1000x1000xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @short_m
// 16 rows: the swapped form, 16 x 64 tiles with 16 stages.
// CHECK: config = #mepi.kernel_config<wgmma, tile = [16, 64, 64], mainloop = <stages = 16>, swapped = true>
func.func @short_m(%a: memref<16x8192xbf16> {mepi.alignment = 16 : i64},
                   %b: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}, %d: memref<16x8192xbf16>) {
  mepi.matmul ins(%a, %b : memref<16x8192xbf16>, memref<8192x8192xbf16>) outs(%d : memref<16x8192xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @short_m_wide
// 16 rows past one wave of 64-column tiles (448 of them): the swapped form 128 columns wide.
// CHECK: config = #mepi.kernel_config<wgmma, tile = [16, 128, 64], mainloop = <stages = 11>, swapped = true>
func.func @short_m_wide(%a: memref<16x4096xbf16> {mepi.alignment = 16 : i64},
                        %b: memref<28672x4096xbf16> {mepi.alignment = 16 : i64},
                        %d: memref<16x28672xbf16>) {
  mepi.matmul ins(%a, %b : memref<16x4096xbf16>, memref<28672x4096xbf16>) outs(%d : memref<16x28672xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @short_m48
// 48 rows: the rules take 64 tiles of 64 x 128 with 132 / 64 = 2 splits; the cost model
// (few tiles: it decides) predicts the swapped form's 128 whole units of 64 x 64 faster.
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 12>, swapped = true>
func.func @short_m48(%a: memref<48x8192xbf16> {mepi.alignment = 16 : i64},
                   %b: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}, %d: memref<48x8192xbf16>) {
  mepi.matmul ins(%a, %b : memref<48x8192xbf16>, memref<8192x8192xbf16>) outs(%d : memref<48x8192xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Short M over a wide D: 64 x 256 tiles where they fill the GPU and K has 32 k-steps or more,
// else 64 x 128; with at most 6 k-steps D leaves through TMA stores. K = 128: 2 k-steps.
// CHECK-LABEL: func.func @short_m_short_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
func.func @short_m_short_k(%a: memref<64x128xbf16> {mepi.alignment = 16 : i64},
    %b: memref<35584x128xbf16> {mepi.alignment = 16 : i64}, %d: memref<64x35584xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x128xbf16>, memref<35584x128xbf16>) outs(%d : memref<64x35584xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// K = 1024: 16 k-steps; 64 x 128 with staged rows would make 320 tiles (a last wave of 56), 64 x
// 160 makes 256, 1.2 times the share inside D (shortRowWaveFit).
// CHECK-LABEL: func.func @short_m_mid_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 160, 64], mainloop = <stages = 7>>
func.func @short_m_mid_k(%a: memref<64x1024xbf16> {mepi.alignment = 16 : i64},
    %b: memref<40960x1024xbf16> {mepi.alignment = 16 : i64}, %d: memref<64x40960xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x1024xbf16>, memref<40960x1024xbf16>) outs(%d : memref<64x40960xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// K = 4992: 78 k-steps, the 64 x 256 tiles (202 of them) fill the GPU.
// CHECK-LABEL: func.func @short_m_long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 5>, epilogue = <store = tma>>
func.func @short_m_long_k(%a: memref<64x4992xbf16> {mepi.alignment = 16 : i64},
    %b: memref<51520x4992xbf16> {mepi.alignment = 16 : i64}, %d: memref<64x51520xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x4992xbf16>, memref<51520x4992xbf16>) outs(%d : memref<64x51520xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @unaligned_pointer
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, tma = false>>
func.func @unaligned_pointer(%a: memref<256x256xbf16> {mepi.alignment = 8 : i64},
                             %b: memref<256x256xbf16> {mepi.alignment = 16 : i64}, %d: memref<256x256xbf16>) {
  mepi.matmul ins(%a, %b : memref<256x256xbf16>, memref<256x256xbf16>) outs(%d : memref<256x256xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 128 x 4096 x 14336 (an LLM down projection at batch 128): 128 rows take 64-row tiles, 64 of
// them, 224 k-steps: 2 splits; the two tile rows in a pair sharing B (112 MiB).
// CHECK-LABEL: func.func @long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8, cluster = 2>, scheduler = <split_k, splits = 2>>
func.func @long_k(%a: memref<128x14336xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<4096x14336xbf16> {mepi.alignment = 16 : i64}, %d: memref<128x4096xbf16>) {
  mepi.matmul ins(%a, %b : memref<128x14336xbf16>, memref<4096x14336xbf16>) outs(%d : memref<128x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// K = 4099: a row pitch of 8198 bytes, not a multiple of 16.
// CHECK-LABEL: func.func @odd_pitch
// 4 tiles, 65 k-steps: 65 / 8 = 8 splits.
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, tma = false>, scheduler = <split_k, splits = 8>>
func.func @odd_pitch(%a: memref<256x4099xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<256x4099xbf16> {mepi.alignment = 16 : i64}, %d: memref<256x256xbf16>) {
  mepi.matmul ins(%a, %b : memref<256x4099xbf16>, memref<256x4099xbf16>) outs(%d : memref<256x256xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// B not transposed (N-major): not the K-major layout the kernel reads.
// CHECK-LABEL: func.func @f32
// CHECK: config = #mepi.kernel_config<simt
func.func @f32(%a: memref<256x256xf32> {mepi.alignment = 16 : i64},
               %b: memref<256x256xf32> {mepi.alignment = 16 : i64}, %d: memref<256x256xf32>) {
  mepi.matmul ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%d : memref<256x256xf32>)
      epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

// B [K, N] (N-major) is read transposed by the wgmma family.
// CHECK-LABEL: func.func @n_major_b
// CHECK: config = #mepi.kernel_config<wgmma
func.func @n_major_b(%a: memref<256x256xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<256x256xbf16> {mepi.alignment = 16 : i64}, %d: memref<256x256xbf16>) {
  mepi.matmul ins(%a, %b : memref<256x256xbf16>, memref<256x256xbf16>) outs(%d : memref<256x256xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 65536 x 16384 x 8192 (a D of 2^30 elements) that TMA cannot address: 128 x 128 with 4
// stages, its lines stored by the consumer's threads.
// CHECK-LABEL: func.func @huge
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @huge(%a: memref<65536x8192xf16> {mepi.alignment = 16 : i64},
                %b: memref<16384x8192xf16> {mepi.alignment = 16 : i64}, %d: memref<65536x16384xf16>) {
  mepi.matmul ins(%a, %b : memref<65536x8192xf16>, memref<16384x8192xf16>) outs(%d : memref<65536x16384xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to f16
    mepi.yield %r : f16
  }
  return
}

// -----

// The same with TMA stores of D: 128 x 256 in clusters of 2.
// CHECK-LABEL: func.func @huge_stored
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @huge_stored(%a: memref<65536x8192xf16> {mepi.alignment = 16 : i64},
                       %b: memref<16384x8192xf16> {mepi.alignment = 16 : i64},
                       %d: memref<65536x16384xf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<65536x8192xf16>, memref<16384x8192xf16>) outs(%d : memref<65536x16384xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to f16
    mepi.yield %r : f16
  }
  return
}

// -----

// CHECK-LABEL: func.func @short_tail
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>, epilogue = <store = tma>>
func.func @short_tail(%a: memref<4096x8192xbf16> {mepi.alignment = 16 : i64},
                      %b: memref<4224x8192xbf16> {mepi.alignment = 16 : i64},
                      %d: memref<4096x4224xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x8192xbf16>, memref<4224x8192xbf16>) outs(%d : memref<4096x4224xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @long_tail
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @long_tail(%a: memref<4096x14336xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<4096x14336xbf16> {mepi.alignment = 16 : i64},
                     %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x14336xbf16>, memref<4096x14336xbf16>) outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Batched problems take ping-pong 128 x 128, 6 stages, with TMA stores, for any epilog from 8
// k-steps on (WgmmaHeuristic::pingpongForm): 16 x 1024^3 DEFAULT.
// CHECK-LABEL: func.func @batched_pingpong
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @batched_pingpong(%a: memref<16x1024x1024xbf16> {mepi.alignment = 16 : i64},
                            %b: memref<16x1024x1024xbf16> {mepi.alignment = 16 : i64},
                            %d: memref<16x1024x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x1024x1024xbf16>, memref<16x1024x1024xbf16>) outs(%d : memref<16x1024x1024xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// A cheap epilog over 32 k-steps or more (K = 4096) whose 128 x 128 waves fall no more inside D
// than 128 x 256's: 128 x 256, which batched problems take where its waves are at least 256 x
// 128's.
// CHECK-LABEL: func.func @batched_long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @batched_long_k(%a: memref<4x2048x4096xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<4x2048x4096xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<4x2048x2048xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4x2048x4096xbf16>, memref<4x2048x4096xbf16>) outs(%d : memref<4x2048x2048xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Four k-steps with special ops: the short-K 64 x 256 ping-pong, as unbatched.
// CHECK-LABEL: func.func @batched_short_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @batched_short_k(%a: memref<12x2368x256xf16> {mepi.alignment = 16 : i64},
                           %b: memref<12x3136x256xf16> {mepi.alignment = 16 : i64},
                           %d: memref<12x2368x3136xf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<12x2368x256xf16>, memref<12x3136x256xf16>) outs(%d : memref<12x2368x3136xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %e = math.exp2 %acc fastmath<afn> : f32
    %s = arith.addf %one, %e : f32
    %x = arith.divf %acc, %s fastmath<afn> : f32
    %r = arith.truncf %x : f32 to f16
    mepi.yield %r : f16
  }
  return
}

// -----

// Rows of 2000 bytes start off L2's sectors: 128 x 256 in clusters of 2, B multicast halving
// B's L2 requests (7 x 1000^3 ran ping-pong at 0.69 of cuBLASLt, 256 x 128 at 0.89-0.92, this
// at 1.04-1.05).
// CHECK-LABEL: func.func @batched_off_sectors
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>
func.func @batched_off_sectors(%a: memref<7x1000x1000xbf16> {mepi.alignment = 16 : i64},
                               %b: memref<7x1000x1000xbf16> {mepi.alignment = 16 : i64},
                               %d: memref<7x1000x1000xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<7x1000x1000xbf16>, memref<7x1000x1000xbf16>) outs(%d : memref<7x1000x1000xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 32 k-steps, cheap epilog, 128 x 128 waves fuller than 128 x 256's (8 x 1536^2 x 2048: 1152
// tiles in 8.7 waves against 576 in 4.4): ping-pong.
// CHECK-LABEL: func.func @batched_long_k_waves
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @batched_long_k_waves(%a: memref<8x1536x2048xbf16> {mepi.alignment = 16 : i64},
                                %b: memref<8x1536x2048xbf16> {mepi.alignment = 16 : i64},
                                %d: memref<8x1536x1536xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8x1536x2048xbf16>, memref<8x1536x2048xbf16>) outs(%d : memref<8x1536x1536xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// Short K where 64 x 192 tiles take fewer columns of waves: 4928 x 832 has 77 x 5 = 385 tiles of
// 192 (3 waves of 132, 576 columns) against 77 x 4 = 308 of 256 (3 waves, 768 columns), at most
// 0.90 of them: 64 x 192 ping-pong.
// CHECK-LABEL: func.func @short_k_narrow
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 192, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_narrow(%a: memref<4928x128xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<832x128xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<4928x832xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4928x128xbf16>, memref<832x128xbf16>) outs(%d : memref<4928x832xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// 7808 x 896: 122 x 5 = 610 tiles of 192 (5 waves, 960 columns) against 122 x 4 = 488 of 256
// (4 waves, 1024 columns), 0.94 of them: 64 x 256 stays (an epilog of special ops; a cheap one
// would take ping-pong 128 x 128).
// CHECK-LABEL: func.func @short_k_wide_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_wide_kept(%a: memref<7808x128xbf16> {mepi.alignment = 16 : i64},
                             %b: memref<896x128xbf16> {mepi.alignment = 16 : i64},
                             %d: memref<7808x896xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<7808x128xbf16>, memref<896x128xbf16>) outs(%d : memref<7808x896xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %e = math.exp2 %acc fastmath<afn> : f32
    %s = arith.addf %one, %e : f32
    %x = arith.divf %acc, %s fastmath<afn> : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// D of 320 columns over many tiles: 128 x 160 (two tile columns inside D) where 128 x 192
// puts a sixth of its columns outside: 312 x 2 tiles of 160 fill 5 waves 0.95 inside D,
// 128 x 192's 0.79, 256 x 128's 0.74. With an epilog of special ops too (before ping-pong).
// CHECK-LABEL: func.func @narrow_line_fit
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 160, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @narrow_line_fit(%a: memref<39872x2304xbf16> {mepi.alignment = 16 : i64},
                           %b: memref<320x2304xbf16> {mepi.alignment = 16 : i64},
                           %d: memref<39872x320xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<39872x2304xbf16>, memref<320x2304xbf16>) outs(%d : memref<39872x320xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %e = math.exp2 %acc fastmath<afn> : f32
    %s = arith.addf %one, %e : f32
    %x = arith.divf %acc, %s fastmath<afn> : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// 8576 x 320 x 53568: 134 tiles of 160 make two waves, 256 x 128's 102 one: no 160.
// CHECK-LABEL: func.func @narrow_line_two_waves
// CHECK-NOT: tile = [128, 160, 64]
// CHECK: return
func.func @narrow_line_two_waves(%a: memref<8576x53568xbf16> {mepi.alignment = 16 : i64},
                                 %b: memref<320x53568xbf16> {mepi.alignment = 16 : i64},
                                 %d: memref<8576x320xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8576x53568xbf16>, memref<320x53568xbf16>) outs(%d : memref<8576x320xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// Short K with an epilog of special ops over D of 320 columns: the 64-row ping-pong 160 wide
// (10 waves of 1214 tiles: 1600 columns against 64 x 192's 1920).
// CHECK-LABEL: func.func @short_k_narrow_line
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 160, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_narrow_line(%a: memref<38848x512xbf16> {mepi.alignment = 16 : i64},
                               %b: memref<320x512xbf16> {mepi.alignment = 16 : i64},
                               %d: memref<38848x320xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<38848x512xbf16>, memref<320x512xbf16>) outs(%d : memref<38848x320xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %e = math.exp2 %acc fastmath<afn> : f32
    %s = arith.addf %one, %e : f32
    %x = arith.divf %acc, %s fastmath<afn> : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 8-16 k-steps with a cheap epilog, where 128 x 192 fills the waves more than ping-pong 128 x
// 128 would (shortCheapPingpong: 31872 x 1728 is 2241 tiles of 128 x 192 in 17 whole waves,
// 3486 of 128 x 128 in 27 with the last column 64 past D, 0.944 of the share): 128 x 192.
// CHECK-LABEL: func.func @short_cheap_keeps_128x192
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @short_cheap_keeps_128x192(%a: memref<31872x960xbf16> {mepi.alignment = 16 : i64},
                                     %b: memref<1728x960xbf16> {mepi.alignment = 16 : i64},
                                     %d: memref<31872x1728xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<31872x960xbf16>, memref<1728x960xbf16>)
      outs(%d : memref<31872x1728xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
