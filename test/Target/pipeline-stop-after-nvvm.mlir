// stop-after=nvvm attaches the NVVM target (sm_90a, +ptx80 by default) and lowers the kernel to
// an llvm.func with NVVM special-register reads; no binary is made yet.
// RUN: mepi-opt %s --mepi-lower-to-ptx="stop-after=nvvm" | FileCheck %s --implicit-check-not=gpu.binary --implicit-check-not=gpu.func --implicit-check-not=scf.

// CHECK-LABEL: func.func @stage(
// CHECK: gpu.launch_func @mepi_kernels::@stage_matmul_0
// CHECK: gpu.module @mepi_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
// CHECK: llvm.func @stage_matmul_0(
// CHECK-SAME: gpu.kernel
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 16, 16, 1>
// CHECK-DAG: nvvm.read.ptx.sreg.tid.x
// CHECK-DAG: nvvm.read.ptx.sreg.tid.y
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.x
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.y
// CHECK: llvm.store
// CHECK: llvm.return
func.func @stage(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
