// A narrow D (at most 256 columns) of many rows whose many-tile form was 256 x 128: ping-pong
// tiles as wide as D over up to 16 k-steps, or where their waves fall much more inside D
// (narrowPingpong, WidthFitRules.cpp).
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// N = 128 over 13 k-steps (the sweep's 39232 x 128 x 832): ping-pong 64 x 128, 6 stages, in
// place of 256 x 128 s4, whose 154 tiles leave a second wave 17 % full.
// CHECK-LABEL: func.func @short_k_128
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_128(%a: memref<39232x832xbf16> {mepi.alignment = 16 : i64},
                       %b: memref<128x832xbf16> {mepi.alignment = 16 : i64},
                       %d: memref<39232x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<39232x832xbf16>, memref<128x832xbf16>)
      outs(%d : memref<39232x128xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// The same with an epilog of special ops (the GELU_BIAS class): one consumer's epilog under the
// other's main loop.
// CHECK-LABEL: func.func @short_k_128_special
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_128_special(%a: memref<45056x448xbf16> {mepi.alignment = 16 : i64},
                               %b: memref<128x448xbf16> {mepi.alignment = 16 : i64},
                               %d: memref<45056x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<45056x448xbf16>, memref<128x448xbf16>)
      outs(%d : memref<45056x128xbf16>) attributes {transpose_b} epilog {
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

// N = 256: ping-pong 128 x 128 (two tile columns; 64-row tiles ran slower there).
// CHECK-LABEL: func.func @short_k_256
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @short_k_256(%a: memref<60672x448xbf16> {mepi.alignment = 16 : i64},
                       %b: memref<256x448xbf16> {mepi.alignment = 16 : i64},
                       %d: memref<60672x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<60672x448xbf16>, memref<256x448xbf16>)
      outs(%d : memref<60672x256xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 37 k-steps: 128 x 128 ping-pong where its waves fall 1.33 times as much inside D as 256 x
// 128's (314 tiles in 3 waves against 157 in 2).
// CHECK-LABEL: func.func @long_k_partial_wave
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @long_k_partial_wave(%a: memref<40128x2368xbf16> {mepi.alignment = 16 : i64},
                               %b: memref<128x2368xbf16> {mepi.alignment = 16 : i64},
                               %d: memref<40128x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<40128x2368xbf16>, memref<128x2368xbf16>)
      outs(%d : memref<40128x128xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 45 k-steps at equal shares (38 x 1408 x 128 x 2880: 228 tiles of 256 rows, 418 of 128): 256 x
// 128 stays.
// CHECK-LABEL: func.func @long_k_equal_waves
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @long_k_equal_waves(%a: memref<38x1408x2880xbf16> {mepi.alignment = 16 : i64},
                              %b: memref<38x128x2880xbf16> {mepi.alignment = 16 : i64},
                              %d: memref<38x1408x128xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<38x1408x2880xbf16>, memref<38x128x2880xbf16>)
      outs(%d : memref<38x1408x128xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 320 columns: 256 x 128 stays (ping-pong ran 0.70-0.89x).
// CHECK-LABEL: func.func @wider_than_256
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @wider_than_256(%a: memref<20992x576xbf16> {mepi.alignment = 16 : i64},
                          %b: memref<320x576xbf16> {mepi.alignment = 16 : i64},
                          %d: memref<20992x320xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<20992x576xbf16>, memref<320x576xbf16>)
      outs(%d : memref<20992x320xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
