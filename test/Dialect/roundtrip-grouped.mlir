// Round-trip of the grouped form: groups in each form, weight_indices, per-group epilog inputs
// and the epilog's group argument.
// RUN: mepi-opt %s | mepi-opt | FileCheck %s

// CHECK-LABEL: func.func @moe_forward
// CHECK: mepi.matmul ins(%{{.*}}, %{{.*}} : memref<1000x64xbf16>, memref<8x64x96xbf16>) groups(%{{.*}} ends : memref<8xi32>)
// CHECK-SAME: inputs(%{{.*}} as col : memref<8x96xbf16>) outs(%{{.*}} : memref<1000x96xbf16>) epilog {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: bf16, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
func.func @moe_forward(%x: memref<1000x64xbf16>, %w: memref<8x64x96xbf16>, %offs: memref<8xi32>,
                       %bias: memref<8x96xbf16>, %d: memref<1000x96xbf16>) {
  mepi.matmul ins(%x, %w : memref<1000x64xbf16>, memref<8x64x96xbf16>) groups(%offs ends : memref<8xi32>)
      inputs(%bias as col : memref<8x96xbf16>) outs(%d : memref<1000x96xbf16>) epilog {
  ^bb0(%acc: f32, %b: bf16, %row: index, %col: index, %group: index):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %acc, %bf : f32
    %t = arith.truncf %s : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// CHECK-LABEL: func.func @segments
// CHECK: groups(%{{.*}} indptr : memref<5xi64>) weights(%{{.*}} : memref<4xi64>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
func.func @segments(%x: memref<77x40xf16>, %w: memref<3x96x40xf16>, %indptr: memref<5xi64>,
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

// CHECK-LABEL: func.func @lengths
// CHECK: groups(%{{.*}} lengths : memref<2xi32>)
func.func @lengths(%x: memref<64x64xbf16>, %w: memref<2x64x64xbf16>, %lens: memref<2xi32>,
                   %scale: memref<2xf32>, %d: memref<64x64xbf16>) {
  mepi.matmul ins(%x, %w : memref<64x64xbf16>, memref<2x64x64xbf16>) groups(%lens lengths : memref<2xi32>)
      inputs(%scale as scalar : memref<2xf32>) outs(%d : memref<64x64xbf16>) epilog {
  ^bb0(%acc: f32, %s: f32, %row: index, %col: index, %group: index):
    %m = arith.mulf %acc, %s : f32
    %t = arith.truncf %m : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// CHECK-LABEL: func.func @masked
// CHECK: groups(%{{.*}} masked : memref<4xi32>)
func.func @masked(%x: memref<256x64xbf16>, %w: memref<4x64x32xbf16>, %m: memref<4xi32>,
                  %d: memref<256x32xbf16>) {
  mepi.matmul ins(%x, %w : memref<256x64xbf16>, memref<4x64x32xbf16>) groups(%m masked : memref<4xi32>)
      outs(%d : memref<256x32xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// CHECK-LABEL: func.func @weight_gradient
// CHECK: mepi.matmul ins(%{{.*}}, %{{.*}} : memref<1000x96xbf16>, memref<1000x64xbf16>) groups(%{{.*}} ends along k : memref<4xi32>)
// CHECK-SAME: inputs(%{{.*}} as scalar : memref<4xf32>) outs(%{{.*}} : memref<4x96x64xbf16>) attributes {transpose_a}
func.func @weight_gradient(%dy: memref<1000x96xbf16>, %x: memref<1000x64xbf16>, %offs: memref<4xi32>,
                           %scale: memref<4xf32>, %dw: memref<4x96x64xbf16>) {
  mepi.matmul ins(%dy, %x : memref<1000x96xbf16>, memref<1000x64xbf16>) groups(%offs ends along k : memref<4xi32>)
      inputs(%scale as scalar : memref<4xf32>) outs(%dw : memref<4x96x64xbf16>) attributes {transpose_a} epilog {
  ^bb0(%acc: f32, %s: f32, %row: index, %col: index, %group: index):
    %m = arith.mulf %acc, %s : f32
    %t = arith.truncf %m : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
