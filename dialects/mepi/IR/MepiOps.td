// Operations of the mepi dialect.
#ifndef MEPI_OPS_TD
#define MEPI_OPS_TD

include "mepi/IR/MepiAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"

def Mepi_MatmulOp : Mepi_Op<"matmul", [AttrSizedOperandSegments, IsolatedFromAbove,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "matrix product with a fused per-element epilog region";
  let description = [{
    Computes, for every output element (batch..., row, col),

      acc = alpha * sum_k op(A)[batch..., row, k] * op(B)[batch..., k, col]
            + beta * C[batch..., row, col]
      D[batch..., row, col], aux_i[batch..., row, col], r_j = epilog(acc, inputs..., row, col)

    in f32 accumulation. `op(X)` is X or, with `transpose_a` / `transpose_b`, its transpose over
    the last two dimensions. Leading (batch) dimensions broadcast as in numpy.matmul: each batch
    dimension of A, B and C is 1 or equal to D's. `alpha` defaults to 1; `beta` is given exactly
    when C is.

    The epilog is a single-block region with arguments `(acc: f32, in_0, ..., in_n-1, row: index,
    col: index)` (grouped: then `group: index`); `in_i` is an element of epilog input i, indexed by its broadcast kind: `row`
    inputs have shape [batch..., M], `col` [batch..., N], `matrix` [batch..., M', N] with
    M' >= M (rows past M are padding; any strides), `bitmask` inputs are i8 [batch...,
    M'', N] with M'' >= ceil(M / 8) and give the i1 at bit `row % 8` of byte (row / 8, col)
    (cuBLASLt's ReLU mask), `cyclic_row` inputs are [P] with P dividing M and give element
    `row mod P` (one row vector for every element of a batch folded into D's rows; not in a
    grouped matmul), and `scalar` inputs are a value or a rank-0 memref. Leading batch
    dimensions are optional and broadcast.

    The region ends in `mepi.yield` with the value stored to D, one value per aux output, then
    one f32 per reduction. Aux outputs are `matrix` (D's element positions, rows may be
    padded, any strides) or `bitmask` (an i1 per element, packed as for bitmask inputs; the bits
    of rows past M in a written byte are zero, bytes past ceil(M / 8) are not written). A reduction combines (`add` or `max`) its yielded f32 over the
    elements of each row of D (`row`: result [batch..., M]), of each column (`col`: [batch...,
    N]) or over all of D (`scalar`: a rank-0 result); the result is converted to its element
    type once complete. Sums are taken in an order that does not depend on timing, so results
    are reproducible.

    `a_sums` and `b_sums` are operand reductions, outside the epilog: a_sums[batch..., row] =
    sum_k op(A)[batch..., row, k] ([batch..., M]) and b_sums[batch..., col] = sum_k
    op(B)[batch..., k, col] ([batch..., N]), in f32, converted to their element type (the
    bias gradients of cuBLASLt's BGRADA and BGRADB epilogs).

    8-bit float A and B (an fp8 pair) are multiplied by the tensor cores, which sum their
    products at reduced precision (about 14 significant bits). The kernel therefore adds the
    tensor cores' sums into f32 accumulators every 128 elements of K (promotion, as cuBLASLt
    and DeepGEMM do); with `fast_accumulation` it keeps the tensor cores' sums over all of K,
    which is faster and less accurate (cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM).
    Quantization scales are epilog inputs: the planner multiplies `acc` by A's and B's scales
    (scalars, or per row and per column) and D's value by D's scale in the epilog region.

    Block scales (DeepSeek-V3's 1 x 128 / 128 x 128 scaling, cuBLASLt's VEC128_32F and
    BLK128x128_32F) cannot wait for the epilog: each 128-element block of K has its own
    factors, so they are operands of the main loop. With `block_scales(%sa, %sb)`, f32
    memrefs sa [M, ceil(K / 128)] (one per row of op(A) and block of K) and sb [ceil(N / 128),
    ceil(K / 128)] (one per 128 columns of op(B) and block of K), any strides,

      acc = alpha * sum_j sa[row, j] * sb[col / 128, j] * sum_{k in block j} op(A)[row, k] *
            op(B)[k, col]

    The kernel promotes each block's sums into f32 scaled by its two factors; so block scales
    take 8-bit A and B without fast_accumulation, 2-D operands and no groups.

    Grouped form (`groups`: mixture-of-experts layers, segment GEMM): the rows of A and D are
    cut into S groups whose bounds are a device operand, read by the kernel (no host copy),
    and group g multiplies its rows of op(A) by its own matrix of B:

      D[row, col] = epilog(alpha * sum_k op(A)[row, k] * op(B)[w(g), k, col] + beta * C[row, col],
                           inputs..., row, col, g)   for the rows of group g

    A is [T, K] (or [K, T] with transpose_a), B is [W, K, N] (or [W, N, K] with transpose_b), C
    and D are [T, N]. The groups operand is a 1-D memref of i32 or i64 in one of three forms:
    `ends` [S] (group g is rows [ends[g - 1], ends[g]), 0 before the first: torch._grouped_mm's
    `offs`), `indptr` [S + 1] (rows [indptr[g], indptr[g + 1]): FlashInfer's `seg_indptr`) or
    `lengths` [S] (consecutive groups from row 0: `seg_lens`). Bounds are clamped to [0, T] and
    a group ends no earlier than it starts, so any group may be empty; rows in no group are not
    written. `w(g)` is g, with W = S, or `weight_indices[g]` (a 1-D memref [S] of i32 or i64;
    several groups may share a matrix). Epilog inputs index rows by D's row; a row, col or
    scalar input may have one leading dimension of S, one value set per group (a bias [S, N]).
    The epilog region takes one more argument, the group g (index). Grouped matmuls take no
    reductions or operand sums.

    Groups along K (`groups(%offs ends along k : ...)`: torch._grouped_mm's 2-D x 2-D, the
    weight gradient of a mixture-of-experts layer): the bounds cut K instead of the rows, and
    each group has its own D, of the products over its slice of K only:

      D[g, row, col] = epilog(alpha * sum_{k in group g} op(A)[row, k] * op(B)[k, col]
                              + beta * C[g, row, col], inputs..., row, col, g)

    A is [M, K] (or [K, M]), B is [K, N] (or [N, K]), D is [S, M, N]; C and the epilog inputs
    have no leading dimension or one of S. Bounds are clamped to [0, K]; an empty group's D is
    the epilog of a zero product. The bounds come as `ends` or `indptr`; no weight_indices.

    ```mlir
    mepi.matmul ins(%x, %w : memref<4096x7168xbf16>, memref<8x7168x2048xbf16>)
        groups(%offs ends : memref<8xi32>)
        inputs(%bias as col : memref<8x2048xbf16>)
        outs(%d : memref<4096x2048xbf16>) epilog {
    ^bb0(%acc: f32, %bias: bf16, %row: index, %col: index, %group: index):
      ...
    }
    ```

    Mirrors (`mirrors(%m0, ... : ...)`): every value stored to D is stored to each mirror too,
    memrefs of D's type (2-D, no groups). A mirror is typically another GPU's copy of D, mapped
    over NVLink: a collective's last copy then happens in the GEMM's own stores instead of
    after it.

    Example (bias + ReLU, bias per column):

    ```mlir
    mepi.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x256xbf16>)
        inputs(%bias as col : memref<256xbf16>)
        outs(%d : memref<128x256xbf16>) epilog {
    ^bb0(%acc: f32, %bias: bf16, %row: index, %col: index):
      %b = arith.extf %bias : bf16 to f32
      %s = arith.addf %acc, %b : f32
      %zero = arith.constant 0.0 : f32
      %r = arith.maximumf %s, %zero : f32
      %t = arith.truncf %r : f32 to bf16
      mepi.yield %t : bf16
    }
    ```

    Example (the backward ReLU: the forward pass's mask zeroes the gradient, and the bias
    gradient is the sum of each row):

    ```mlir
    mepi.matmul ins(%w, %g : memref<100x64xbf16>, memref<64x30xbf16>)
        inputs(%mask as bitmask : memref<16x30xi8, strided<[1, 16]>>)
        outs(%d : memref<100x30xbf16>)
        reduce(%bgrad as row add : memref<100xbf16>) epilog {
    ^bb0(%acc: f32, %positive: i1, %row: index, %col: index):
      %zero = arith.constant 0.0 : f32
      %x = arith.select %positive, %acc, %zero : f32
      %t = arith.truncf %x : f32 to bf16
      mepi.yield %t, %x : bf16, f32
    }
    ```
  }];
  let arguments = (ins
    AnyMemRef:$a,
    AnyMemRef:$b,
    Optional<F32>:$alpha,
    Optional<AnyMemRef>:$c,
    Optional<F32>:$beta,
    Variadic<AnyType>:$epilog_inputs,
    Mepi_BroadcastKindArrayAttr:$input_kinds,
    AnyMemRef:$d,
    Variadic<AnyMemRef>:$aux,
    Mepi_BroadcastKindArrayAttr:$aux_kinds,
    Variadic<AnyMemRef>:$reductions,
    Mepi_BroadcastKindArrayAttr:$reduction_kinds,
    Mepi_CombinerArrayAttr:$reduction_combiners,
    Optional<AnyMemRef>:$a_sums,
    Optional<AnyMemRef>:$b_sums,
    Optional<AnyMemRef>:$groups,
    OptionalAttr<Mepi_GroupFormAttr>:$group_form,
    UnitAttr:$groups_along_k,
    Optional<AnyMemRef>:$weight_indices,
    Optional<AnyMemRef>:$a_block_scales,
    Optional<AnyMemRef>:$b_block_scales,
    Variadic<AnyMemRef>:$mirrors,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    OptionalAttr<Mepi_ComputeTypeAttr>:$compute,
    OptionalAttr<Mepi_KernelConfigAttr>:$config,
    UnitAttr:$fast_accumulation);
  let regions = (region SizedRegion<1>:$epilog);
  let assemblyFormat = [{
    `ins` `(` $a `,` $b `:` type($a) `,` type($b) `)`
    custom<Groups>($groups, type($groups), $group_form, $groups_along_k, $weight_indices,
                   type($weight_indices))
    (`alpha` `(` $alpha^ `)`)?
    (`c` `(` $c^ `:` type($c) `)`)?
    (`beta` `(` $beta^ `)`)?
    custom<EpilogInputs>($epilog_inputs, type($epilog_inputs), $input_kinds)
    `outs` `(` $d `:` type($d) `)`
    custom<AuxOutputs>($aux, type($aux), $aux_kinds)
    custom<Reductions>($reductions, type($reductions), $reduction_kinds, $reduction_combiners)
    (`a_sums` `(` $a_sums^ `:` type($a_sums) `)`)?
    (`b_sums` `(` $b_sums^ `:` type($b_sums) `)`)?
    (`block_scales` `(` $a_block_scales^ `,` $b_block_scales `:` type($a_block_scales) `,`
        type($b_block_scales) `)`)?
    (`mirrors` `(` $mirrors^ `:` type($mirrors) `)`)?
    attr-dict-with-keyword `epilog` $epilog
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of leading batch dimensions of D.
    int64_t getNumBatchDims() { return getD().getType().getRank() - 2; }
    /// The block argument of the epilog carrying the f32 accumulator.
    ::mlir::BlockArgument getAccArg() { return getEpilog().getArgument(0); }
    /// The block argument carrying an element of epilog input `i`.
    ::mlir::BlockArgument getInputArg(unsigned i) { return getEpilog().getArgument(1 + i); }
    ::mlir::BlockArgument getRowArg() {
      return getEpilog().getArgument(1 + getEpilogInputs().size());
    }
    ::mlir::BlockArgument getColArg() {
      return getEpilog().getArgument(2 + getEpilogInputs().size());
    }
    /// Grouped (a `groups` operand): the epilog's last argument, the row's group (index).
    bool isGrouped() { return static_cast<bool>(getGroups()); }
    ::mlir::BlockArgument getGroupArg() {
      return getEpilog().getArgument(3 + getEpilogInputs().size());
    }
    /// Groups along K (`groups(... along k ...)`): each group a slice of K and its own D.
    bool isGroupedAlongK() { return isGrouped() && getGroupsAlongK(); }
    /// The groups S of a grouped matmul (from the groups operand's static size), else 0.
    int64_t getNumGroups();
    BroadcastKind getInputKind(unsigned i) {
      return ::llvm::cast<BroadcastKindAttr>(getInputKinds()[i]).getValue();
    }
    /// The type of the epilog's block argument for input `i`: the element type of a memref
    /// input, i1 for a bitmask, or the scalar value's own type.
    ::mlir::Type getInputElementType(unsigned i);
    BroadcastKind getAuxKind(unsigned i) {
      return ::llvm::cast<BroadcastKindAttr>(getAuxKinds()[i]).getValue();
    }
    BroadcastKind getReductionKind(unsigned i) {
      return ::llvm::cast<BroadcastKindAttr>(getReductionKinds()[i]).getValue();
    }
    Combiner getReductionCombiner(unsigned i) {
      return ::llvm::cast<CombinerAttr>(getReductionCombiners()[i]).getValue();
    }
  }];
}

def Mepi_YieldOp : Mepi_Op<"yield", [Pure, Terminator, ReturnLike, HasParent<"MatmulOp">]> {
  let summary = "ends an epilog region with the stored value, the aux values and reductions";
  let description = [{
    The first operand is stored to the matmul's D (its element type), the following ones to its
    aux outputs in order (an i1 for a bitmask), then one f32 per declared reduction.

    ```mlir
    mepi.yield %d, %positive, %d_f32 : bf16, i1, f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def Mepi_TensorMapOp : Mepi_Op<"tensor_map", [Pure]> {
  let summary = "the TMA descriptor of a row-major operand, passed to a kernel by value";
  let description = [{
    Host side of a kernel launch: a `CUtensorMap` (128 bytes) that describes `source` to the
    tensor memory accelerator, with `box` = [inner, outer] elements copied per TMA load and the
    shared-memory `swizzle` in bytes (0, 32, 64 or 128). Reads outside `source` fill zeros.
    A source with batch dimensions (up to three) has one more coordinate per batch dimension,
    each with a box of one element: a load reads one batch element's rows.
    The kernel takes it as a `grid_constant` by-value parameter: the runtime encodes it once
    per set of operands (cuTensorMapEncodeTiled) and no copy is made per launch.

    ```mlir
    %map = mepi.tensor_map %a box [64, 128] swizzle 128 : memref<4096x4096xbf16> -> !llvm.ptr
    ```
  }];
  let arguments = (ins AnyStaticShapeMemRef:$source, DenseI64ArrayAttr:$box, I64Attr:$swizzle);
  let results = (outs LLVM_AnyPointer:$map);
  let assemblyFormat =
      "$source `box` $box `swizzle` $swizzle attr-dict `:` type($source) `->` type($map)";
  let hasVerifier = 1;
}

def Mepi_WorkspaceOp : Mepi_Op<"workspace", [MemoryEffects<[MemAlloc]>]> {
  let summary = "device memory that a kernel launch needs besides the operands";
  let description = [{
    Host side of a kernel launch: `bytes` of global memory owned by the plan (allocated once,
    reused by every execution, 256-byte aligned), zero when allocated. Kernels use it for
    partial results (split-K) and for counters; a kernel that counts in it leaves the counters
    at zero again when it ends, so the next launch finds them as allocated. One plan's
    workspace serves one execution at a time.

    ```mlir
    %ws = mepi.workspace 1048576 : !llvm.ptr
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$bytes);
  let results = (outs LLVM_AnyPointer:$workspace);
  let assemblyFormat = "$bytes attr-dict `:` type($workspace)";
}

#endif // MEPI_OPS_TD
