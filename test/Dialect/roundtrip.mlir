// Round-trip of the mepi assembly: parse, print, parse again, print the same.
// RUN: mepi-opt %s | mepi-opt | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK: mepi.matmul ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<17x65xf16>, memref<65x33xf16>) outs(%{{[a-z0-9_]+}} : memref<17x33xf16>) epilog {
// CHECK: ^bb0(%[[ACC:.*]]: f32, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index):
// CHECK:   %[[T:.*]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK:   mepi.yield %[[T]] : f16
func.func @plain(%a: memref<17x65xf16>, %b: memref<65x33xf16>, %d: memref<17x33xf16>) {
  mepi.matmul ins(%a, %b : memref<17x65xf16>, memref<65x33xf16>) outs(%d : memref<17x33xf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f16
    mepi.yield %t : f16
  }
  return
}

// CHECK-LABEL: func.func @cyclic_row
// CHECK: inputs(%{{[a-z0-9_]+}} as cyclic_row : memref<5xf32>) outs(%{{[a-z0-9_]+}} : memref<15x33xf16>)
func.func @cyclic_row(%a: memref<15x65xf16>, %b: memref<65x33xf16>, %r: memref<5xf32>,
                      %d: memref<15x33xf16>) {
  mepi.matmul ins(%a, %b : memref<15x65xf16>, memref<65x33xf16>)
      inputs(%r as cyclic_row : memref<5xf32>) outs(%d : memref<15x33xf16>) epilog {
  ^bb0(%acc: f32, %ri: f32, %row: index, %col: index):
    %x = arith.addf %acc, %ri : f32
    %t = arith.truncf %x : f32 to f16
    mepi.yield %t : f16
  }
  return
}

// CHECK-LABEL: func.func @everything
// CHECK: mepi.matmul ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<3x64x16xbf16>, memref<1x64x32xbf16>) alpha(%{{[a-z0-9_]+}}) c(%{{[a-z0-9_]+}} : memref<16x32xbf16>) beta(%{{[a-z0-9_]+}})
// CHECK-SAME: inputs(%{{[a-z0-9_]+}} as row : memref<16xf32>, %{{[a-z0-9_]+}} as col : memref<3x32xbf16>, %{{[a-z0-9_]+}} as scalar : f32, %{{[a-z0-9_]+}} as matrix : memref<3x16x32xf16>)
// CHECK-SAME: outs(%{{[a-z0-9_]+}} : memref<3x16x32xbf16>) aux(%{{[a-z0-9_]+}} as matrix : memref<3x16x32xi8>)
// CHECK-SAME: attributes {config = #mepi.kernel_config<simt, tile = [8, 32, 1]>, transpose_a}
func.func @everything(%a: memref<3x64x16xbf16>, %b: memref<1x64x32xbf16>, %alpha: f32,
                      %c: memref<16x32xbf16>, %beta: f32, %r: memref<16xf32>,
                      %cv: memref<3x32xbf16>, %s: f32, %m: memref<3x16x32xf16>,
                      %d: memref<3x16x32xbf16>, %mask: memref<3x16x32xi8>) {
  mepi.matmul ins(%a, %b : memref<3x64x16xbf16>, memref<1x64x32xbf16>) alpha(%alpha)
      c(%c : memref<16x32xbf16>) beta(%beta)
      inputs(%r as row : memref<16xf32>, %cv as col : memref<3x32xbf16>, %s as scalar : f32,
             %m as matrix : memref<3x16x32xf16>)
      outs(%d : memref<3x16x32xbf16>) aux(%mask as matrix : memref<3x16x32xi8>)
      attributes {transpose_a, config = #mepi.kernel_config<simt, tile = [8, 32, 1]>} epilog {
  ^bb0(%acc: f32, %ri: f32, %ci: bf16, %si: f32, %mi: f16, %row: index, %col: index):
    %x = arith.addf %acc, %ri : f32
    %t = arith.truncf %x : f32 to bf16
    %one = arith.constant 1 : i8
    mepi.yield %t, %one : bf16, i8
  }
  return
}

// CHECK-LABEL: func.func @dynamic_transposed_b
// CHECK: mepi.matmul ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32>)
// CHECK-SAME: transpose_b
func.func @dynamic_transposed_b(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32>,
                                %d: memref<?x?xf32>) {
  mepi.matmul ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32>)
      outs(%d : memref<?x?xf32>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}

