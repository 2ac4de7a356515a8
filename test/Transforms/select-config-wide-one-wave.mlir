// One wave of 128 x 64 tiles over at most 100 k-steps, not of an expanded epilog, takes 64 x 128
// of one consumer with TMA stores (wideOneWave) where 64 x 128's columns cover no more of N than
// 64's: 640 x 1408 x 3584 (56 k-steps) with a truncating or an approximate special epilog, and a
// batch of 4 x 1152 x 128 x 128. Kept: N = 320, whose last 128 columns would lie half outside
// D, 640 x 1408 x 7040 (110 k-steps), and 1536 x 1792 x 256 (336 tiles of 128 x 64: no one wave).
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @one_wave_truncating
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @one_wave_special
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @half_tile_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 8>>
// CHECK-LABEL: func.func @long_k_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @batched
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @waves_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
func.func @one_wave_truncating(%a: memref<640x3584xbf16> {mepi.alignment = 16 : i64},
    %b: memref<1408x3584xbf16> {mepi.alignment = 16 : i64},
    %d: memref<640x1408xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<640x3584xbf16>, memref<1408x3584xbf16>)
      outs(%d : memref<640x1408xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @one_wave_special(%a: memref<640x3584xbf16> {mepi.alignment = 16 : i64},
    %b: memref<1408x3584xbf16> {mepi.alignment = 16 : i64},
    %d: memref<640x1408xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<640x3584xbf16>, memref<1408x3584xbf16>)
      outs(%d : memref<640x1408xbf16>) attributes {transpose_b} epilog {
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
func.func @half_tile_kept(%a: memref<2304x832xbf16> {mepi.alignment = 16 : i64},
    %b: memref<320x832xbf16> {mepi.alignment = 16 : i64},
    %d: memref<2304x320xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2304x832xbf16>, memref<320x832xbf16>)
      outs(%d : memref<2304x320xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @long_k_kept(%a: memref<640x7040xbf16> {mepi.alignment = 16 : i64},
    %b: memref<1408x7040xbf16> {mepi.alignment = 16 : i64},
    %d: memref<640x1408xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<640x7040xbf16>, memref<1408x7040xbf16>)
      outs(%d : memref<640x1408xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @batched(%a: memref<4x1152x128xbf16> {mepi.alignment = 16 : i64},
    %b: memref<4x128x128xbf16> {mepi.alignment = 16 : i64},
    %d: memref<4x1152x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4x1152x128xbf16>, memref<4x128x128xbf16>)
      outs(%d : memref<4x1152x128xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @waves_kept(%a: memref<1536x256xbf16> {mepi.alignment = 16 : i64},
    %b: memref<1792x256xbf16> {mepi.alignment = 16 : i64},
    %d: memref<1536x1792xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1536x256xbf16>, memref<1792x256xbf16>)
      outs(%d : memref<1536x1792xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
