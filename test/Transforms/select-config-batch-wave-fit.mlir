// Batches under one wave of 128 x 256 tiles take 128 x 160 or 128 x 192 where those tiles
// still fit one wave (batchWaveFit): 8 x 448 x 640 x 1024 makes 96 tiles of 128 x 256 and 128
// of 128 x 160 on 132 multiprocessors; 10 x 512 x 512 x 3136 80 of 128 x 256, 160 of 128 x 160
// (two waves) and 120 of 128 x 192; 5 x 2240 x 256 x 1728 would make two waves of either, and
// keeps 128 x 256.
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @fits_160
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 160, 64], mainloop = <stages = 5>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @fits_192
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @two_waves_either
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @fits_160(%a: memref<8x448x1024xbf16> {mepi.alignment = 16 : i64},
                    %b: memref<8x640x1024xbf16> {mepi.alignment = 16 : i64},
                    %d: memref<8x448x640xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8x448x1024xbf16>, memref<8x640x1024xbf16>)
      outs(%d : memref<8x448x640xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @fits_192(%a: memref<10x512x3136xbf16> {mepi.alignment = 16 : i64},
                    %b: memref<10x512x3136xbf16> {mepi.alignment = 16 : i64},
                    %d: memref<10x512x512xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<10x512x3136xbf16>, memref<10x512x3136xbf16>)
      outs(%d : memref<10x512x512xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @two_waves_either(%a: memref<5x2240x1728xbf16> {mepi.alignment = 16 : i64},
                            %b: memref<5x256x1728xbf16> {mepi.alignment = 16 : i64},
                            %d: memref<5x2240x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<5x2240x1728xbf16>, memref<5x256x1728xbf16>)
      outs(%d : memref<5x2240x256xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
