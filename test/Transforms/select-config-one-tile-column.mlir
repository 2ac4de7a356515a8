// A narrow D (at most 256 columns) of many rows that the swapped form does not take (A given as
// [K, M], or too few columns for its 128) gets one tile column as wide as D, so that A is read
// once: 64 or 128 rows high, whichever fills the wave more (the taller on ties), in at most two
// waves and where that fills 0.6 of them; TMA stores where D's lines fit the width, else staged.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// 8192 x 128 x 8192 (torch.mm's 128 x 8192 x 8192 with a bias per column, transposed): 128
// tiles of 64 x 128 (not two tile columns of 128 x 64).
// CHECK-LABEL: func.func @m128
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
func.func @m128(%a: memref<8192x8192xbf16> {mepi.alignment = 16 : i64},
                %b: memref<128x8192xbf16> {mepi.alignment = 16 : i64},
                %d: memref<8192x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x8192xbf16>, memref<128x8192xbf16>) outs(%d : memref<8192x128xbf16>)
      attributes {transpose_a, transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 16 columns: 128 x 32 (112 tiles; 64 x 32's 224 fill the waves alike), staged (no 32-column
// TMA lines of 16-bit D). A K-major A takes it too: the swapped form's 128 columns would be
// mostly outside D.
// CHECK-LABEL: func.func @decode_mn_major
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 32, 64], mainloop = <stages = 8>>
// CHECK-LABEL: func.func @decode_k_major
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 32, 64], mainloop = <stages = 8>>
func.func @decode_mn_major(%a: memref<4096x14336xbf16> {mepi.alignment = 16 : i64},
                           %b: memref<16x4096xbf16> {mepi.alignment = 16 : i64},
                           %d: memref<14336x16xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x14336xbf16>, memref<16x4096xbf16>) outs(%d : memref<14336x16xbf16>)
      attributes {transpose_a, transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @decode_k_major(%a: memref<14336x4096xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<16x4096xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<14336x16xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<14336x4096xbf16>, memref<16x4096xbf16>) outs(%d : memref<14336x16xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 96 columns, 86 tiles of 128 rows (a share of 0.65; 64 rows fill no more): 128 x 96.
// CHECK-LABEL: func.func @share_065
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 96, 64], mainloop = <stages = 7>>
func.func @share_065(%a: memref<4096x11008xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<96x4096xbf16> {mepi.alignment = 16 : i64},
                     %d: memref<11008x96xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x11008xbf16>, memref<96x4096xbf16>) outs(%d : memref<11008x96xbf16>)
      attributes {transpose_a, transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Below the share: 4096 x 64 x 4096 (64 tiles of 64 rows, 0.48) keeps split-K.
// CHECK-LABEL: func.func @below_share
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 2>
func.func @below_share(%a: memref<4096x4096xbf16> {mepi.alignment = 16 : i64},
                       %b: memref<64x4096xbf16> {mepi.alignment = 16 : i64},
                       %d: memref<4096x64xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x4096xbf16>, memref<64x4096xbf16>) outs(%d : memref<4096x64xbf16>)
      attributes {transpose_a, transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 64 x 96 would fill 0.62 of a wave; 128 x 128 in 3 splits fill 0.93: split-K stays.
// CHECK-LABEL: func.func @split_fills_more
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 3>, epilogue = <store = tma>>
func.func @split_fills_more(%a: memref<5227x56928xbf16> {mepi.alignment = 16 : i64},
                            %b: memref<98x56928xbf16> {mepi.alignment = 16 : i64},
                            %d: memref<5227x98xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<5227x56928xbf16>, memref<98x56928xbf16>) outs(%d : memref<5227x98xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 192 columns: 128 tiles of 64 x 192 (TMA stores), not 128 x 128 (two tile columns).
// CHECK-LABEL: func.func @cols192
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 192, 64], mainloop = <stages = 6>, epilogue = <store = tma>>
func.func @cols192(%a: memref<2048x8192xbf16> {mepi.alignment = 16 : i64},
                   %b: memref<192x2048xbf16> {mepi.alignment = 16 : i64},
                   %d: memref<8192x192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2048x8192xbf16>, memref<192x2048xbf16>) outs(%d : memref<8192x192xbf16>)
      attributes {transpose_a, transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Two 128 x 128 tiles per multiprocessor (462): the many-tile forms (ping-pong 128 x 128 for
// a short K with GELU), not one column of 128 x 256.
// CHECK-LABEL: func.func @many_tiles
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @many_tiles(%a: memref<29568x1472xbf16> {mepi.alignment = 16 : i64},
                      %b: memref<256x1472xbf16> {mepi.alignment = 16 : i64},
                      %d: memref<29568x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<29568x1472xbf16>, memref<256x1472xbf16>) outs(%d : memref<29568x256xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %g = math.tanh %acc : f32
    %r = arith.truncf %g : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
