// Values yielded after D's are stored to the aux outputs at the same element position.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @relu_mask_matmul_0(
// CHECK-SAME: %{{[a-z0-9_]+}}: memref<8x32xf32>, %{{[a-z0-9_]+}}: memref<32x16xf32>, %[[D:[a-z0-9_]+]]: memref<8x16xf32>, %[[MASK:[a-z0-9_]+]]: memref<8x16xi8>)
// CHECK-DAG: %[[TY:[a-z0-9_]+]] = gpu.thread_id y
// CHECK-DAG: %[[BY:[a-z0-9_]+]] = gpu.block_id y
// CHECK-DAG: %[[TX:[a-z0-9_]+]] = gpu.thread_id x
// CHECK-DAG: %[[BX:[a-z0-9_]+]] = gpu.block_id x
// CHECK-DAG: %[[ROW0:[a-z0-9_]+]] = arith.muli %[[BY]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[ROW:[a-z0-9_]+]] = arith.addi %[[ROW0]], %[[TY]] : index
// CHECK-DAG: %[[COL0:[a-z0-9_]+]] = arith.muli %[[BX]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[COL:[a-z0-9_]+]] = arith.addi %[[COL0]], %[[TX]] : index
// CHECK: %[[ACC:[a-z0-9_]+]] = scf.for
// CHECK: %[[RELU:[a-z0-9_]+]] = arith.maximumf %[[ACC]], %{{[a-z0-9_]+}} : f32
// CHECK-NEXT: %[[POS:[a-z0-9_]+]] = arith.cmpf ogt, %[[ACC]], %{{[a-z0-9_]+}} : f32
// CHECK-NEXT: %[[BIT:[a-z0-9_]+]] = arith.extui %[[POS]] : i1 to i8
// CHECK-NEXT: memref.store %[[RELU]], %[[D]][%[[ROW]], %[[COL]]] : memref<8x16xf32>
// CHECK-NEXT: memref.store %[[BIT]], %[[MASK]][%[[ROW]], %[[COL]]] : memref<8x16xi8>
func.func @relu_mask(%a: memref<8x32xf32>, %b: memref<32x16xf32>, %d: memref<8x16xf32>,
                     %mask: memref<8x16xi8>) {
  mepi.matmul ins(%a, %b : memref<8x32xf32>, memref<32x16xf32>) outs(%d : memref<8x16xf32>)
      aux(%mask as matrix : memref<8x16xi8>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %acc, %zero : f32
    %pos = arith.cmpf ogt, %acc, %zero : f32
    %bit = arith.extui %pos : i1 to i8
    mepi.yield %relu, %bit : f32, i8
  }
  return
}
