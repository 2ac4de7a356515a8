// The swapped form split along K in clusters of 2 that share B's tile, as cuBLASLt runs few
// tiles of a long K (80 x 128 2x1 split-K): four 80-row tile rows pair up along M, and each
// block of a pair loads 64 of B's 128 rows into both (one multicast TMA copy, box [64, 64]);
// A's 80-row tile is the block's own. 4 x 3 tiles x 11 splits fill 132 blocks in 66 clusters.
// ptxas assembles it without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 80] swizzle 128
// IR: mepi.tensor_map %arg1 box [64, 64] swizzle 128
// IR: blocks in (%c132, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// IR-SAME: mainloop = <stages = 7, cluster = 2>, scheduler = <split_k, splits = 11>
// IR-SAME: swapped = true
// IR: nvvm.cluster_dim = array<i32: 2, 1, 1>
// IR: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// IR: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16

// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16
// CHECK-DAG: multicast::cluster
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: st.global.v4.b32
// CHECK-DAG: ld.global.v4.b32
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta

// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @gemm(%a: memref<320x55168xbf16> {mepi.alignment = 16 : i64},
                %b: memref<384x55168xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<384xbf16>,
                %d: memref<320x384xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<320x55168xbf16>, memref<384x55168xbf16>)
      inputs(%bias as col : memref<384xbf16>)
      outs(%d : memref<320x384xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [80, 128, 64], mainloop = <stages = 7, cluster = 2>, scheduler = <split_k, splits = 11>, epilogue = <store = tma>, swapped = true>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
