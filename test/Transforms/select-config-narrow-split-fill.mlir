// Split-K of 64 x 64 or 64 x 32 tiles takes the splits that fill the machine (up to 32, each of
// at least 8 k-steps) and stores D from the registers (narrowSplitFill): 64 x 192 x 41408 makes
// 6 tiles of 64 x 32, 22 splits; 256 x 192 x 15040 12 of 64 x 64, 11 splits; 1024 x 192 x 8768
// keeps its choice (2 splits of 48 tiles fill the machine), and so do 64 x 128 tiles.
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @tiles_64x32
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 32, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 22>>
// CHECK-LABEL: func.func @tiles_64x64
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 11>>
// CHECK-LABEL: func.func @splits_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 2>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @tiles_64x128
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 7>>
func.func @tiles_64x32(%a: memref<64x41408xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<192x41408xbf16> {mepi.alignment = 16 : i64},
                     %d: memref<64x192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x41408xbf16>, memref<192x41408xbf16>)
      outs(%d : memref<64x192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @tiles_64x64(%a: memref<256x15040xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<192x15040xbf16> {mepi.alignment = 16 : i64},
                     %d: memref<256x192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<256x15040xbf16>, memref<192x15040xbf16>)
      outs(%d : memref<256x192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @splits_kept(%a: memref<1024x8768xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<192x8768xbf16> {mepi.alignment = 16 : i64},
                     %d: memref<1024x192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1024x8768xbf16>, memref<192x8768xbf16>)
      outs(%d : memref<1024x192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @tiles_64x128(%a: memref<128x8704xbf16> {mepi.alignment = 16 : i64},
                      %b: memref<1152x8704xbf16> {mepi.alignment = 16 : i64},
                      %d: memref<128x1152xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<128x8704xbf16>, memref<1152x8704xbf16>)
      outs(%d : memref<128x1152xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
