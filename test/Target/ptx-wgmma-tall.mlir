// 256-row wgmma tiles: two consumer warpgroups (384 threads), each computing two 64-row slices
// with two m64n128k16 per k16 step; A's TMA box is 256 rows, B's half of 128 (a cluster of 2),
// and ptxas assembles the two slices' 128 accumulators and the bias epilog without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 256]
// IR: mepi.tensor_map %arg1 box [64, 64]

// CHECK: .entry gemm_matmul_0(
// CHECK: .maxntid 384, 1, 1
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

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
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4, cluster = 2>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
