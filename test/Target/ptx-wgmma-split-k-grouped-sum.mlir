// The last arrival of a narrow split-K tile loads the records of several splits before it
// adds them: a 64 x 64 slice holds 32 accumulators a thread, so each turn of the sum loads
// two splits' eight float4s (16 loads) and only then adds, in split order.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CHECK: atom.global.add.u32
// CHECK: membar.gl;
// CHECK-COUNT-16: ld.global.v4.b32
// CHECK-NOT: ld.global
// CHECK: add.rn.f32

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @gemm(%a: memref<384x22976xbf16> {mepi.alignment = 16 : i64},
                %b: memref<128x22976xbf16> {mepi.alignment = 16 : i64}, %d: memref<384x128xbf16>) {
  mepi.matmul ins(%a, %b : memref<384x22976xbf16>, memref<128x22976xbf16>) outs(%d : memref<384x128xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>, scheduler = <split_k, splits = 7>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
