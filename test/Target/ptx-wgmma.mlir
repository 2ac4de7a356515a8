// The wgmma kernel in PTX: TMA descriptors are 128-byte by-value parameters aligned to 64 bytes
// (grid constants: TMA reads them in parameter space through cvta.param), registers move from
// the producer to the consumers, and ptxas assembles it without spills (128 x 128 tiles: two
// consumer warpgroups).
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CHECK: .extern .shared .align 1024 .b8 mepi_shared_memory[];
// CHECK: .entry gemm_matmul_0(
// CHECK-NEXT: .param .align 64 .b8 gemm_matmul_0_param_0[128],
// CHECK-NEXT: .param .align 64 .b8 gemm_matmul_0_param_1[128],
// CHECK: .maxntid 384, 1, 1
// CHECK: .minnctapersm 1
// CHECK-DAG: cvta.param.u64
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.try_wait.parity

// PTXAS: Compiling entry function 'gemm_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<300x200xf16> {mepi.alignment = 16 : i64},
                %b: memref<500x200xf16> {mepi.alignment = 16 : i64}, %d: memref<300x500xf32>) {
  mepi.matmul ins(%a, %b : memref<300x200xf16>, memref<500x200xf16>) outs(%d : memref<300x500xf32>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
