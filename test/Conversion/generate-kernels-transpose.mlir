// With transpose_a and transpose_b, A is read as [k, row] and B as [col, k], and K is A's
// leading dimension.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @transposed_matmul_0(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<64x100xf32>, %[[B:[a-z0-9_]+]]: memref<300x64xf32>, %[[D:[a-z0-9_]+]]: memref<100x300xf32>)
// CHECK-DAG: %[[TY:[a-z0-9_]+]] = gpu.thread_id y
// CHECK-DAG: %[[BY:[a-z0-9_]+]] = gpu.block_id y
// CHECK-DAG: %[[TX:[a-z0-9_]+]] = gpu.thread_id x
// CHECK-DAG: %[[BX:[a-z0-9_]+]] = gpu.block_id x
// CHECK-DAG: %[[ROW0:[a-z0-9_]+]] = arith.muli %[[BY]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[ROW:[a-z0-9_]+]] = arith.addi %[[ROW0]], %[[TY]] : index
// CHECK-DAG: %[[COL0:[a-z0-9_]+]] = arith.muli %[[BX]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[COL:[a-z0-9_]+]] = arith.addi %[[COL0]], %[[TX]] : index
// CHECK-DAG: %[[K:[a-z0-9_]+]] = arith.constant 64 : index
// CHECK: scf.for %[[KK:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[K]] step
// CHECK-NEXT: memref.load %[[A]][%[[KK]], %[[ROW]]] : memref<64x100xf32>
// CHECK-NEXT: memref.load %[[B]][%[[COL]], %[[KK]]] : memref<300x64xf32>
func.func @transposed(%a: memref<64x100xf32>, %b: memref<300x64xf32>, %d: memref<100x300xf32>) {
  mepi.matmul ins(%a, %b : memref<64x100xf32>, memref<300x64xf32>) outs(%d : memref<100x300xf32>)
      attributes {transpose_a, transpose_b, config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
