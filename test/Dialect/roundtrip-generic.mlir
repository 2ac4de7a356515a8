// The generic form (operand segments, input kinds, config) parses back to the same op.
// RUN: mepi-opt %s --mlir-print-op-generic | mepi-opt | FileCheck %s

// CHECK-LABEL: func.func @generic
// CHECK: mepi.matmul ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<8x4xf32>, memref<4x8xf32>) c(%{{[a-z0-9_]+}} : memref<8x8xf32>) beta(%{{[a-z0-9_]+}}) inputs(%{{[a-z0-9_]+}} as scalar : memref<f32>) outs(%{{[a-z0-9_]+}} : memref<8x8xf32>)
// CHECK-SAME: config = #mepi.kernel_config<simt, tile = [16, 16, 1]>
func.func @generic(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %c: memref<8x8xf32>, %beta: f32,
                   %s: memref<f32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) c(%c : memref<8x8xf32>) beta(%beta)
      inputs(%s as scalar : memref<f32>) outs(%d : memref<8x8xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %scale: f32, %row: index, %col: index):
    %x = arith.mulf %acc, %scale : f32
    mepi.yield %x : f32
  }
  return
}
