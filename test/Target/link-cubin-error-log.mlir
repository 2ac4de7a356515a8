// An nvJitLink failure is reported with its result code and ptxas's error log.
// RUN: not mepi-opt %s --mepi-lower-to-ptx --mepi-link-cubin="arch=sm_90a output=%t.cubin objects=%S/Inputs/syntax-error.ptx" -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: nvJitLink add of '{{.*}}syntax-error.ptx' failed: NVJITLINK_ERROR_PTX_COMPILE (4)
// CHECK-NEXT: error log:
// CHECK-NEXT: {{.*}}Parsing error near 'bogus': syntax error

func.func @plain(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
