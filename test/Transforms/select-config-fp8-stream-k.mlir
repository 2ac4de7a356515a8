// FP8 stream-K in the ranking (streamKWaves): only on the device's own multiprocessor count
// (the walk is constants there, so the last wave's units are cut into pieces of their own).
// 6016 x 736 x 4544 e4m3 has 188 units of 128 x 192 on 132 multiprocessors: one whole wave and
// 56 units in two pieces of 18 k-steps, 1 + 1/2 + 0.35 waves against 2, so stream-K; without
// the device's count (NODEV) whole units. 2048 x 2048 x 4096 takes 256 x 128 tiles: 128 units,
// under one wave, no last wave to share.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a multiprocessors=132" | FileCheck %s
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s --check-prefix=NODEV

// CHECK-LABEL: func.func @one_whole_wave
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, scheduler = <stream_k>, epilogue = <store = tma>>
// NODEV-LABEL: func.func @one_whole_wave
// NODEV: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @one_whole_wave(%a: memref<6016x4544xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %b: memref<736x4544xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %d: memref<6016x736xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<6016x4544xf8E4M3FN>, memref<736x4544xf8E4M3FN>)
      outs(%d : memref<6016x736xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @under_one_wave
// CHECK-NOT: stream_k
// NODEV-LABEL: func.func @under_one_wave
// NODEV-NOT: stream_k
func.func @under_one_wave(%a: memref<2048x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %b: memref<2048x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %d: memref<2048x2048xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2048x4096xf8E4M3FN>, memref<2048x4096xf8E4M3FN>)
      outs(%d : memref<2048x2048xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
