// The short-K ping-pong takes 128 x 128 for a cheap epilog (cheapSquarePingpong): 768 x 32448 x
// 320 (5 k-steps) with a truncating epilog. Kept on 64 x 256: the same problem with an
// approximate special epilog, 192 rows, a quarter of whose 128-row tiles lie outside D, and
// K = 328, whose rows (656 bytes) do not start on L2's 32-byte sectors.
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @cheap
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @special_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @rows_192_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
// CHECK-LABEL: func.func @sectors_kept
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @cheap(%a: memref<768x320xbf16> {mepi.alignment = 16 : i64},
    %b: memref<32448x320xbf16> {mepi.alignment = 16 : i64},
    %d: memref<768x32448xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<768x320xbf16>, memref<32448x320xbf16>)
      outs(%d : memref<768x32448xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @special_kept(%a: memref<768x320xbf16> {mepi.alignment = 16 : i64},
    %b: memref<32448x320xbf16> {mepi.alignment = 16 : i64},
    %d: memref<768x32448xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<768x320xbf16>, memref<32448x320xbf16>)
      outs(%d : memref<768x32448xbf16>) attributes {transpose_b} epilog {
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
func.func @rows_192_kept(%a: memref<192x128xbf16> {mepi.alignment = 16 : i64},
    %b: memref<44032x128xbf16> {mepi.alignment = 16 : i64},
    %d: memref<192x44032xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<192x128xbf16>, memref<44032x128xbf16>)
      outs(%d : memref<192x44032xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @sectors_kept(%a: memref<768x328xbf16> {mepi.alignment = 16 : i64},
    %b: memref<32448x328xbf16> {mepi.alignment = 16 : i64},
    %d: memref<768x32448xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<768x328xbf16>, memref<32448x328xbf16>)
      outs(%d : memref<768x32448xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
