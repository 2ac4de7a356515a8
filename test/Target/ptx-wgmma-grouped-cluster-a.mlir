// A grouped problem in clusters along N (multicast = a): a unit is a tile row's pair of tile
// columns, so both blocks of a cluster hold one group's rows; each loads half of A's 128-row
// tile (a TMA box of 64 rows) into both blocks and its own group's B tile through the 3-D map
// (no multicast). 2056 columns make 9 tile columns of 256: the fifth pair's second tile lies
// right of D and stores nothing. The grid: 32 + 8 tile rows by 5 pairs, 400 blocks. ptxas
// assembles it without spills or serialized wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 64]
// IR: mepi.tensor_map %arg1 box [64, 256]
// IR: gpu.launch_func {{.*}} blocks in (%c400, %c1,
// IR-SAME: mepi.config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 3, cluster = 2, multicast = a>, epilogue = <store = tma>>

// CHECK: .entry moe_matmul_0(
// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK-DAG: shfl.sync.up.b32
// CHECK-DAG: mov.u32 {{.*}}, %clusterid.x;
// CHECK-DAG: mbarrier.arrive.shared::cluster.b64
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// PTXAS: Compiling entry function 'moe_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @moe(%x: memref<4096x1024xbf16> {mepi.alignment = 16 : i64}, %w: memref<8x2056x1024xbf16> {mepi.alignment = 16 : i64}, %offs: memref<8xi32>,
               %bias: memref<8x2056xbf16>, %d: memref<4096x2056xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<4096x1024xbf16>, memref<8x2056x1024xbf16>) groups(%offs ends : memref<8xi32>)
      inputs(%bias as col : memref<8x2056xbf16>) outs(%d : memref<4096x2056xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 3, cluster = 2, multicast = a>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %b: bf16, %row: index, %col: index, %group: index):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %acc, %bf : f32
    %t = arith.truncf %s : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
