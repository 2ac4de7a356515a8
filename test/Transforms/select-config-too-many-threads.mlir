// A forced tile with more threads than a SIMT block can hold is rejected.
// RUN: mepi-opt %s --mepi-select-kernel-config="tile-m=64 tile-n=64" --verify-diagnostics

func.func @too_many(%a: memref<256x64xf32>, %b: memref<64x512xf32>, %d: memref<256x512xf32>) {
  // expected-error @below {{'mepi.matmul' op expected at most 1024 threads per simt block, got 4096}}
  mepi.matmul ins(%a, %b : memref<256x64xf32>, memref<64x512xf32>) outs(%d : memref<256x512xf32>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
