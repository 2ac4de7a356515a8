// With dynamic shapes the host side reads D's sizes with memref.dim: the grid is
// (ceildiv(N, tile_n), ceildiv(M, tile_m), batch).
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<?x?x?xf32>, %[[B:[a-z0-9_]+]]: memref<?x?xf32>, %[[D:[a-z0-9_]+]]: memref<?x?x?xf32>)
// CHECK-DAG: %[[TM:[a-z0-9_]+]] = arith.constant 8 : index
// CHECK-DAG: %[[TN:[a-z0-9_]+]] = arith.constant 32 : index
// CHECK-DAG: %[[I0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-DAG: %[[I2:[a-z0-9_]+]] = arith.constant 2 : index
// CHECK-DAG: %[[NDIM:[a-z0-9_]+]] = memref.dim %[[D]], %[[I2]] : memref<?x?x?xf32>
// CHECK-DAG: %[[MDIM:[a-z0-9_]+]] = memref.dim %[[D]], %{{[a-z0-9_]+}} : memref<?x?x?xf32>
// CHECK-DAG: %[[BDIM:[a-z0-9_]+]] = memref.dim %[[D]], %[[I0]] : memref<?x?x?xf32>
// CHECK-DAG: %[[GX:[a-z0-9_]+]] = arith.ceildivui %[[NDIM]], %[[TN]] : index
// CHECK-DAG: %[[GY:[a-z0-9_]+]] = arith.ceildivui %[[MDIM]], %[[TM]] : index
// CHECK-DAG: %[[GZ:[a-z0-9_]+]] = arith.muli %{{[a-z0-9_]+}}, %[[BDIM]] : index
// CHECK: gpu.launch_func @mepi_kernels::@dynamic_matmul_0 blocks in (%[[GX]], %[[GY]], %[[GZ]]) threads in (%[[TN]], %[[TM]], %{{[a-z0-9_]+}})
// CHECK-SAME: args(%[[A]] : memref<?x?x?xf32>, %[[B]] : memref<?x?xf32>, %[[D]] : memref<?x?x?xf32>)
func.func @dynamic(%a: memref<?x?x?xf32>, %b: memref<?x?xf32>, %d: memref<?x?x?xf32>) {
  mepi.matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?xf32>) outs(%d : memref<?x?x?xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [8, 32, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
