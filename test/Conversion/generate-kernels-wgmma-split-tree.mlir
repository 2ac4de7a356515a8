// Split-K of 128-row tiles in 11 splits or more sums up a tree of counters
// (SplitTreeSum.cpp): 4 tiles x 13 splits = 52 work units; each tile and consumer has 12
// counters (the tree's nodes), before the records. One trip a level (4 for 13 splits): the
// leader counts its warpgroup in at the level's node; the second to arrive waits for the
// first's mark, acquires (membar.gl) and adds the first's record, a float4 at a time; the
// first stores its sum as its record, releases it (membar.gl) and marks it ready (adds 2).
// The root's second runs the epilog.
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: func.func @gemm
// Workspace: 4 tiles x 2 consumers x 12 counters (384 bytes, padded to 512), then
// 4 x 13 records x 2 consumers x 128 threads x 64 f32.
// CHECK: mepi.workspace 3408384 : !llvm.ptr
// CHECK: %[[UNITS:.*]] = arith.constant 52 : index
// CHECK: gpu.launch_func @mepi_kernels::@gemm_matmul_0 blocks in (%[[UNITS]]
// CHECK-SAME: scheduler = <split_k, splits = 13>

// CHECK: gpu.func @gemm_matmul_0(
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.for %[[LEVEL:.*]] = %{{.*}} to %c4_i32{{.*}} iter_args(%{{.*}} = %true
// CHECK: arith.shli %{{.*}}, %[[LEVEL]] : i32
// CHECK: arith.cmpi ult, %{{.*}}, %c13_i32
// CHECK: nvvm.barrier
// CHECK: llvm.atomicrmw add %[[NODE:.*]], %c1_i32{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK: scf.while
// CHECK: llvm.load %[[NODE]] atomic syncscope("device") monotonic
// CHECK: nvvm.barrier
// CHECK: scf.if
// CHECK: nvvm.memory.barrier <gpu>
// CHECK-COUNT-16: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-16: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: nvvm.barrier
// CHECK: llvm.atomicrmw add %[[NODE]], %c2_i32{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// The last arrival's sum (a loop over the splits' records) is not emitted.
// CHECK-NOT: scf.for %{{.*}} = %{{.*}} to %c13_i32
func.func @gemm(%a: memref<256x20000xbf16> {mepi.alignment = 16 : i64},
                %b: memref<256x20000xbf16> {mepi.alignment = 16 : i64},
                %d: memref<256x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<256x20000xbf16>, memref<256x20000xbf16>)
      outs(%d : memref<256x256xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 13>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
