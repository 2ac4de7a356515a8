// Batched problems on the wgmma kernel (numpy.matmul broadcasting): the heuristic gives a
// batched bf16 problem whose operands TMA can address the wgmma family; A and B load through
// tensor maps with one coordinate per batch dimension (3-D, 4-D copies), a broadcast batch
// dimension (B's leading 1s) at coordinate 0; the epilog reads the bias of its batch element
// (broadcast over the leading batch dimension) and writes D's, through TMA stores with D's
// batch coordinate in the ping-pong 128 x 128 tiles of the first (the second, of few tiles and
// a short K, takes 64 x 64 tiles with staged stores). ptxas assembles both without spills or serialized
// wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a stop-after=kernel" | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR-LABEL: func.func @bmm(
// IR: mepi.tensor_map %arg0 box [64, 128] swizzle 128 : memref<16x1000x512xbf16>
// IR: mepi.tensor_map %arg1 box [64, 64] swizzle 128 : memref<16x512x1024xbf16>
// IR: mepi.tensor_map %arg2 box [64, 64] swizzle 128 : memref<16x1000x1024xbf16>
// IR: gpu.launch_func
// IR-SAME: mepi.config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>
// IR-LABEL: func.func @broadcast_b(
// IR: mepi.tensor_map %arg1 box [64, 64] swizzle 128 : memref<1x1x512x256xbf16>
// IR: gpu.launch_func
// IR-SAME: mepi.config = #mepi.kernel_config<wgmma, tile = [64, 64, 64], mainloop = <stages = 8>>
// IR-LABEL: func.func @batch_of_one(
// IR: mepi.tensor_map %arg0 box [64, {{[0-9]+}}] swizzle 128 : memref<1x300x512xbf16>

// CHECK-DAG: .entry bmm_matmul_0(
// CHECK-DAG: .entry broadcast_b_matmul_0(
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}
// CHECK-DAG: wgmma.mma_async.sync.aligned
// CHECK-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}

// PTXAS: Compiling entry function '{{bmm|broadcast_b|batch_of_one}}_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function '{{bmm|broadcast_b|batch_of_one}}_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function '{{bmm|broadcast_b|batch_of_one}}_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @bmm(%a: memref<16x1000x512xbf16> {mepi.alignment = 16 : i64},
               %b: memref<16x512x1024xbf16> {mepi.alignment = 16 : i64},
               %d: memref<16x1000x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x1000x512xbf16>, memref<16x512x1024xbf16>)
      outs(%d : memref<16x1000x1024xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @broadcast_b(%a: memref<2x3x300x512xbf16> {mepi.alignment = 16 : i64},
                       %b: memref<1x1x512x256xbf16> {mepi.alignment = 16 : i64},
                       %bias: memref<3x300xbf16>,
                       %d: memref<2x3x300x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2x3x300x512xbf16>, memref<1x1x512x256xbf16>)
      inputs(%bias as row : memref<3x300xbf16>)
      outs(%d : memref<2x3x300x256xbf16>) epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// A batch of one (D [1, M, N]): still batched, through 3-D tensor maps at batch coordinate 0.
// CHECK-DAG: .entry batch_of_one_matmul_0(
func.func @batch_of_one(%a: memref<1x300x512xbf16> {mepi.alignment = 16 : i64},
                        %b: memref<512x256xbf16> {mepi.alignment = 16 : i64},
                        %d: memref<1x300x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1x300x512xbf16>, memref<512x256xbf16>)
      outs(%d : memref<1x300x256xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
