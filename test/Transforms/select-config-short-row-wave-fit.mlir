// At most 64 rows of D whose 64-row tiles pass one wave take the width (256 down to 96) whose
// waves fall most inside D where that share is at least 1.2 times the chosen width's
// (shortRowWaveFit): 64 x 34432 x 3136 makes 135 tiles of 64 x 256 (a last wave of 3, a share
// of 0.51) and 359 of 64 x 96 (0.91); 48 rows alike; 64 x 51520 x 4992 keeps 64 x 256 (202
// tiles, 0.76; 64 x 224's 8 / 7 of that is under 1.2); K of 960 (15 k-steps) keeps its choice.
// 64 x 43656 x 2216 computes 384 columns a multiprocessor on 64 x 192, 64 x 128 and 64 x 96
// alike (2, 3 and 4 waves), 512 on its 64 x 256: the widest of those.
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @last_wave_of_three
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 96, 64], mainloop = <stages = 8>>
// CHECK-LABEL: func.func @rows_48
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 96, 64], mainloop = <stages = 8>>
// CHECK-LABEL: func.func @gain_under_1_2
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 5>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @ties_go_wider
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 192, 64], mainloop = <stages = 6>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @short_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>
func.func @last_wave_of_three(%a: memref<64x3136xbf16> {mepi.alignment = 16 : i64},
                            %b: memref<34432x3136xbf16> {mepi.alignment = 16 : i64},
                            %d: memref<64x34432xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x3136xbf16>, memref<34432x3136xbf16>)
      outs(%d : memref<64x34432xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @rows_48(%a: memref<48x3136xbf16> {mepi.alignment = 16 : i64},
                 %b: memref<34432x3136xbf16> {mepi.alignment = 16 : i64},
                 %d: memref<48x34432xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<48x3136xbf16>, memref<34432x3136xbf16>)
      outs(%d : memref<48x34432xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @gain_under_1_2(%a: memref<64x4992xbf16> {mepi.alignment = 16 : i64},
                        %b: memref<51520x4992xbf16> {mepi.alignment = 16 : i64},
                        %d: memref<64x51520xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x4992xbf16>, memref<51520x4992xbf16>)
      outs(%d : memref<64x51520xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @ties_go_wider(%a: memref<64x2216xbf16> {mepi.alignment = 16 : i64},
                         %b: memref<43656x2216xbf16> {mepi.alignment = 16 : i64},
                         %d: memref<64x43656xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x2216xbf16>, memref<43656x2216xbf16>)
      outs(%d : memref<64x43656xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @short_k(%a: memref<64x960xbf16> {mepi.alignment = 16 : i64},
                 %b: memref<34432x960xbf16> {mepi.alignment = 16 : i64},
                 %d: memref<64x34432xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x960xbf16>, memref<34432x960xbf16>)
      outs(%d : memref<64x34432xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
