// 129-192 rows of many columns (16-bit, K of 1024 or more): one tile row as tall as D, so that B
// is read once and no 128-row tile computes rows outside D. The swapped form [M rounded to 16,
// 64] with TMA stores, or 192 x 128 (three consumers) where its waves fall as much inside D, in
// at most two waves, where that fills 0.75 of them and no less than split-K of 128 x 128 would;
// few narrow tiles split along K; 64 x 256 (three tile rows) where the narrow tiles leave a
// partial wave and its own fill 0.8 of at most two.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// 192 x 8192 x 2048, B as [K, N] (torch.mm's): 128 swapped tiles of 192 x 64.
// CHECK-LABEL: func.func @m192
// CHECK: config = #mepi.kernel_config<wgmma, tile = [192, 64, 64], mainloop = <stages = 6>, epilogue = <store = tma>, swapped = true>
func.func @m192(%a: memref<192x2048xbf16> {mepi.alignment = 16 : i64},
                %b: memref<2048x8192xbf16> {mepi.alignment = 16 : i64},
                %d: memref<192x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<192x2048xbf16>, memref<2048x8192xbf16>) outs(%d : memref<192x8192xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 144 rows: the swapped tile 144 rows high.
// CHECK-LABEL: func.func @m144
// CHECK: config = #mepi.kernel_config<wgmma, tile = [144, 64, 64], mainloop = <stages = 7>, epilogue = <store = tma>, swapped = true>
func.func @m144(%a: memref<144x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<8192x4096xbf16> {mepi.alignment = 16 : i64},
                %d: memref<144x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<144x4096xbf16>, memref<8192x4096xbf16>) outs(%d : memref<144x8192xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 14336 columns: 112 tiles of 192 x 128 fill the waves as 224 of 192 x 64: the wider.
// CHECK-LABEL: func.func @wide
// CHECK: config = #mepi.kernel_config<wgmma, tile = [192, 128, 64], mainloop = <stages = 4>>
func.func @wide(%a: memref<192x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<14336x4096xbf16> {mepi.alignment = 16 : i64},
                %d: memref<192x14336xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<192x4096xbf16>, memref<14336x4096xbf16>) outs(%d : memref<192x14336xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// Not above 192 rows (ptxas serializes taller swapped tiles). Few columns split the narrow
// tiles along K (192 x 4096 x 14336: 64 tiles of 192 x 64 in 2 splits, staged).
// CHECK-LABEL: func.func @m224
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [192, 64, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 2>, swapped = true>
func.func @m224(%a: memref<224x5120xbf16> {mepi.alignment = 16 : i64},
                %b: memref<5120x5120xbf16> {mepi.alignment = 16 : i64},
                %d: memref<224x5120xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<224x5120xbf16>, memref<5120x5120xbf16>) outs(%d : memref<224x5120xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @long_k(%a: memref<192x14336xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<4096x14336xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<192x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<192x14336xbf16>, memref<4096x14336xbf16>) outs(%d : memref<192x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The narrow tiles (325 of [192, 64]) leave a partial third wave: 64 x 256 (246 tiles, 0.93 of
// two waves; 192 x 128's 163 fill 0.62).
// CHECK-LABEL: func.func @partial_wave
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 5>, epilogue = <store = tma>>
func.func @partial_wave(%a: memref<192x11520xbf16> {mepi.alignment = 16 : i64},
                        %b: memref<20800x11520xbf16> {mepi.alignment = 16 : i64},
                        %d: memref<192x20800xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<192x11520xbf16>, memref<20800x11520xbf16>) outs(%d : memref<192x20800xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
