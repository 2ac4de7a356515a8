// The full pipeline replaces the gpu.module by a gpu.binary holding one NVVM object in PTX
// (assembly) form.
// RUN: mepi-opt %s --mepi-lower-to-ptx | FileCheck %s --implicit-check-not=gpu.module --implicit-check-not=llvm.func

// CHECK-LABEL: func.func @stage(
// CHECK: gpu.launch_func @mepi_kernels::@stage_matmul_0
// CHECK: gpu.binary @mepi_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">,
// CHECK-SAME: assembly = "
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .visible .entry stage_matmul_0(
func.func @stage(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
