// Operand sums on the wgmma family (BGRADA's and BGRADB's bias gradients).
// @sums: A MN-major (transpose_a, as cuBLASLt's BGRADA takes it) and B K-major in a 128-row
// kernel (given: 128 x 128 with 8 splits), where the consumer threads add 16-byte chunks of the
// stage tiles (ld.shared.v4) while the wgmmas run and combine them with butterfly shuffles; under split-K (12 tiles) the partial
// sums travel with the accumulators' partials and the last split stores them.
// @bgradb: BGRADB's kernel on short M, 64 x 128 with no split and B given as [K, N], where the
// tensor cores sum: m64n8k16 wgmmas of each 64-row group of B's stage tile (read transposed) by
// a 1 KiB tile of bf16 ones (0x3F803F80 twice per word) that the block writes and fences for
// the async proxy before its first barrier.
// ptxas assembles both without spills and without serializing the wgmmas (it reports a
// "Potential Performance Loss" when, say, a non-wgmma instruction writes an accumulator in
// flight). The simt family sums with a loop over K.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// The simt family, without the given configurations:
// RUN: sed -E 's/config = #mepi.kernel_config<([^<>]|<[^<>]*>)*>,//' %s | mepi-opt --mepi-select-kernel-config="strategy=simt" --mepi-generate-kernels | FileCheck %s --check-prefix=SIMT

// CHECK-LABEL: .entry sums_matmul_0
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: ld.shared.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK-LABEL: .entry bgradb_matmul_0
// CHECK: st.shared.v4.b32 [{{.*}}], {1065369472, 1065369472, 1065369472, 1065369472};
// CHECK-NEXT: fence.proxy.async.shared::cta;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {{.*}}, p, 1,{{ +}}1, 1,{{ +}}0;

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// SIMT: gpu.func @sums_matmul_0
// SIMT: scf.for
// SIMT: arith.addf
// SIMT: memref.store %{{.*}} : memref<304xbf16>
// SIMT: scf.for
// SIMT: memref.store %{{.*}} : memref<500xbf16>
func.func @sums(%a: memref<4096x304xbf16> {mepi.alignment = 16 : i64},
                %b: memref<500x4096xbf16> {mepi.alignment = 16 : i64},
                %d: memref<304x500xbf16>, %ga: memref<304xbf16>, %gb: memref<500xbf16>) {
  mepi.matmul ins(%a, %b : memref<4096x304xbf16>, memref<500x4096xbf16>) outs(%d : memref<304x500xbf16>)
      a_sums(%ga : memref<304xbf16>) b_sums(%gb : memref<500xbf16>)
      attributes {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = 8>>,
                  transpose_a, transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @bgradb(%a: memref<128x1000xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<1000x520xbf16> {mepi.alignment = 16 : i64},
                  %d: memref<128x520xbf16>, %gb: memref<520xbf16>) {
  mepi.matmul ins(%a, %b : memref<128x1000xbf16>, memref<1000x520xbf16>) outs(%d : memref<128x520xbf16>)
      b_sums(%gb : memref<520xbf16>)
      attributes {config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
