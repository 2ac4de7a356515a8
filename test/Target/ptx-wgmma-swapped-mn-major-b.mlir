// Short M with B given as [K, N] (torch.mm's layout): the swapped form (Dᵀ = B Aᵀ) takes it,
// B's 64-row blocks loaded by 64 k-lines each (MN-major boxes) and read by the wgmmas
// transposed (their m side, imm-trans-a = 1), A's 16 rows K-major (their n side). ptxas
// assembles it without spills or serialized wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-select-kernel-config=chip=sm_90a | FileCheck %s --check-prefix=CONFIG
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CONFIG: config = #mepi.kernel_config<wgmma, tile = [16, 64, 64], mainloop = <stages = 16>, swapped = true>

// CHECK: .entry decode_matmul_0(
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 0;

// PTXAS: Compiling entry function 'decode_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @decode(%a: memref<16x8192xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<8192x8192xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<16x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x8192xbf16>, memref<8192x8192xbf16>)
      outs(%d : memref<16x8192xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
