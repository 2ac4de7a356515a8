// The simt family packs a bitmask aux through shared memory (the thread of every 8th row stores
// its column's byte) and completes reductions across blocks: partials in the workspace, one
// arrival counter, the last block combining in block order.
// RUN: mepi-opt %s --mepi-generate-kernels --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @relu_aux_amax
// CHECK: %[[WS:.*]] = mepi.workspace 512 : !llvm.ptr
// CHECK: gpu.launch_func @mepi_kernels::@relu_aux_amax_matmul_0 {{.*}} args(%[[WS]] : !llvm.ptr,

// CHECK-LABEL: gpu.func @relu_aux_amax_matmul_0(
// Workgroup buffers 16-byte aligned: LLVM vectorizes the loops that read them.
// CHECK-SAME: workgroup(%[[FLAGS:[a-z0-9_]+]] : memref<16x16xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[VALS:[a-z0-9_]+]] : memref<16x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[LAST:[a-z0-9_]+]] : memref<1xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[BITS:[a-z0-9_]+]]:2 = scf.if
// CHECK: memref.store %{{.*}}, %[[FLAGS]]
// CHECK: memref.store %[[BITS]]#1, %[[VALS]]
// CHECK: gpu.barrier
// The byte: 8 flags shifted into place, stored at (row / 8, col).
// CHECK-COUNT-8: arith.shli
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x30xi8, strided<[1, 16]>>
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: gpu.barrier
// CHECK: llvm.atomicrmw add %{{.*}} syncscope("device") monotonic
// CHECK: gpu.barrier
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}[] : memref<f32>
func.func @relu_aux_amax(%a: memref<100x64xbf16>, %b: memref<30x64xbf16>, %d: memref<100x30xbf16>,
                         %mask: memref<16x30xi8, strided<[1, 16]>>, %amax: memref<f32>) {
  mepi.matmul ins(%a, %b : memref<100x64xbf16>, memref<30x64xbf16>) outs(%d : memref<100x30xbf16>)
      aux(%mask as bitmask : memref<16x30xi8, strided<[1, 16]>>)
      reduce(%amax as scalar max : memref<f32>)
      attributes {transpose_b, config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %acc, %zero : f32
    %relu = arith.maximumf %acc, %zero : f32
    %t = arith.truncf %relu : f32 to bf16
    %abs = math.absf %relu : f32
    mepi.yield %t, %pos, %abs : bf16, i1, f32
  }
  return
}

// -----

// CHECK-LABEL: gpu.func @bias_grad_matmul_0(
// A row reduction: the thread of column 0 combines its row, in column order.
// CHECK: arith.addf
// CHECK: llvm.atomicrmw add
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<100xbf16>
func.func @bias_grad(%a: memref<100x64xbf16>, %b: memref<30x64xbf16>, %d: memref<100x30xbf16>,
                     %bgrad: memref<100xbf16>) {
  mepi.matmul ins(%a, %b : memref<100x64xbf16>, memref<30x64xbf16>) outs(%d : memref<100x30xbf16>)
      reduce(%bgrad as row add : memref<100xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t, %acc : bf16, f32
  }
  return
}

// -----

func.func @bitmask_tile(%a: memref<100x64xbf16>, %b: memref<30x64xbf16>, %d: memref<100x30xbf16>,
                        %mask: memref<16x30xi8>) {
  // expected-error @below {{expected a simt tile of a multiple of 8 rows for a bitmask aux output, got 4}}
  mepi.matmul ins(%a, %b : memref<100x64xbf16>, memref<30x64xbf16>) outs(%d : memref<100x30xbf16>)
      aux(%mask as bitmask : memref<16x30xi8>)
      attributes {transpose_b, config = #mepi.kernel_config<simt, tile = [4, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %acc, %zero : f32
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t, %pos : bf16, i1
  }
  return
}

// -----

// A column reduction: the thread of row 0 combines its column; the result has one value per
// column of D.
// CHECK-LABEL: gpu.func @col_max_matmul_0(
// CHECK: arith.maximumf
// CHECK: llvm.atomicrmw add
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<30xf32>
func.func @col_max(%a: memref<100x64xbf16>, %b: memref<30x64xbf16>, %d: memref<100x30xbf16>,
                   %colmax: memref<30xf32>) {
  mepi.matmul ins(%a, %b : memref<100x64xbf16>, memref<30x64xbf16>) outs(%d : memref<100x30xbf16>)
      reduce(%colmax as col max : memref<30xf32>)
      attributes {transpose_b, config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t, %acc : bf16, f32
  }
  return
}
