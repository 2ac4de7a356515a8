// A call to external device code becomes llvm.call to an llvm.func declaration in the kernel
// module, with index arguments passed as i64.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

func.func private @user_scale(f32, i64) -> f32

// CHECK: gpu.module @mepi_kernels
// CHECK: llvm.func @user_scale(f32, i64) -> f32
// CHECK: gpu.func @external_matmul_0
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: llvm.call @user_scale(%{{.*}}, %[[ROW]]) : (f32, i64) -> f32
// CHECK-NOT: func.call
func.func @external(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x16xf32>, memref<16x8xf32>) outs(%d : memref<8x8xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r64 = arith.index_cast %row : index to i64
    %r = func.call @user_scale(%acc, %r64) : (f32, i64) -> f32
    mepi.yield %r : f32
  }
  return
}
