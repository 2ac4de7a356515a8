// The launch grid is ceildiv(N, tile_n) x ceildiv(M, tile_m) x batch, the block tile_n x tile_m x 1:
// a 100x300 output with an 8x32 tile gives (10, 13, 1) blocks of (32, 8, 1) threads.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s
// RUN: mepi-opt %s --mepi-generate-kernels --canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @launch(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<100x64xf32>, %[[B:[a-z0-9_]+]]: memref<64x300xf32>, %[[D:[a-z0-9_]+]]: memref<100x300xf32>)
// CHECK-DAG: %[[TM:[a-z0-9_]+]] = arith.constant 8 : index
// CHECK-DAG: %[[TN:[a-z0-9_]+]] = arith.constant 32 : index
// CHECK-DAG: %[[M:[a-z0-9_]+]] = arith.constant 100 : index
// CHECK-DAG: %[[N:[a-z0-9_]+]] = arith.constant 300 : index
// CHECK-DAG: %[[GX:[a-z0-9_]+]] = arith.ceildivui %[[N]], %[[TN]] : index
// CHECK-DAG: %[[GY:[a-z0-9_]+]] = arith.ceildivui %[[M]], %[[TM]] : index
// CHECK: gpu.launch_func @mepi_kernels::@launch_matmul_0 blocks in (%[[GX]], %[[GY]], %{{[a-z0-9_]+}}) threads in (%[[TN]], %[[TM]], %{{[a-z0-9_]+}})
// CHECK-SAME: args(%[[A]] : memref<100x64xf32>, %[[B]] : memref<64x300xf32>, %[[D]] : memref<100x300xf32>)

// FOLD-LABEL: func.func @launch(
// FOLD-DAG: %[[ONE:[a-z0-9_]+]] = arith.constant 1 : index
// FOLD-DAG: %[[TM:[a-z0-9_]+]] = arith.constant 8 : index
// FOLD-DAG: %[[TN:[a-z0-9_]+]] = arith.constant 32 : index
// FOLD-DAG: %[[GX:[a-z0-9_]+]] = arith.constant 10 : index
// FOLD-DAG: %[[GY:[a-z0-9_]+]] = arith.constant 13 : index
// FOLD: gpu.launch_func @mepi_kernels::@launch_matmul_0 blocks in (%[[GX]], %[[GY]], %[[ONE]]) threads in (%[[TN]], %[[TM]], %[[ONE]])
func.func @launch(%a: memref<100x64xf32>, %b: memref<64x300xf32>, %d: memref<100x300xf32>) {
  mepi.matmul ins(%a, %b : memref<100x64xf32>, memref<64x300xf32>) outs(%d : memref<100x300xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [8, 32, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
