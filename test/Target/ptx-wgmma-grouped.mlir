// Grouped problems on the wgmma kernel: the groups operand (torch._grouped_mm's offs, FlashInfer's
// seg_indptr with weight_indices) goes to the kernel as a memref, which warp 0 of each block
// reads into the group table (two passes around a warp scan: shfl.sync.up); B's matrices load
// through a 3-D tensor map (the group's matrix a coordinate); the grid is sized for every
// group's tile rows (4096 / 128 + 8 groups, by 2048 / 256 columns) and each block walks as many
// units as the table says. D leaves by TMA stores for the 64-row slices inside their group; a
// slice that crosses its group's end (rows past it belong to the next group) goes through the
// same buffers, which its threads copy to D by 16-byte units below the group's end; no clusters
// or split-K. A 64-row slice wholly past its group's end skips its epilog. ptxas assembles both
// without spills or serialized wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a stop-after=kernel" | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR-LABEL: func.func @moe(
// IR: mepi.tensor_map %arg1 box [64, 64] swizzle 128 : memref<8x1024x2048xbf16>
// IR: gpu.launch_func @mepi_kernels::@moe_matmul_0 blocks in (%c320,
// IR-SAME: %arg2 : memref<8xi32>) {mepi.config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>}
// IR-LABEL: func.func @segments(
// IR: gpu.launch_func
// IR-SAME: %arg2 : memref<5xi64>, %arg3 : memref<4xi64>) {mepi.config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>>}
// IR-LABEL: gpu.func @moe_matmul_0(
// IR: memref.load %{{.*}} : memref<8xi32>
// IR-COUNT-10: nvvm.shfl.sync  up
// IR: gpu.barrier
// IR: nvvm.setmaxregister decrease 40
// A slice wholly past its group's end skips its epilog: after the unit's last stage is released,
// the epilog (from the group's bias row on) runs only where the slice's first row is below the
// group's end.
// IR: llvm.inline_asm has_side_effects "", "=f
// IR-NEXT: arith.subi
// IR: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// IR-NEXT: }
// IR-NEXT: %[[SLICE:.*]] = arith.muli %{{.*}}, %c64_i32 : i32
// IR-NEXT: %[[FIRST:.*]] = arith.addi %{{.*}}, %[[SLICE]] : i32
// IR-NEXT: %[[HAS:.*]] = arith.cmpi ult, %[[FIRST]], %{{.*}} : i32
// IR-NEXT: scf.if %[[HAS]] {
// IR-NEXT: arith.index_castui
// IR-NEXT: memref.subview %arg5
// IR-LABEL: gpu.func @segments_matmul_0(
// IR: memref.load %{{.*}} : memref<5xi64>
// IR: nvvm.setmaxregister decrease 40
// IR: memref.load %{{.*}} : memref<4xi64>

// CHECK-DAG: .entry moe_matmul_0(
// CHECK-DAG: .entry segments_matmul_0(
// CHECK-DAG: shfl.sync.up.b32
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: wgmma.mma_async.sync.aligned
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: st.global.v4.b32

// PTXAS: Compiling entry function '{{moe|segments}}_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function '{{moe|segments}}_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @moe(%x: memref<4096x1024xbf16> {mepi.alignment = 16 : i64}, %w: memref<8x1024x2048xbf16> {mepi.alignment = 16 : i64}, %offs: memref<8xi32>,
               %bias: memref<8x2048xbf16>, %d: memref<4096x2048xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%x, %w : memref<4096x1024xbf16>, memref<8x1024x2048xbf16>) groups(%offs ends : memref<8xi32>)
      inputs(%bias as col : memref<8x2048xbf16>) outs(%d : memref<4096x2048xbf16>) epilog {
  ^bb0(%acc: f32, %b: bf16, %row: index, %col: index, %group: index):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %acc, %bf : f32
    %t = arith.truncf %s : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
func.func @segments(%x: memref<77x40xf16> {mepi.alignment = 16 : i64}, %w: memref<3x96x40xf16> {mepi.alignment = 16 : i64}, %indptr: memref<5xi64>,
                    %wi: memref<4xi64>, %d: memref<77x96xf16>) {
  mepi.matmul ins(%x, %w : memref<77x40xf16>, memref<3x96x40xf16>)
      groups(%indptr indptr : memref<5xi64>) weights(%wi : memref<4xi64>)
      outs(%d : memref<77x96xf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to f16
    mepi.yield %t : f16
  }
  return
}
