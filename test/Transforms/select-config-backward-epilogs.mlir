// Backward epilogs (a matrix input per element and a row reduction, as DGELU_BGRAD and
// DRELU_BGRAD): D is staged, not stored by TMA. Many tiles at K <= 4096: special ops (the
// sigmoid of DGELU) take ping-pong 128 x 128 with 4 stages, whose other consumer's main loop
// hides the epilog's loads and math; arithmetic ones (DRELU) the wide tile in clusters. At 16
// rows the rules' 64 x 128 in 2 splits stays: the cost model, fitted on element-wise epilogs,
// does not choose for reductions.
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @dgelu
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4, pingpong = true>>
// CHECK-LABEL: func.func @drelu
// CHECK: config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>>
// CHECK-LABEL: func.func @decode
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 2>>
// CHECK-LABEL: func.func @decode_relu
// CHECK: config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 2>>
func.func @dgelu(%a: memref<4096x4096xf16> {mepi.alignment = 16 : i64}, %b: memref<14336x4096xf16> {mepi.alignment = 16 : i64},
                 %z: memref<4096x14336xf16> {mepi.alignment = 16 : i64}, %d: memref<4096x14336xf16> {mepi.alignment = 16 : i64},
                 %g: memref<4096xf32>) {
  mepi.matmul ins(%a, %b : memref<4096x4096xf16>, memref<14336x4096xf16>) inputs(%z as matrix : memref<4096x14336xf16>)
      outs(%d : memref<4096x14336xf16>) reduce(%g as row add : memref<4096xf32>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %zz: f16, %row: index, %col: index):
    %x = arith.extf %zz : f16 to f32
    %e = math.exp2 %x fastmath<afn> : f32
    %one = arith.constant 1.0 : f32
    %s = arith.addf %one, %e : f32
    %y = arith.divf %acc, %s fastmath<afn> : f32
    %t = arith.truncf %y : f32 to f16
    mepi.yield %t, %y : f16, f32
  }
  return
}
func.func @drelu(%a: memref<4096x4096xf16> {mepi.alignment = 16 : i64}, %b: memref<14336x4096xf16> {mepi.alignment = 16 : i64},
                 %z: memref<4096x14336xf16> {mepi.alignment = 16 : i64}, %d: memref<4096x14336xf16> {mepi.alignment = 16 : i64},
                 %g: memref<4096xf32>) {
  mepi.matmul ins(%a, %b : memref<4096x4096xf16>, memref<14336x4096xf16>) inputs(%z as matrix : memref<4096x14336xf16>)
      outs(%d : memref<4096x14336xf16>) reduce(%g as row add : memref<4096xf32>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %zz: f16, %row: index, %col: index):
    %x = arith.extf %zz : f16 to f32
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    %y = arith.select %p, %acc, %zero : f32
    %t = arith.truncf %y : f32 to f16
    mepi.yield %t, %y : f16, f32
  }
  return
}
func.func @decode(%a: memref<16x8192xf16> {mepi.alignment = 16 : i64}, %b: memref<8192x8192xf16> {mepi.alignment = 16 : i64},
                 %z: memref<16x8192xf16> {mepi.alignment = 16 : i64}, %d: memref<16x8192xf16> {mepi.alignment = 16 : i64},
                 %g: memref<16xf32>) {
  mepi.matmul ins(%a, %b : memref<16x8192xf16>, memref<8192x8192xf16>) inputs(%z as matrix : memref<16x8192xf16>)
      outs(%d : memref<16x8192xf16>) reduce(%g as row add : memref<16xf32>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %zz: f16, %row: index, %col: index):
    %x = arith.extf %zz : f16 to f32
    %e = math.exp2 %x fastmath<afn> : f32
    %one = arith.constant 1.0 : f32
    %s = arith.addf %one, %e : f32
    %y = arith.divf %acc, %s fastmath<afn> : f32
    %t = arith.truncf %y : f32 to f16
    mepi.yield %t, %y : f16, f32
  }
  return
}
func.func @decode_relu(%a: memref<16x8192xf16> {mepi.alignment = 16 : i64}, %b: memref<8192x8192xf16> {mepi.alignment = 16 : i64},
                 %z: memref<16x8192xf16> {mepi.alignment = 16 : i64}, %d: memref<16x8192xf16> {mepi.alignment = 16 : i64},
                 %g: memref<16xf32>) {
  mepi.matmul ins(%a, %b : memref<16x8192xf16>, memref<8192x8192xf16>) inputs(%z as matrix : memref<16x8192xf16>)
      outs(%d : memref<16x8192xf16>) reduce(%g as row add : memref<16xf32>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %zz: f16, %row: index, %col: index):
    %x = arith.extf %zz : f16 to f32
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    %y = arith.select %p, %acc, %zero : f32
    %t = arith.truncf %y : f32 to f16
    mepi.yield %t, %y : f16, f32
  }
  return
}
