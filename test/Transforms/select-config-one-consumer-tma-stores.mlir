// A 64-row tile of one consumer in whole units stores D through TMA at any K
// (oneConsumerTmaStores): 64 x 45056 x 1664 and 128 x 8192 x 8192 keep 64 x 128 s8 and take TMA
// stores (they staged D in shared memory before); split-K tiles and an f32 D (not measured) keep
// staging it.
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @short_m_wide_n
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @m128_dense
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @split_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 7>>
// CHECK-LABEL: func.func @f32_d_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>>
func.func @short_m_wide_n(%a: memref<64x1664xbf16> {mepi.alignment = 16 : i64},
    %b: memref<45056x1664xbf16> {mepi.alignment = 16 : i64},
    %d: memref<64x45056xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x1664xbf16>, memref<45056x1664xbf16>)
      outs(%d : memref<64x45056xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @m128_dense(%a: memref<128x8192xbf16> {mepi.alignment = 16 : i64},
    %b: memref<8192x8192xbf16> {mepi.alignment = 16 : i64},
    %d: memref<128x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<128x8192xbf16>, memref<8192x8192xbf16>)
      outs(%d : memref<128x8192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @split_kept(%a: memref<128x8704xbf16> {mepi.alignment = 16 : i64},
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
func.func @f32_d_kept(%a: memref<64x1664xbf16> {mepi.alignment = 16 : i64},
    %b: memref<45056x1664xbf16> {mepi.alignment = 16 : i64},
    %d: memref<64x45056xf32> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x1664xbf16>, memref<45056x1664xbf16>)
      outs(%d : memref<64x45056xf32>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
