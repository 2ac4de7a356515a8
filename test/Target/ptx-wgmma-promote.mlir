// The promoted accumulator policy (`promote = P`): each consumer runs its k-steps in blocks of
// P from zero accumulators, waits for the block's wgmmas (wait_group 0) and adds their
// accumulators into a second set of registers with rounded f32 additions (add.rn.f32), which
// the epilog then reads. Here f32 at TF32 precision on 128 x 128 tiles (one 64 x 128 slice per
// consumer: 64 + 64 accumulator registers) and bf16 on 64 x 128 tiles with split-K; ptxas
// assembles both without spills and without serializing the wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: mepi-opt %s --split-input-file --mepi-generate-kernels | FileCheck %s --check-prefix=KERNEL

// CHECK-LABEL: .entry promoted_tf32_matmul_0
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: add.rn.f32
// CHECK-LABEL: .entry promoted_bf16_matmul_0
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: add.rn.f32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// The k-steps in blocks of 4: an outer loop stepping by 4 around the k-step loop.
// KERNEL-LABEL: gpu.func @promoted_tf32_matmul_0
// KERNEL: %[[FOUR:.*]] = arith.constant 4 : i32
// KERNEL: scf.for %[[BLOCK:.*]] = %{{.*}} to %{{.*}} step %[[FOUR]]
// KERNEL: arith.minui
// KERNEL: scf.for
// KERNEL: nvvm.wgmma.mma_async
// KERNEL: nvvm.wgmma.wait.group.sync.aligned 0
// KERNEL: llvm.fadd
func.func @promoted_tf32(%a: memref<1000x4096xf32> {mepi.alignment = 16 : i64},
                         %b: memref<520x4096xf32> {mepi.alignment = 16 : i64},
                         %d: memref<1000x520xf32> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xf32>, memref<520x4096xf32>)
      outs(%d : memref<1000x520xf32>)
      attributes {compute = #mepi.compute<fast_tf32>, transpose_b,
                  config = #mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = <stages = 6, promote = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// -----

func.func @promoted_bf16(%a: memref<300x8192xbf16> {mepi.alignment = 16 : i64},
                         %b: memref<257x8192xbf16> {mepi.alignment = 16 : i64},
                         %d: memref<300x257xbf16>) {
  mepi.matmul ins(%a, %b : memref<300x8192xbf16>, memref<257x8192xbf16>)
      outs(%d : memref<300x257xbf16>)
      attributes {transpose_b,
                  config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8, promote = 2>, scheduler = <split_k, splits = 4>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
