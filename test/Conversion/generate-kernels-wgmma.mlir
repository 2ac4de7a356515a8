// The wgmma family: TMA descriptors made on the host side lead the launch; the kernel has one
// producer and two consumer warpgroups (384 threads), initializes full/empty mbarriers, and the
// consumers issue four wgmma m64n256k16 per 64-wide k-step with one group left in flight.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK: %[[MA:.*]] = mepi.tensor_map %arg0 box [64, 128] swizzle 128 : memref<1000x1024xbf16> -> !llvm.ptr
// CHECK: %[[MB:.*]] = mepi.tensor_map %arg1 box [64, 256] swizzle 128 : memref<4000x1024xbf16> -> !llvm.ptr
// CHECK: gpu.launch_func @mepi_kernels::@gemm_matmul_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %{{.*}} args(%[[MA]] : !llvm.ptr, %[[MB]] : !llvm.ptr, %arg0 : memref<1000x1024xbf16>, %arg1 : memref<4000x1024xbf16>, %arg2 : memref<1000xbf16>, %arg3 : memref<1000x4000xbf16>) {mepi.config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>}

// CHECK: llvm.mlir.global external @mepi_shared_memory() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @gemm_matmul_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<1000x1024xbf16>, %{{.*}}: memref<4000x1024xbf16>, %{{.*}}: memref<1000xbf16>, %{{.*}}: memref<1000x4000xbf16>) kernel
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>, mepi.tensor_map_params = 2 : i32, nvvm.minctasm = 1 : i32
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The epilog stages one 32-column chunk at a time (a runtime loop; a switch picks the chunk's
// registers), then each thread reads 4 columns of it and adds the per-row bias, with bounds
// checks (1000 and 4000 are not multiples of the tile). D's alignment is not known here:
// scalar stores.
// CHECK: scf.for
// CHECK: scf.index_switch
// CHECK: nvvm.barrier
// CHECK: scf.for
// CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<1000xbf16>
// CHECK: memref.store %{{.*}} : memref<1000x4000xbf16>
func.func @gemm(%a: memref<1000x1024xbf16>, %b: memref<4000x1024xbf16>, %bias: memref<1000xbf16>,
                %d: memref<1000x4000xbf16>) {
  mepi.matmul ins(%a, %b : memref<1000x1024xbf16>, memref<4000x1024xbf16>)
      inputs(%bias as row : memref<1000xbf16>) outs(%d : memref<1000x4000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>} epilog {
  ^bb0(%acc: f32, %bv: bf16, %row: index, %col: index):
    %x = arith.extf %bv : bf16 to f32
    %s = arith.addf %acc, %x : f32
    %r = arith.truncf %s : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
