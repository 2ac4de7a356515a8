// The generated PTX is valid for the CUDA assembler: ptxas builds an sm_90a cubin from it with no
// register spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="ptx-file=%t.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: test -s %t.cubin

// CHECK: Compiling entry function 'bias_relu_matmul_0' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @bias_relu(%a: memref<100x64xf16>, %b: memref<64x300xf16>, %bias: memref<300xf16>,
                     %d: memref<100x300xf16>) {
  mepi.matmul ins(%a, %b : memref<100x64xf16>, memref<64x300xf16>)
      inputs(%bias as col : memref<300xf16>)
      outs(%d : memref<100x300xf16>) epilog {
  ^bb0(%acc: f32, %bi: f16, %row: index, %col: index):
    %bf = arith.extf %bi : f16 to f32
    %x = arith.addf %acc, %bf : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to f16
    mepi.yield %t : f16
  }
  return
}
