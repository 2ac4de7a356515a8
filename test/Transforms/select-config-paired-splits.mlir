// Split-K over a B larger than half of L2 (25 MiB on sm_90a): the tile rows, an even count of
// them, pair up in clusters of 2 sharing B's tile by multicast; the splits stay as chosen. An
// odd count of three or more takes the swapped form's pairs where its waves fall as much inside
// D. Not with B tiles under 128 columns or a B that L2 holds.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// 128 x 384 x 58304 (B 43 MiB): 64 x 128 tiles, two rows a pair, 16 splits.
// CHECK-LABEL: func.func @pairs64
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8, cluster = 2>, scheduler = <split_k, splits = 16>>
func.func @pairs64(%a: memref<128x58304xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<384x58304xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<128x384xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<128x58304xbf16>, memref<384x58304xbf16>) outs(%d : memref<128x384xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 512 x 1024 x 38336 (B 75 MiB): 128 x 128 tiles, four rows in two pairs, 4 splits.
// CHECK-LABEL: func.func @pairs128
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, cluster = 2>, scheduler = <split_k, splits = 4>, epilogue = <store = tma>>
func.func @pairs128(%a: memref<512x38336xbf16> {mepi.alignment = 16 : i64},
                   %b: memref<1024x38336xbf16> {mepi.alignment = 16 : i64},
                   %d: memref<512x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<512x38336xbf16>, memref<1024x38336xbf16>) outs(%d : memref<512x1024xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 320 x 384 x 55168 (B 40 MiB): five rows of 64 cannot pair; four swapped rows of 80 do, in
// 11 splits that fill the wave (12 tiles).
// CHECK-LABEL: func.func @oddRows
// CHECK: config = #mepi.kernel_config<wgmma, tile = [80, 128, 64], mainloop = <stages = 7, cluster = 2>, scheduler = <split_k, splits = 11>, epilogue = <store = tma>, swapped = true>
func.func @oddRows(%a: memref<320x55168xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<384x55168xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<320x384xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<320x55168xbf16>, memref<384x55168xbf16>) outs(%d : memref<320x384xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 384 x 1408 x 34752 (B 93 MiB): three rows of 128 in 4 splits; two swapped rows of 192 in 6
// splits and six of 64 in 2 fill the wave alike (132 units each), and the tie goes to the
// taller tile (the 64-row ones lost 12-16 % here and on 384 x 1408 x 32576).
// CHECK-LABEL: func.func @oddRowsTallest
// CHECK: config = #mepi.kernel_config<wgmma, tile = [192, 128, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <split_k, splits = 6>, epilogue = <store = tma>, swapped = true>
func.func @oddRowsTallest(%a: memref<384x34752xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<1408x34752xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<384x1408xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<384x34752xbf16>, memref<1408x34752xbf16>) outs(%d : memref<384x1408xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 832 x 320 x 58176 (B 36 MiB): seven rows of 128 stay alone: six swapped rows of 144 fill
// less of the wave (126 units of 128 x 160 against 126 of 144 x 128, more of them outside D).
// TMA stores, the last half line by the threads.
// CHECK-LABEL: func.func @oddRowsAlone
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 160, 64], mainloop = <stages = 5>, scheduler = <split_k, splits = 9>, epilogue = <store = tma>>
func.func @oddRowsAlone(%a: memref<832x58176xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<320x58176xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<832x320xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<832x58176xbf16>, memref<320x58176xbf16>) outs(%d : memref<832x320xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 128 x 1152 x 8704 (B 19 MiB, which L2 holds): alone.
// CHECK-LABEL: func.func @inL2
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 7>>
func.func @inL2(%a: memref<128x8704xbf16> {mepi.alignment = 16 : i64},
               %b: memref<1152x8704xbf16> {mepi.alignment = 16 : i64},
               %d: memref<128x1152xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<128x8704xbf16>, memref<1152x8704xbf16>) outs(%d : memref<128x1152xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// 128 x 2112 x 9728 (B 39 MiB) on 64 x 64 tiles: alone.
// CHECK-LABEL: func.func @narrowB
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 2>, epilogue = <store = tma>>
func.func @narrowB(%a: memref<128x9728xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<2112x9728xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<128x2112xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<128x9728xbf16>, memref<2112x9728xbf16>) outs(%d : memref<128x2112xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
