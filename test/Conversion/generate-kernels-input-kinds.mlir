// Each epilog input is loaded by its broadcast kind: row at [batch, row], col at [col], a scalar
// value used as is, a rank-0 memref at [], a batch-1 matrix at [0, row, col].
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @kinds_matmul_0(
// CHECK-SAME: %{{[a-z0-9_]+}}: memref<2x8x32xf32>, %{{[a-z0-9_]+}}: memref<32x16xf32>, %[[R:[a-z0-9_]+]]: memref<2x8xf32>, %[[C:[a-z0-9_]+]]: memref<16xf16>, %[[S:[a-z0-9_]+]]: f32, %[[S0:[a-z0-9_]+]]: memref<bf16>, %[[M:[a-z0-9_]+]]: memref<1x8x16xf32>, %[[D:[a-z0-9_]+]]: memref<2x8x16xf32>)
// CHECK-DAG: %[[TY:[a-z0-9_]+]] = gpu.thread_id y
// CHECK-DAG: %[[BY:[a-z0-9_]+]] = gpu.block_id y
// CHECK-DAG: %[[TX:[a-z0-9_]+]] = gpu.thread_id x
// CHECK-DAG: %[[BX:[a-z0-9_]+]] = gpu.block_id x
// CHECK-DAG: %[[ROW0:[a-z0-9_]+]] = arith.muli %[[BY]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[ROW:[a-z0-9_]+]] = arith.addi %[[ROW0]], %[[TY]] : index
// CHECK-DAG: %[[COL0:[a-z0-9_]+]] = arith.muli %[[BX]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[COL:[a-z0-9_]+]] = arith.addi %[[COL0]], %[[TX]] : index
// CHECK: %[[Z:[a-z0-9_]+]] = gpu.block_id z
// CHECK: %[[ACC:[a-z0-9_]+]] = scf.for
// CHECK-DAG: %[[RV:[a-z0-9_]+]] = memref.load %[[R]][%[[Z]], %[[ROW]]] : memref<2x8xf32>
// CHECK-DAG: %[[CV:[a-z0-9_]+]] = memref.load %[[C]][%[[COL]]] : memref<16xf16>
// CHECK-DAG: %[[S0V:[a-z0-9_]+]] = memref.load %[[S0]][] : memref<bf16>
// CHECK-DAG: %[[MV:[a-z0-9_]+]] = memref.load %[[M]][%c0{{(_[0-9]+)?}}, %[[ROW]], %[[COL]]] : memref<1x8x16xf32>
// CHECK-DAG: %[[CF:[a-z0-9_]+]] = arith.extf %[[CV]] : f16 to f32
// CHECK-DAG: %[[S0F:[a-z0-9_]+]] = arith.extf %[[S0V]] : bf16 to f32
// CHECK: %[[X0:[a-z0-9_]+]] = arith.addf %[[ACC]], %[[RV]] : f32
// CHECK-NEXT: %[[X1:[a-z0-9_]+]] = arith.addf %[[X0]], %[[CF]] : f32
// CHECK-NEXT: %[[X2:[a-z0-9_]+]] = arith.mulf %[[X1]], %[[S]] : f32
// CHECK-NEXT: %[[X3:[a-z0-9_]+]] = arith.mulf %[[X2]], %[[S0F]] : f32
// CHECK-NEXT: %[[X4:[a-z0-9_]+]] = arith.addf %[[X3]], %[[MV]] : f32
// CHECK-NEXT: memref.store %[[X4]], %[[D]][%[[Z]], %[[ROW]], %[[COL]]] : memref<2x8x16xf32>
func.func @kinds(%a: memref<2x8x32xf32>, %b: memref<32x16xf32>, %r: memref<2x8xf32>,
                 %c: memref<16xf16>, %s: f32, %s0: memref<bf16>, %m: memref<1x8x16xf32>,
                 %d: memref<2x8x16xf32>) {
  mepi.matmul ins(%a, %b : memref<2x8x32xf32>, memref<32x16xf32>)
      inputs(%r as row : memref<2x8xf32>, %c as col : memref<16xf16>, %s as scalar : f32,
             %s0 as scalar : memref<bf16>, %m as matrix : memref<1x8x16xf32>)
      outs(%d : memref<2x8x16xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %ri: f32, %ci: f16, %si: f32, %s0i: bf16, %mi: f32, %row: index, %col: index):
    %ce = arith.extf %ci : f16 to f32
    %s0e = arith.extf %s0i : bf16 to f32
    %x0 = arith.addf %acc, %ri : f32
    %x1 = arith.addf %x0, %ce : f32
    %x2 = arith.mulf %x1, %si : f32
    %x3 = arith.mulf %x2, %s0e : f32
    %x4 = arith.addf %x3, %mi : f32
    mepi.yield %x4 : f32
  }
  return
}
