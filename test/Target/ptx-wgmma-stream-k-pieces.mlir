// Stream-K whose last wave's units are cut into pieces of their own (Sm90Spec::streamKPieces:
// 2304 x 2048 has 144 tiles of 128 x 256 on the device's 132 multiprocessors, 12 shared units of
// 64 k-steps in four pieces of 16). The piece of a unit's last k-steps finishes it: its leader
// waits on the unit's counter until the three other pieces have counted in (a relaxed
// device-scope load in a loop), resets it, and the warpgroup adds their records to its own
// accumulators; the other pieces store their records and count in (nothing more: no piece but the
// finisher reads whether it came last). Without the device's count (CHECK-DYN) the walk is
// not constants, there are no pieces, and the last arrival sums every record as split-K does.
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a multiprocessors=132 ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.dyn.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.dyn.ptx --check-prefix=CHECK-DYN

// CHECK: .entry gemm_matmul_0(
// CHECK: membar.gl;
// CHECK: atom.global.add.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}], 1;
// CHECK-NEXT: $L__BB0_{{[0-9]+}}:
// CHECK: ld.relaxed.gpu.global.b32 [[SEEN:%r[0-9]+]], [[[COUNTER:%rd[0-9]+]]];
// CHECK-NEXT: setp.lt.u32 [[WAIT:%p[0-9]+]], [[SEEN]], 3;
// CHECK-NEXT: @[[WAIT]] bra {{\$L__BB0_[0-9]+}};
// CHECK-NEXT: st.global.b32 [[[COUNTER]]], 0;
// CHECK: membar.gl;
// CHECK-DYN: .entry gemm_matmul_0(
// CHECK-DYN-NOT: ld.relaxed.gpu

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<2304x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<2048x4096xbf16> {mepi.alignment = 16 : i64},
                %d: memref<2304x2048xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2304x4096xbf16>, memref<2048x4096xbf16>)
      outs(%d : memref<2304x2048xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, scheduler = <stream_k>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
