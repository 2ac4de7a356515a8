// The ping-pong wgmma kernel in PTX: two consumer warpgroups (384 threads), each issuing two
// m64n128k16 wgmmas per k16 step (the tile's two 64-row slices), handing the main loop over
// through named barriers 3 and 4 (bar.sync to wait for its turn, bar.arrive to give it), and
// ptxas assembles it with its 128 accumulators and the GELU-bias epilog without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CHECK: .entry gemm_matmul_0(
// CHECK: .maxntid 384, 1, 1
// CHECK-DAG: bar.sync %r{{[0-9]+}}, 256;
// CHECK-DAG: bar.arrive %r{{[0-9]+}}, 256;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232

// PTXAS: Compiling entry function 'gemm_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<1000x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<1024x4096xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<1000xbf16>,
                %d: memref<1000x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xbf16>, memref<1024x4096xbf16>)
      inputs(%bias as row : memref<1000xbf16>)
      outs(%d : memref<1000x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %x, %t : f32
    %r = arith.truncf %y : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