// CHECK-LABEL: func.func @fp8
// CHECK: mepi.matmul ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<32x64xf8E4M3FN>, memref<64x16xf8E5M2>)
func.func @fp8(%a: memref<32x64xf8E4M3FN>, %b: memref<64x16xf8E5M2>, %d: memref<32x16xf8E4M3FN>) {
  mepi.matmul ins(%a, %b : memref<32x64xf8E4M3FN>, memref<64x16xf8E5M2>) outs(%d : memref<32x16xf8E4M3FN>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to f8E4M3FN
    mepi.yield %t : f8E4M3FN
  }
  return
}

// CHECK-LABEL: func.func @backward
// CHECK: inputs(%{{[a-z0-9_]+}} as bitmask : memref<16x30xi8, strided<[1, 16]>>)
// CHECK-SAME: aux(%{{[a-z0-9_]+}} as bitmask : memref<16x30xi8, strided<[1, 16]>>, %{{[a-z0-9_]+}} as matrix : memref<104x30xbf16, strided<[1, 104]>>)
// CHECK-SAME: reduce(%{{[a-z0-9_]+}} as row add : memref<100xbf16>, %{{[a-z0-9_]+}} as scalar max : memref<f32>)
// CHECK: ^bb0(%{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: i1, %{{[a-z0-9_]+}}: index, %{{[a-z0-9_]+}}: index):
func.func @backward(%w: memref<100x64xbf16>, %g: memref<64x30xbf16>,
                    %mask: memref<16x30xi8, strided<[1, 16]>>, %d: memref<100x30xbf16>,
                    %out_mask: memref<16x30xi8, strided<[1, 16]>>,
                    %pre: memref<104x30xbf16, strided<[1, 104]>>, %bgrad: memref<100xbf16>,
                    %amax: memref<f32>) {
  mepi.matmul ins(%w, %g : memref<100x64xbf16>, memref<64x30xbf16>)
      inputs(%mask as bitmask : memref<16x30xi8, strided<[1, 16]>>)
      outs(%d : memref<100x30xbf16>)
      aux(%out_mask as bitmask : memref<16x30xi8, strided<[1, 16]>>,
          %pre as matrix : memref<104x30xbf16, strided<[1, 104]>>)
      reduce(%bgrad as row add : memref<100xbf16>, %amax as scalar max : memref<f32>) epilog {
  ^bb0(%acc: f32, %positive: i1, %row: index, %col: index):
    %zero = arith.constant 0.0 : f32
    %x = arith.select %positive, %acc, %zero : f32
    %t = arith.truncf %x : f32 to bf16
    %abs = math.absf %x : f32
    mepi.yield %t, %positive, %t, %x, %abs : bf16, i1, bf16, f32, f32
  }
  return
}

// CHECK-LABEL: func.func @block_scaled
// CHECK: outs(%{{[a-z0-9_]+}} : memref<70x200xbf16>) block_scales(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<70x3xf32, strided<[1, 70]>>, memref<2x3xf32>) attributes {transpose_b} epilog {
func.func @block_scaled(%a: memref<70x300xf8E4M3FN>, %b: memref<200x300xf8E4M3FN>,
                        %d: memref<70x200xbf16>, %sa: memref<70x3xf32, strided<[1, 70]>>,
                        %sb: memref<2x3xf32>) {
  mepi.matmul ins(%a, %b : memref<70x300xf8E4M3FN>, memref<200x300xf8E4M3FN>)
      outs(%d : memref<70x200xbf16>)
      block_scales(%sa, %sb : memref<70x3xf32, strided<[1, 70]>>, memref<2x3xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// Mirrors: D's values stored again to each (another GPU's copy of D).
// CHECK-LABEL: func.func @mirrors
// CHECK: outs(%{{.*}} : memref<64x48xbf16>) mirrors(%{{.*}}, %{{.*}} : memref<64x48xbf16>, memref<64x48xbf16>) epilog
func.func @mirrors(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %d: memref<64x48xbf16>,
                   %m0: memref<64x48xbf16>, %m1: memref<64x48xbf16>) {
  mepi.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>)
      outs(%d : memref<64x48xbf16>) mirrors(%m0, %m1 : memref<64x48xbf16>, memref<64x48xbf16>)
      epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
