// The wgmma kernel with a cluster along N (multicast = a): the two blocks of a cluster compute
// tile columns 2j and 2j + 1 of one tile row, each loading half of A's 64-row tile (a TMA box
// of 32 rows) into both blocks and its own whole B tile (a box of 128 rows, no multicast).
// 31 tile columns: the last pair's second tile lies right of D and stores nothing. ptxas
// assembles it without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 32]
// IR: mepi.tensor_map %arg1 box [64, 128]
// The grid: one pair per cluster, 16 pairs of the 31 tile columns, 32 blocks.
// IR: gpu.launch_func {{.*}} blocks in (%c32, %c1,
// IR-SAME: mepi.config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>>

// CHECK: .entry gemm_matmul_0(
// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-DAG: mov.u32 {{.*}}, %clusterid.x;
// CHECK-DAG: mapa.shared::cluster.u64 {{.*}}, %r{{[0-9]+}};
// CHECK-DAG: mbarrier.arrive.shared::cluster.b64
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;

// PTXAS: Compiling entry function 'gemm_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<64x1024xbf16> {mepi.alignment = 16 : i64},
                %b: memref<3968x1024xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<3968xbf16>,
                %d: memref<64x3968xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<64x1024xbf16>, memref<3968x1024xbf16>)
      inputs(%bias as col : memref<3968xbf16>)
      outs(%d : memref<64x3968xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
