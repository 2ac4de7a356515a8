// Stream-K: the launch takes the tensor maps, then a workspace sized for 132 walker blocks
// (counters for 132 x 2 consumers, padded to 256 bytes, then 132 x 2 records x 2 consumers x
// 128 threads x 128 f32 partials), and the grid walks the 8 x 4 = 32 pair units of 2000 x 1000
// in clusters (64 blocks at most: one walker per 16 of the units' k-steps, 16 each here). Each
// role works out its walk: the walkers (at most 66 clusters), their whole units, and the
// ranges of the last wave's k-steps (at least 16 each). Divisions by the walkers are by the approximate reciprocal, corrected: ptxas
// makes a u32 division by a runtime value a subroutine call, which under nvJitLink serializes
// every wgmma of the kernel. A unit several walkers share is reduced as a split-K unit, any
// other one goes straight to the epilog.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=LONG

// CHECK-LABEL: func.func @gemm
// CHECK: %[[MA:.*]] = mepi.tensor_map %arg0
// CHECK: %[[MB:.*]] = mepi.tensor_map %arg1
// CHECK: %[[WS:.*]] = mepi.workspace 34604288 : !llvm.ptr
// CHECK: %[[BLOCKS:.*]] = arith.constant 64 : index
// CHECK: gpu.launch_func @mepi_kernels::@gemm_matmul_0 blocks in (%[[BLOCKS]], {{.*}} args(%[[MA]] : !llvm.ptr, %[[MB]] : !llvm.ptr, %[[WS]] : !llvm.ptr, %arg0
// CHECK-SAME: {mepi.config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>>}

// CHECK: gpu.func @gemm_matmul_0
// The producer's walk: its cluster among at most 66 walkers.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: %[[CID:.*]] = nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK: %[[NC:.*]] = nvvm.read.ptx.sreg.nclusterid.x : i32
// CHECK: %[[W:.*]] = arith.minui %[[NC]], %c66_i32 : i32
// CHECK: %[[WF:.*]] = arith.uitofp %[[W]] : i32 to f32
// CHECK: nvvm.rcp.approx.ftz.f %[[WF]] : f32
// CHECK-NOT: arith.divui %{{.*}}, %[[W]] : i32
// CHECK: arith.divui %{{.*}}, %c16_i32{{.*}} : i32
// CHECK: %[[LIVE:.*]] = arith.cmpi ult, %[[CID]], %[[W]] : i32
// CHECK: %[[ITERS:.*]] = arith.select %[[LIVE]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[ITERS]] step %{{.*}} iter_args
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The consumers' walk, the same.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The last stage released in both blocks of the cluster, one thread each.
// CHECK: nvvm.mapa
// A shared unit (splits > 1): the split-K reduction of its 2 records, else the unit alone.
// CHECK: %[[SHARED:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: scf.if %[[SHARED]] -> (i1, !llvm.struct
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: %[[ALONE:.*]] = arith.constant true
// CHECK: scf.yield %[[ALONE]]
func.func @gemm(%a: memref<2000x1000xbf16>, %b: memref<1000x1000xbf16>,
                %d: memref<2000x1000xbf16>) {
  mepi.matmul ins(%a, %b : memref<2000x1000xbf16>, memref<1000x1000xbf16>)
      outs(%d : memref<2000x1000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// Fewer units than walkers with long K (2000 x 1000 x 8000: 32 pair units of 125 k-steps):
// the grid offers a walker per 16 k-steps (250 clusters, capped at the device's by the
// runtime), so that the units' k-steps spread over every multiprocessor.
// LONG-LABEL: func.func @long_k
// LONG: %[[LONG:.*]] = arith.constant 500 : index
// LONG: gpu.launch_func @mepi_kernels::@long_k_matmul_0 blocks in (%[[LONG]],
func.func @long_k(%a: memref<2000x8000xbf16>, %b: memref<1000x8000xbf16>,
                  %d: memref<2000x1000xbf16>) {
  mepi.matmul ins(%a, %b : memref<2000x8000xbf16>, memref<1000x8000xbf16>)
      outs(%d : memref<2000x1000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
