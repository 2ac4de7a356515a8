// Stream-K without clusters for the device's own multiprocessors (the runtime's option, here
// 132): the walk is constants (the runtime launches min(walkers, multiprocessors) blocks), so no
// float reciprocal divides the units (it kept the k-step counts and the consumers' stage counter
// off the uniform datapath), and a launch with another grid traps. Without the option the walk
// is worked out from the grid (CHECK-DYN).
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a multiprocessors=132 ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx --implicit-check-not=rcp.approx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.dyn.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.dyn.ptx --check-prefix=CHECK-DYN

// CHECK: .entry gemm_matmul_0(
// CHECK: mov.u32 [[GRID:%r[0-9]+]], %nctaid.x;
// CHECK-NEXT: setp.eq.b32 {{.*}}, [[GRID]], 132;
// CHECK-DAG: trap;
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DYN: rcp.approx
// CHECK-DYN-NOT: trap;

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<4096x7168xbf16> {mepi.alignment = 16 : i64},
                %b: memref<4096x7168xbf16> {mepi.alignment = 16 : i64},
                %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x7168xbf16>, memref<4096x7168xbf16>)
      outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, scheduler = <stream_k>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
