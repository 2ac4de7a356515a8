// Split-K: the launch takes the tensor maps, then a workspace (counters for 16 tiles x 2
// consumers, padded to 256 bytes, then 16 tiles x 3 splits x 128 x 128 f32 partials), and covers
// 16 tiles x 3 splits = 48 work units. Each consumer stores its partials as float4s, releases
// them (membar.gl) before its leader counts it in, and the last arrival sums the 3 partials in
// split order before the epilog.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK: %[[MA:.*]] = mepi.tensor_map %arg0
// CHECK: %[[MB:.*]] = mepi.tensor_map %arg1
// CHECK: %[[WS:.*]] = mepi.workspace 3145984 : !llvm.ptr
// CHECK: %[[UNITS:.*]] = arith.constant 48 : index
// CHECK: gpu.launch_func @mepi_kernels::@gemm_matmul_0 blocks in (%[[UNITS]], %{{.*}}, %{{.*}}) {{.*}} args(%[[MA]] : !llvm.ptr, %[[MB]] : !llvm.ptr, %[[WS]] : !llvm.ptr, %arg0
// CHECK-SAME: {mepi.config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 3>, epilogue = <store = registers>>}

// CHECK: gpu.func @gemm_matmul_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<200x1000xbf16>
// CHECK-SAME: mepi.tensor_map_params = 2 : i32
// CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// The producer and the consumers walk k-steps [split * 16 / 3, (split + 1) * 16 / 3).
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.setmaxregister increase 232
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-16: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: nvvm.barrier
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK: nvvm.barrier
// CHECK: scf.if
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: scf.for
// CHECK-COUNT-16: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// The epilog writes D only: straight from the registers, 8 columns a step (a switch picks the
// step's 4 registers), one store of 2 elements per row.
// CHECK: scf.index_switch %{{.*}} -> f32, f32, f32, f32
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
func.func @gemm(%a: memref<200x1000xbf16>, %b: memref<1000x1000xbf16>,
                %d: memref<200x1000xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<200x1000xbf16>, memref<1000x1000xbf16>)
      outs(%d : memref<200x1000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 3>, epilogue = <store = registers>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
