// Each thread accumulates over K in f32: an scf.for from 0 to K whose body extends the bf16
// elements of A and B to f32 and adds their product with math.fma.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @kloop_matmul_0(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<100x64xbf16>, %[[B:[a-z0-9_]+]]: memref<64x300xbf16>, %[[D:[a-z0-9_]+]]: memref<100x300xf32>)
// CHECK-DAG: %[[TY:[a-z0-9_]+]] = gpu.thread_id y
// CHECK-DAG: %[[BY:[a-z0-9_]+]] = gpu.block_id y
// CHECK-DAG: %[[TX:[a-z0-9_]+]] = gpu.thread_id x
// CHECK-DAG: %[[BX:[a-z0-9_]+]] = gpu.block_id x
// CHECK-DAG: %[[ROW0:[a-z0-9_]+]] = arith.muli %[[BY]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[ROW:[a-z0-9_]+]] = arith.addi %[[ROW0]], %[[TY]] : index
// CHECK-DAG: %[[COL0:[a-z0-9_]+]] = arith.muli %[[BX]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[COL:[a-z0-9_]+]] = arith.addi %[[COL0]], %[[TX]] : index
// CHECK-DAG: %[[K:[a-z0-9_]+]] = arith.constant 64 : index
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:[a-z0-9_]+]] = scf.for %[[KK:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[K]] step %{{[a-z0-9_]+}} iter_args(%[[ITER:[a-z0-9_]+]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[AV:[a-z0-9_]+]] = memref.load %[[A]][%[[ROW]], %[[KK]]] : memref<100x64xbf16>
// CHECK-NEXT: %[[AF:[a-z0-9_]+]] = arith.extf %[[AV]] : bf16 to f32
// CHECK-NEXT: %[[BV:[a-z0-9_]+]] = memref.load %[[B]][%[[KK]], %[[COL]]] : memref<64x300xbf16>
// CHECK-NEXT: %[[BF:[a-z0-9_]+]] = arith.extf %[[BV]] : bf16 to f32
// CHECK-NEXT: %[[FMA:[a-z0-9_]+]] = math.fma %[[AF]], %[[BF]], %[[ITER]] : f32
// CHECK-NEXT: scf.yield %[[FMA]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[SUM]], %[[D]][%[[ROW]], %[[COL]]] : memref<100x300xf32>
func.func @kloop(%a: memref<100x64xbf16>, %b: memref<64x300xbf16>, %d: memref<100x300xf32>) {
  mepi.matmul ins(%a, %b : memref<100x64xbf16>, memref<64x300xbf16>) outs(%d : memref<100x300xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
