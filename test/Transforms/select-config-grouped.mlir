// The grouped heuristic (chooseGroupedConfig): 128-row tiles where groups average more than 64
// rows; short main loops take ping-pong with TMA stores, as dense problems of short K do:
// 64 x 256 for an epilog of special ops over at most 12 k-steps, 128 x 128 with 6 stages for
// one over at most 32 k-steps or a cheap one over at most 12; longer ones 128 x 256.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config=chip=sm_90a | FileCheck %s

// Qwen3-30B's down projection (K = 768: 12 k-steps) with a tanh epilog: 64 x 256 ping-pong.
// CHECK-LABEL: func.func @down_costly
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>
func.func @down_costly(%x: memref<64608x768xbf16> {mepi.alignment = 16 : i64},
                       %w: memref<128x2048x768xbf16> {mepi.alignment = 16 : i64},
                       %offs: memref<128xi32>,
                       %d: memref<64608x2048xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<64608x768xbf16>, memref<128x2048x768xbf16>)
      groups(%offs ends : memref<128xi32>) outs(%d : memref<64608x2048xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %e = math.tanh %acc : f32
    %t = arith.truncf %e : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// The same with a cheap epilog: 128 x 128 ping-pong, 6 stages.
// CHECK-LABEL: func.func @down_cheap
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @down_cheap(%x: memref<64608x768xbf16> {mepi.alignment = 16 : i64},
                      %w: memref<128x2048x768xbf16> {mepi.alignment = 16 : i64},
                      %offs: memref<128xi32>,
                      %d: memref<64608x2048xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<64608x768xbf16>, memref<128x2048x768xbf16>)
      groups(%offs ends : memref<128xi32>) outs(%d : memref<64608x2048xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// Qwen3-30B's up projection (K = 2048: 32 k-steps): a costly epilog takes 128 x 128 ping-pong,
// a cheap one 128 x 256.
// CHECK-LABEL: func.func @up_costly
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
func.func @up_costly(%x: memref<64608x2048xbf16> {mepi.alignment = 16 : i64},
                     %w: memref<128x1536x2048xbf16> {mepi.alignment = 16 : i64},
                     %offs: memref<128xi32>,
                     %d: memref<64608x1536xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<64608x2048xbf16>, memref<128x1536x2048xbf16>)
      groups(%offs ends : memref<128xi32>) outs(%d : memref<64608x1536xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %e = math.tanh %acc : f32
    %t = arith.truncf %e : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @up_cheap
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @up_cheap(%x: memref<64608x2048xbf16> {mepi.alignment = 16 : i64},
                    %w: memref<128x1536x2048xbf16> {mepi.alignment = 16 : i64},
                    %offs: memref<128xi32>,
                    %d: memref<64608x1536xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<64608x2048xbf16>, memref<128x1536x2048xbf16>)
      groups(%offs ends : memref<128xi32>) outs(%d : memref<64608x1536xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// Mixtral's up projection (K = 4096, 8 groups) with a cheap epilog: 128 x 256.
// CHECK-LABEL: func.func @long_k
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>
func.func @long_k(%x: memref<16336x4096xbf16> {mepi.alignment = 16 : i64},
                  %w: memref<8x14336x4096xbf16> {mepi.alignment = 16 : i64},
                  %offs: memref<8xi32>,
                  %d: memref<16336x14336xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<16336x4096xbf16>, memref<8x14336x4096xbf16>)
      groups(%offs ends : memref<8xi32>) outs(%d : memref<16336x14336xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
