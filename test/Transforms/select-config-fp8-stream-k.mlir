// FP8 promoted tiles on the device's own multiprocessors (the runtime's option, here 132):
// stream-K where one or more whole waves of 128 x 192 tiles come first and the last wave's
// units have k-steps enough to be cut into pieces of their own (Sm90Spec::streamKPieces);
// whole units where they have not, and wherever the walkers are not known (CHECK-CHIP).
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a multiprocessors=132" | FileCheck %s
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config=chip=sm_90a | FileCheck %s --check-prefix=CHECK-CHIP

// 704 tiles: 5 whole waves, 44 units of 56 k-steps in three pieces each.
// CHECK-LABEL: func.func @partial_wave
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, scheduler = <stream_k>, epilogue = <store = tma>>
// CHECK-CHIP-LABEL: func.func @partial_wave
// CHECK-CHIP: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @partial_wave(%a: memref<4096x7168xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %b: memref<4096x7168xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x7168xf8E4M3FN>, memref<4096x7168xf8E4M3FN>)
      outs(%d : memref<4096x4096xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// K = 3584: 28 k-steps, too few for two pieces of 16; whole units, where 512 tiles of 256 x 128
// (promoted by slice) fill 4 waves to 97 % against 128 x 192's 6 to 89 %.
// CHECK-LABEL: func.func @short_units
// CHECK: config = #mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @short_units(%a: memref<4096x3584xf8E4M3FN> {mepi.alignment = 16 : i64},
                       %b: memref<4096x3584xf8E4M3FN> {mepi.alignment = 16 : i64},
                       %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x3584xf8E4M3FN>, memref<4096x3584xf8E4M3FN>)
      outs(%d : memref<4096x4096xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// 2752 tiles: 20 whole waves and 112 units in the last, too many to cut.
// CHECK-LABEL: func.func @full_waves
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @full_waves(%a: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                      %b: memref<8192x8192xf8E4M3FN> {mepi.alignment = 16 : i64},
                      %d: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x8192xf8E4M3FN>, memref<8192x8192xf8E4M3FN>)
      outs(%d : memref<8192x8192xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

// 188 tiles of 128 x 192: one whole wave, then 56 units of 36 k-steps in two pieces each
// (1 + 1/2 + 0.35 waves against 2; since the pieces' fixed finisher, one whole wave suffices).
// CHECK-LABEL: func.func @one_whole_wave
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, scheduler = <stream_k>, epilogue = <store = tma>>
// CHECK-CHIP-LABEL: func.func @one_whole_wave
// CHECK-CHIP: config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma>>
func.func @one_whole_wave(%a: memref<6016x4544xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %b: memref<736x4544xf8E4M3FN> {mepi.alignment = 16 : i64},
                          %d: memref<6016x736xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<6016x4544xf8E4M3FN>, memref<736x4544xf8E4M3FN>)
      outs(%d : memref<6016x736xbf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
