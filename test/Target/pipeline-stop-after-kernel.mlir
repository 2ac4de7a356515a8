// stop-after=kernel gives the canonicalized host launch and a gpu.module kernel still in
// gpu/scf/arith/memref/math form: no mepi op, no NVVM target and no LLVM dialect yet.
// RUN: mepi-opt %s --mepi-lower-to-ptx="stop-after=kernel" | FileCheck %s --implicit-check-not=mepi.matmul --implicit-check-not=nvvm --implicit-check-not=llvm.

// CHECK-LABEL: func.func @stage(
// CHECK-DAG: %[[ONE:[a-z0-9_]+]] = arith.constant 1 : index
// CHECK-DAG: %[[T:[a-z0-9_]+]] = arith.constant 16 : index
// CHECK-DAG: %[[GX:[a-z0-9_]+]] = arith.constant 3 : index
// CHECK-DAG: %[[GY:[a-z0-9_]+]] = arith.constant 4 : index
// CHECK: gpu.launch_func @mepi_kernels::@stage_matmul_0 blocks in (%[[GX]], %[[GY]], %[[ONE]]) threads in (%[[T]], %[[T]], %[[ONE]])
// CHECK: gpu.module @mepi_kernels {
// CHECK-NEXT: gpu.func @stage_matmul_0(
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 16, 16, 1>}
// CHECK: scf.if
// CHECK: scf.for
// CHECK: math.fma
// CHECK: math.tanh
// CHECK: memref.store
// CHECK: gpu.return
func.func @stage(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = math.tanh %acc : f32
    mepi.yield %t : f32
  }
  return
}
