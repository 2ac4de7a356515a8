// Cheap epilogs of 4-6 k-steps over 16 or more 128 x 128 tiles per multiprocessor take ping-pong
// 128 x 128 (shortCheapPingpong from 4 k-steps there): 6464 x 11520 x 256 (4 k-steps) and 37312
// x 22976 x 384 (6), truncating epilogs, and at 7 k-steps 6464 x 11520 x 448. Kept on the forms
// before: 3 k-steps (8064 x 7040 x 192, 128 x 192), an approximate special epilog (the short-K 64
// x 256 ping-pong), and K = 264, whose rows (528 bytes) do not start on L2's 32-byte sectors
// (128 x 192 and 256 x 128 fill its waves alike, either may be taken).
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @four_steps
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @six_steps
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @three_steps_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @seven_steps
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @special_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @sectors_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [{{256, 128|128, 192}}, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @four_steps(%a: memref<6464x256xbf16> {mepi.alignment = 16 : i64},
    %b: memref<11520x256xbf16> {mepi.alignment = 16 : i64},
    %d: memref<6464x11520xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<6464x256xbf16>, memref<11520x256xbf16>)
      outs(%d : memref<6464x11520xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @six_steps(%a: memref<37312x384xbf16> {mepi.alignment = 16 : i64},
    %b: memref<22976x384xbf16> {mepi.alignment = 16 : i64},
    %d: memref<37312x22976xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<37312x384xbf16>, memref<22976x384xbf16>)
      outs(%d : memref<37312x22976xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @three_steps_kept(%a: memref<8064x192xbf16> {mepi.alignment = 16 : i64},
    %b: memref<7040x192xbf16> {mepi.alignment = 16 : i64},
    %d: memref<8064x7040xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8064x192xbf16>, memref<7040x192xbf16>)
      outs(%d : memref<8064x7040xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @seven_steps(%a: memref<6464x448xbf16> {mepi.alignment = 16 : i64},
    %b: memref<11520x448xbf16> {mepi.alignment = 16 : i64},
    %d: memref<6464x11520xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<6464x448xbf16>, memref<11520x448xbf16>)
      outs(%d : memref<6464x11520xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @special_kept(%a: memref<6464x256xbf16> {mepi.alignment = 16 : i64},
    %b: memref<11520x256xbf16> {mepi.alignment = 16 : i64},
    %d: memref<6464x11520xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<6464x256xbf16>, memref<11520x256xbf16>)
      outs(%d : memref<6464x11520xbf16>) attributes {transpose_b} epilog {
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
func.func @sectors_kept(%a: memref<6464x264xbf16> {mepi.alignment = 16 : i64},
    %b: memref<11520x264xbf16> {mepi.alignment = 16 : i64},
    %d: memref<6464x11520xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<6464x264xbf16>, memref<11520x264xbf16>)
      outs(%d : memref<6464x11520xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
