// The wgmma family's epilog combines through a per-consumer scratch area: the 4 elements of a
// step write their mask flags as the bytes of one word and add their values to the thread's
// reduction slots; after each chunk, each thread packs 8 flag rows into a byte of the
// column-major mask and 32 threads combine the column slots into the chunk's column partials;
// after the tile, the row and scalar partials, one arrival per reduction, and the last
// warpgroup combines in contributor order (Reductions.h).
// RUN: mepi-opt %s --mepi-generate-kernels --split-input-file --verify-diagnostics | FileCheck %s

// Workspace: row (4 groups x 3 tile columns x 64 rows), column (3 groups x 4 row slices x 128)
// and scalar (12 contributors) regions, each with its counters, 256-byte aligned. Shared
// memory: 4 stages of 32 KiB, 2 staging blocks of 10 KiB, 2 scratch areas of 6928 bytes
// (mask 2304, row 2048, column 2048, scalar 512, flags 16), barriers and alignment slack.
// CHECK-LABEL: func.func @relu_aux_bgrad
// CHECK: %[[WS:.*]] = mepi.workspace 10240 : !llvm.ptr
// CHECK: gpu.launch_func @mepi_kernels::@relu_aux_bgrad_matmul_0 {{.*}} dynamic_shared_memory_size %c166512_i32 args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[WS]] : !llvm.ptr,

// CHECK-LABEL: gpu.func @relu_aux_bgrad_matmul_0(
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.for
// CHECK-COUNT-4: arith.shli %{{.*}} : i32
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-COUNT-4: arith.addf
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-COUNT-4: arith.maximumf
// CHECK: nvvm.barrier
// CHECK-COUNT-8: arith.shli %{{.*}} : i8
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x300xi8, strided<[1, 32]>>
// CHECK-COUNT-8: arith.shli %{{.*}} : i8
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x300xi8, strided<[1, 32]>>
// CHECK-COUNT-16: arith.addf
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: nvvm.barrier
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: nvvm.barrier
// CHECK-COUNT-3: llvm.atomicrmw add %{{.*}} syncscope("device") monotonic
// CHECK: nvvm.barrier
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<200xbf16>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<300xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
func.func @relu_aux_bgrad(%a: memref<200x64xbf16>, %b: memref<300x64xbf16>, %d: memref<200x300xbf16>,
                          %mask: memref<32x300xi8, strided<[1, 32]>>, %rows: memref<200xbf16>,
                          %cols: memref<300xf32>, %amax: memref<f32>) {
  mepi.matmul ins(%a, %b : memref<200x64xbf16>, memref<300x64xbf16>) outs(%d : memref<200x300xbf16>)
      aux(%mask as bitmask : memref<32x300xi8, strided<[1, 32]>>)
      reduce(%rows as row add : memref<200xbf16>, %cols as col add : memref<300xf32>,
             %amax as scalar max : memref<f32>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %acc, %zero : f32
    %relu = arith.maximumf %acc, %zero : f32
    %t = arith.truncf %relu : f32 to bf16
    %abs = math.absf %relu : f32
    mepi.yield %t, %pos, %relu, %relu, %abs : bf16, i1, f32, f32, f32
  }
  return
}

// -----

// The scratch area counts against the block's shared memory.
func.func @too_much_shared(%a: memref<256x64xbf16>, %b: memref<256x64xbf16>, %d: memref<256x256xbf16>,
                           %r0: memref<256xf32>, %r1: memref<256xf32>, %r2: memref<256xf32>,
                           %r3: memref<256xf32>) {
  // expected-error @+1 {{needs 234608 bytes of shared memory for 4 stages and the epilog, more than the 232448 a block can have; use fewer stages}}
  mepi.matmul ins(%a, %b : memref<256x64xbf16>, memref<256x64xbf16>) outs(%d : memref<256x256xbf16>)
      reduce(%r0 as row add : memref<256xf32>, %r1 as row add : memref<256xf32>,
             %r2 as row add : memref<256xf32>, %r3 as row add : memref<256xf32>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t, %acc, %acc, %acc, %acc : bf16, f32, f32, f32, f32
  }
  return
}
