// The chip and features options of mepi-lower-to-ptx select the PTX target and ISA version.
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_80 features=+ptx78 ptx-file=-" -o /dev/null | FileCheck %s --implicit-check-not=sm_90a

// CHECK: .version 7.8
// CHECK: .target sm_80
// CHECK-LABEL: .visible .entry ampere_matmul_0(
func.func @ampere(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
