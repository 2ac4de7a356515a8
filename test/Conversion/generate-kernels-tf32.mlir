// Under tf32 compute both operands are rounded to a 10-bit mantissa (ties away) before the FMA.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @tf32_matmul_0
// CHECK: scf.for
// CHECK: %[[ABITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 4096 : i32
// CHECK-DAG: %[[MASK:.*]] = arith.constant -8192 : i32
// CHECK: %[[AADD:.*]] = arith.addi %[[ABITS]], %[[HALF]] : i32
// CHECK: %[[AAND:.*]] = arith.andi %[[AADD]], %[[MASK]] : i32
// CHECK: %[[A:.*]] = arith.bitcast %[[AAND]] : i32 to f32
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: math.fma %[[A]], %[[B]], %{{.*}} : f32
func.func @tf32(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%d : memref<8x8xf32>)
      attributes {compute = #mepi.compute<fast_tf32>, config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
