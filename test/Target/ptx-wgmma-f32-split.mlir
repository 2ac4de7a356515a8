// Strict f32 (no fast_tf32) on the wgmma kernels: warps 1-3 of the producer warpgroup split
// each stage into TF32 parts in shared memory once it landed (Tf32Split.h): they round it in
// place (hi) and write the low parts into the stage's low buffer, make the writes visible to
// the tensor cores and arrive on the stage's ready barrier; the consumer waits on that barrier,
// then issues three tf32 wgmmas a k8 step (a_lo b_hi, a_hi b_lo, a_hi b_hi): twelve for a
// 32-wide k-step. ptxas assembles it without spills and without serializing the wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s --check-prefix=CONFIG
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=SPLIT
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=CONSUMER
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CONFIG: config = #mepi.kernel_config<wgmma, tile = [64, {{[0-9]+}}, 32]

// The splitters: three barriers a stage (full, empty, ready), then after the producer's
// registers are given back, the stage's loads, its split parts stored, fence and arrival.
// CHECK-COUNT-3: mbarrier.init.shared.b64
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: st.shared.v4.b32
// CHECK-DAG: fence.proxy.async.shared::cta;
// SPLIT: setmaxnreg.dec.sync.aligned.u32 40;
// SPLIT: fence.proxy.async.shared::cta;
// SPLIT-NEXT: mbarrier.arrive.shared.b64
// The consumer (placed before or after the producer): no split of its own, twelve wgmmas a
// k-step.
// CONSUMER: setmaxnreg.inc.sync.aligned.u32
// CONSUMER-NOT: st.shared.v4.b32
// CONSUMER-COUNT-12: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k8.f32.tf32.tf32
// CONSUMER-NOT: wgmma.mma_async
// CONSUMER: wgmma.commit_group.sync.aligned;

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<16x4096xf32> {mepi.alignment = 16 : i64},
                %b: memref<8192x4096xf32> {mepi.alignment = 16 : i64},
                %d: memref<16x8192xf32> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x4096xf32>, memref<8192x4096xf32>) outs(%d : memref<16x8192xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
