// The wgmma kernel with a cluster of 2: the kernel declares its cluster shape (a plain launch
// forms the clusters), fences the barrier initialization to the cluster and meets the peer at a
// cluster barrier before its first load and before it exits; each block multicasts half of B's
// tile (a TMA box of 128 of the 256 rows) into both blocks, and each consumer frees a stage in
// both blocks (its threads 0 and 1 each map the barrier to rank 0 or 1, then arrive remotely).
// ptxas assembles it without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 128]
// IR: mepi.tensor_map %arg1 box [64, 128]

// CHECK: .entry gemm_matmul_0(
// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-DAG: mov.u32 {{.*}}, %clusterid.x;
// CHECK-DAG: mov.u32 {{.*}}, %nclusterid.x;
// CHECK-DAG: mapa.shared::cluster.u64 {{.*}}, %r{{[0-9]+}};
// CHECK-DAG: mbarrier.arrive.shared::cluster.b64
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;

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
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
