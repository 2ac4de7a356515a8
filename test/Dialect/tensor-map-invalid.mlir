// mepi.tensor_map verifies that TMA can describe its source.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @pitch(%a: memref<64x100xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected a row pitch that is a multiple of 16 bytes, got 200}}
  %m = mepi.tensor_map %a box [64, 64] swizzle 128 : memref<64x100xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @box(%a: memref<64x128xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected a box of 2 sizes in [1, 256]}}
  %m = mepi.tensor_map %a box [64, 512] swizzle 128 : memref<64x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @swizzle_span(%a: memref<64x128xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected the box's inner extent (256 bytes) within the 128-byte swizzle}}
  %m = mepi.tensor_map %a box [128, 64] swizzle 128 : memref<64x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @column_major(%a: memref<64x128xbf16, strided<[1, 64]>>) -> !llvm.ptr {
  // expected-error @+1 {{expected a source with unit stride in its last dimension}}
  %m = mepi.tensor_map %a box [64, 64] swizzle 128 : memref<64x128xbf16, strided<[1, 64]>> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @rank(%a: memref<2x2x2x2x64x128xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected a source of rank 2 to 5, got rank 6}}
  %m = mepi.tensor_map %a box [64, 64] swizzle 128 : memref<2x2x2x2x64x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

// A batch element that does not start on a 16-byte boundary: 3 rows of 64 bytes and 8 more.
func.func @batch_stride(%a: memref<2x3x32xbf16, strided<[100, 32, 1]>>) -> !llvm.ptr {
  // expected-error @+1 {{expected the stride of batch dimension 0 a multiple of 16 bytes}}
  %m = mepi.tensor_map %a box [32, 64] swizzle 64 : memref<2x3x32xbf16, strided<[100, 32, 1]>> -> !llvm.ptr
  return %m : !llvm.ptr
}
