// stop-after=epilog runs only mepi-simplify-epilog: the epilog is folded and unused inputs are
// dropped, but no configuration is chosen and no kernel is generated.
// RUN: mepi-opt %s --mepi-lower-to-ptx="stop-after=epilog" | FileCheck %s --implicit-check-not=gpu. --implicit-check-not=config

// CHECK-LABEL: func.func @stage(
// CHECK-SAME: %{{[a-z0-9_]+}}: memref<64x32xf32>, %{{[a-z0-9_]+}}: memref<32x48xf32>, %{{[a-z0-9_]+}}: memref<64xf32>, %[[BIAS:[a-z0-9_]+]]: memref<48xf32>, %[[D:[a-z0-9_]+]]: memref<64x48xf32>)
// CHECK: mepi.matmul
// CHECK-SAME: inputs(%[[BIAS]] as col : memref<48xf32>) outs(%[[D]] : memref<64x48xf32>) epilog {
// CHECK-NEXT: ^bb0(%[[ACC:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index):
// CHECK-NEXT: %[[THREE:[a-z0-9_]+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.mulf %[[X]], %[[THREE]] : f32
// CHECK-NEXT: mepi.yield %[[Y]] : f32
func.func @stage(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %r: memref<64xf32>,
                 %bias: memref<48xf32>, %d: memref<64x48xf32>) {
  mepi.matmul ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>)
      inputs(%r as row : memref<64xf32>, %bias as col : memref<48xf32>)
      outs(%d : memref<64x48xf32>) epilog {
  ^bb0(%acc: f32, %unused: f32, %bi: f32, %row: index, %col: index):
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %three = arith.addf %one, %two : f32
    %x = arith.addf %acc, %bi : f32
    %y = arith.mulf %x, %three : f32
    mepi.yield %y : f32
  }
  return
}
