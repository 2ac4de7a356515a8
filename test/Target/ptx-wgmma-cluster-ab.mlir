// The wgmma kernel in clusters of 8 sharing both operands (multicast = ab): block r computes
// tile (r % 2, r / 2) of a unit of 2 tile rows by 4 tile columns. A row's 4 blocks share A's
// 128-row tile, each loading 32 rows (a TMA box of 32) into the row's blocks (mask 0x55 shifted
// by the block's row); a column's 2 blocks share B's 64-row tile, each loading 32 rows into the
// column's pair (mask 0x3 shifted by twice its column). Each consumer frees a stage in its
// row's 4 blocks and its column's other block (its threads 0-4 one block each), so a stage's
// empty barrier counts 2 consumers x 5 blocks. 3 tile rows and 17 tile columns: 2 x 5 units of 8 blocks, whose tiles below or
// right of D store nothing. ptxas assembles it without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 32]
// IR: mepi.tensor_map %arg1 box [64, 32]
// IR: gpu.launch_func {{.*}} blocks in (%c80, %c1,
// IR-SAME: mepi.config = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 8, cluster = 8, multicast = ab>>

// CHECK: .entry gemm_matmul_0(
// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 8, 1, 1
// CHECK: mov.b32 {{.*}}, 10;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: mov.u32 {{.*}}, %cluster_ctarank;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-DAG: mov.b16 {{.*}}, 85;
// CHECK-DAG: mov.b16 {{.*}}, 3;
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-DAG: setp.gt.u32 {{.*}}, 4;
// CHECK-DAG: mapa.shared::cluster.u64 {{.*}}, %r{{[0-9]+}};
// CHECK-DAG: mbarrier.arrive.shared::cluster.b64
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;

// PTXAS: Compiling entry function 'gemm_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<330x1024xbf16> {mepi.alignment = 16 : i64},
                %b: memref<1088x1024xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<1088xbf16>,
                %d: memref<330x1088xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<330x1024xbf16>, memref<1088x1024xbf16>)
      inputs(%bias as col : memref<1088xbf16>)
      outs(%d : memref<330x1088xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 8, cluster = 8, multicast = ab>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
