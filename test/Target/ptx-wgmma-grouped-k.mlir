// Groups along K (torch._grouped_mm's 2-D x 2-D: the weight gradient dW_g = dY_g^T X_g) on the
// wgmma kernel: a batched problem whose batch element g is group g, its k-steps those holding
// the group's elements of K (read from the groups operand by both roles), and the k-steps at a
// group's ends masked in shared memory by both consumers together (16-byte read-modify-writes,
// a proxy fence, then named barrier 5 of their 256 threads) before the wgmmas read them. MN-major
// A and B (dY as [K, M], X as [K, N]) and K-major ones (transpose_b) with a per-group bias;
// cooperative data-parallel tiles only. ptxas assembles both without spills or serialized wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a stop-after=kernel" | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR-LABEL: func.func @weight_gradient(
// IR: gpu.launch_func @mepi_kernels::@weight_gradient_matmul_0 blocks in (%c1024,
// IR-SAME: %arg2 : memref<8xi32>) {mepi.config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>}
// IR-LABEL: func.func @kmajor(
// IR: gpu.launch_func
// IR-SAME: %arg2 : memref<6xi64>) {mepi.config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, epilogue = <store = tma>>}
// IR-LABEL: gpu.func @weight_gradient_matmul_0(
// IR: nvvm.setmaxregister decrease 40
// IR: memref.load %{{.*}} : memref<8xi32>
// IR: nvvm.setmaxregister increase 232
// IR: memref.load %{{.*}} : memref<8xi32>
// IR: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// IR-NEXT: nvvm.barrier id = %c5_i32 number_of_threads = %c256_i32
// IR: nvvm.wgmma.mma_async

// CHECK-DAG: .entry weight_gradient_matmul_0(
// CHECK-DAG: .entry kmajor_matmul_0(
// CHECK: ld.shared.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync 5, 256;
// CHECK: wgmma.mma_async.sync.aligned

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @weight_gradient(%dy: memref<16336x4096xbf16> {mepi.alignment = 16 : i64}, %x: memref<16336x1024xbf16> {mepi.alignment = 16 : i64}, %offs: memref<8xi32>,
                           %dw: memref<8x4096x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%dy, %x : memref<16336x4096xbf16>, memref<16336x1024xbf16>) groups(%offs ends along k : memref<8xi32>)
      outs(%dw : memref<8x4096x1024xbf16>) attributes {transpose_a} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
func.func @kmajor(%a: memref<200x1000xf16> {mepi.alignment = 16 : i64}, %b: memref<136x1000xf16> {mepi.alignment = 16 : i64}, %ptr: memref<6xi64>,
                  %bias: memref<5x136xf16>, %d: memref<5x200x136xf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<200x1000xf16>, memref<136x1000xf16>) groups(%ptr indptr along k : memref<6xi64>)
      inputs(%bias as col : memref<5x136xf16>) outs(%d : memref<5x200x136xf16>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %bv: f16, %row: index, %col: index, %group: index):
    %bf = arith.extf %bv : f16 to f32
    %s = arith.addf %acc, %bf : f32
    %t = arith.truncf %s : f32 to f16
    mepi.yield %t : f16
  }
  return
}
