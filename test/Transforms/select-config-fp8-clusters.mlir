// FP8 promoted tiles that fit one wave take clusters sharing both operands where those also
// run in one wave (30 clusters of 4, 15 of 8 on the 132 multiprocessors): 2 x 4 for tiles of
// 64 columns, 2 x 2 for wider ones; not past one wave, nor where the clusters would not fit.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a multiprocessors=132" | FileCheck %s

// 6 x 19 tiles of 128 x 64: 3 x 5 clusters of 8.
// CHECK-LABEL: func.func @narrow
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 128], mainloop = <stages = 8, cluster = 8, promote = 1, multicast = ab>, epilogue = <store = tma>>
func.func @narrow(%a: memref<656x2224xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<1184x2224xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<656x1184xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<656x2224xf8E4M3FN>, memref<1184x2224xf8E4M3FN>)
      outs(%d : memref<656x1184xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// 5 x 20 tiles of 128 x 192: 3 x 10 clusters of 4.
// CHECK-LABEL: func.func @wide
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, cluster = 4, promote = 1, multicast = ab>, epilogue = <store = tma>>
func.func @wide(%a: memref<544x2064xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<3776x2064xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<544x3776xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<544x2064xf8E4M3FN>, memref<3776x2064xf8E4M3FN>)
      outs(%d : memref<544x3776xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// More tiles than one wave: alone (here 256 x 128, promoted by slice).
// CHECK-LABEL: func.func @two_waves
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @two_waves(%a: memref<1024x2048xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<4224x2048xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<1024x4224xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1024x2048xf8E4M3FN>, memref<4224x2048xf8E4M3FN>)
      outs(%d : memref<1024x4224xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// 2 x 21 tiles of 128 x 64 split along K (a third of the SMs' tiles): no clusters.
// CHECK-LABEL: func.func @split
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 64, 128], mainloop = <stages = 8, promote = 1>, scheduler = <split_k, splits = 3>, epilogue = <store = tma>>
func.func @split(%a: memref<256x4496xf8E4M3FN> {mepi.alignment = 16 : i64},
    %b: memref<1296x4496xf8E4M3FN> {mepi.alignment = 16 : i64},
    %d: memref<256x1296xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<256x4496xf8E4M3FN>, memref<1296x4496xf8E4M3FN>)
      outs(%d : memref<256x1296xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
