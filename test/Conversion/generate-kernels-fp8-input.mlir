// An fp8 epilog input is rejected at kernel generation with the operand named, not deep in LLVM.
// RUN: mepi-opt %s --mepi-generate-kernels --verify-diagnostics

func.func @fp8_bias(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %bias: memref<8xf8E4M3FN>, %d: memref<8x8xf16>) {
  // expected-error @below {{kernel generation does not support fp8 element types yet, got 'f8E4M3FN' for operand 2}}
  mepi.matmul ins(%a, %b : memref<8x8xf16>, memref<8x8xf16>) inputs(%bias as col : memref<8xf8E4M3FN>)
      outs(%d : memref<8x8xf16>) attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %x: f8E4M3FN, %row: index, %col: index):
    %e = arith.extf %x : f8E4M3FN to f32
    %s = arith.addf %acc, %e : f32
    %t = arith.truncf %s : f32 to f16
    mepi.yield %t : f16
  }
  return
}
