// The epilog region is inlined into the kernel on the accumulator, its result is stored to D, and
// no mepi op is left.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --implicit-check-not=mepi.matmul --implicit-check-not=mepi.yield

// CHECK-LABEL: gpu.func @act_matmul_0(
// CHECK-SAME: %{{[a-z0-9_]+}}: memref<100x64xf32>, %{{[a-z0-9_]+}}: memref<64x300xf32>, %[[D:[a-z0-9_]+]]: memref<100x300xbf16>)
// CHECK: %[[ACC:[a-z0-9_]+]] = scf.for
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[RELU:[a-z0-9_]+]] = arith.maximumf %[[ACC]], %[[ZERO]] : f32
// CHECK-NEXT: %[[TANH:[a-z0-9_]+]] = math.tanh %[[RELU]] : f32
// CHECK-NEXT: %[[OUT:[a-z0-9_]+]] = arith.truncf %[[TANH]] : f32 to bf16
// CHECK-NEXT: memref.store %[[OUT]], %[[D]][%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] : memref<100x300xbf16>
// CHECK: gpu.return
func.func @act(%a: memref<100x64xf32>, %b: memref<64x300xf32>, %d: memref<100x300xbf16>) {
  mepi.matmul ins(%a, %b : memref<100x64xf32>, memref<64x300xf32>) outs(%d : memref<100x300xbf16>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %acc, %zero : f32
    %t = math.tanh %relu : f32
    %out = arith.truncf %t : f32 to bf16
    mepi.yield %out : bf16
  }
  return
}
