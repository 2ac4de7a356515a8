// Cheap epilogs of 7 k-steps take ping-pong 128 x 128 (shortCheapPingpong from 7 k-steps):
// 10816 x 8640 x 448 with a truncating epilog (128 x 192 before). Kept: 192 x 20800 x 448, which
// 128 x 160 fits (narrowLineFit, a rule before shortCheapPingpong).
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @seven_steps
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @seven_steps_192_rows_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 160, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @seven_steps(%a: memref<10816x448xbf16> {mepi.alignment = 16 : i64},
    %b: memref<8640x448xbf16> {mepi.alignment = 16 : i64},
    %d: memref<10816x8640xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<10816x448xbf16>, memref<8640x448xbf16>)
      outs(%d : memref<10816x8640xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @seven_steps_192_rows_kept(%a: memref<192x448xbf16> {mepi.alignment = 16 : i64},
    %b: memref<20800x448xbf16> {mepi.alignment = 16 : i64},
    %d: memref<192x20800xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<192x448xbf16>, memref<20800x448xbf16>)
      outs(%d : memref<192x20800xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
