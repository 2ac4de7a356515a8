// alpha scales the accumulated product and beta scales C (extended to f32) before the epilog
// sees the accumulator.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @gemm_matmul_0(
// CHECK-SAME: %{{[a-z0-9_]+}}: memref<8x32xf16>, %{{[a-z0-9_]+}}: memref<32x16xf16>, %[[ALPHA:[a-z0-9_]+]]: f32, %[[C:[a-z0-9_]+]]: memref<8x16xf16>, %[[BETA:[a-z0-9_]+]]: f32, %[[D:[a-z0-9_]+]]: memref<8x16xf16>)
// CHECK-DAG: %[[TY:[a-z0-9_]+]] = gpu.thread_id y
// CHECK-DAG: %[[BY:[a-z0-9_]+]] = gpu.block_id y
// CHECK-DAG: %[[TX:[a-z0-9_]+]] = gpu.thread_id x
// CHECK-DAG: %[[BX:[a-z0-9_]+]] = gpu.block_id x
// CHECK-DAG: %[[ROW0:[a-z0-9_]+]] = arith.muli %[[BY]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[ROW:[a-z0-9_]+]] = arith.addi %[[ROW0]], %[[TY]] : index
// CHECK-DAG: %[[COL0:[a-z0-9_]+]] = arith.muli %[[BX]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[COL:[a-z0-9_]+]] = arith.addi %[[COL0]], %[[TX]] : index
// CHECK: %[[SUM:[a-z0-9_]+]] = scf.for
// CHECK: %[[SCALED:[a-z0-9_]+]] = arith.mulf %[[ALPHA]], %[[SUM]] fastmath<contract> : f32
// CHECK: %[[CV:[a-z0-9_]+]] = memref.load %[[C]][%[[ROW]], %[[COL]]] : memref<8x16xf16>
// CHECK-NEXT: %[[CF:[a-z0-9_]+]] = arith.extf %[[CV]] : f16 to f32
// CHECK-NEXT: %[[BC:[a-z0-9_]+]] = arith.mulf %[[BETA]], %[[CF]] fastmath<contract> : f32
// CHECK-NEXT: %[[ACC:[a-z0-9_]+]] = arith.addf %[[SCALED]], %[[BC]] fastmath<contract> : f32
// CHECK-NEXT: %[[OUT:[a-z0-9_]+]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK-NEXT: memref.store %[[OUT]], %[[D]][%[[ROW]], %[[COL]]] : memref<8x16xf16>
func.func @gemm(%a: memref<8x32xf16>, %b: memref<32x16xf16>, %alpha: f32, %c: memref<8x16xf16>,
                %beta: f32, %d: memref<8x16xf16>) {
  mepi.matmul ins(%a, %b : memref<8x32xf16>, memref<32x16xf16>) alpha(%alpha)
      c(%c : memref<8x16xf16>) beta(%beta) outs(%d : memref<8x16xf16>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f16
    mepi.yield %t : f16
  }
  return
}
