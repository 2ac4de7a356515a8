// A device object of unknown kind is rejected by extension before nvJitLink runs.
// RUN: not mepi-opt %s --mepi-lower-to-ptx --mepi-link-cubin="objects=%s" -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: unknown device object kind for '{{.*}}link-cubin-unknown-object.mlir': expected .ptx, .ltoir, .cubin or .fatbin

func.func @plain(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %d: memref<8x8xf32>) {
  mepi.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
