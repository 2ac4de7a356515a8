// Batch dimensions broadcast as in numpy.matmul: A with batch 1 is read at batch index 0 while B
// and D (batch 3) are read and written at the batch index from block_id z.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: func.func @batched(
// CHECK: %[[NB:[a-z0-9_]+]] = arith.constant 3 : index
// CHECK-NEXT: %[[GZ:[a-z0-9_]+]] = arith.muli %{{[a-z0-9_]+}}, %[[NB]] : index
// CHECK: gpu.launch_func @mepi_kernels::@batched_matmul_0 blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[GZ:[a-z0-9_]+]])

// CHECK-LABEL: gpu.func @batched_matmul_0(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<1x8x32xf16>, %[[B:[a-z0-9_]+]]: memref<3x32x16xf16>, %[[D:[a-z0-9_]+]]: memref<3x8x16xf32>)
// CHECK-DAG: %[[TY:[a-z0-9_]+]] = gpu.thread_id y
// CHECK-DAG: %[[BY:[a-z0-9_]+]] = gpu.block_id y
// CHECK-DAG: %[[TX:[a-z0-9_]+]] = gpu.thread_id x
// CHECK-DAG: %[[BX:[a-z0-9_]+]] = gpu.block_id x
// CHECK-DAG: %[[ROW0:[a-z0-9_]+]] = arith.muli %[[BY]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[ROW:[a-z0-9_]+]] = arith.addi %[[ROW0]], %[[TY]] : index
// CHECK-DAG: %[[COL0:[a-z0-9_]+]] = arith.muli %[[BX]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[COL:[a-z0-9_]+]] = arith.addi %[[COL0]], %[[TX]] : index
// CHECK: %[[Z:[a-z0-9_]+]] = gpu.block_id z
// CHECK: scf.for %[[KK:[a-z0-9_]+]] =
// CHECK-NEXT: memref.load %[[A]][%c0{{(_[0-9]+)?}}, %[[ROW]], %[[KK]]] : memref<1x8x32xf16>
// CHECK: memref.load %[[B]][%[[Z]], %[[KK]], %[[COL]]] : memref<3x32x16xf16>
// CHECK: memref.store %{{[a-z0-9_]+}}, %[[D]][%[[Z]], %[[ROW]], %[[COL]]] : memref<3x8x16xf32>
func.func @batched(%a: memref<1x8x32xf16>, %b: memref<3x32x16xf16>, %d: memref<3x8x16xf32>) {
  mepi.matmul ins(%a, %b : memref<1x8x32xf16>, memref<3x32x16xf16>) outs(%d : memref<3x8x16xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
