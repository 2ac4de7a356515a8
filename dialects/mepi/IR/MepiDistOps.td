// The mepi dialect's distributed forms: a matmul over a group of GPUs and the host schedule it
// lowers to (mepi-dist-schedule). Kept apart from MepiOps.td: the kernels never see them.
#ifndef MEPI_DIST_OPS_TD
#define MEPI_DIST_OPS_TD

include "mepi/IR/MepiDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"

def Mepi_DistMatmulOp : Mepi_Op<"dist.matmul"> {
  let summary = "a matmul over `ranks` GPUs, each holding its part of A, B and D";
  let description = [{
    The global problem D = epilog(op(A) op(B)) of `shape` = [M, N, K] and `element_type`, with
    A, B and D each split over the ranks as `a_distribution`, `b_distribution`,
    `d_distribution` say: "slab_x" (rows of the stored matrix, S/P + (rank < S%P) each),
    "slab_y" (columns), "replicated" (D only: every rank gets all of it), "block_cyclic(RxC, BRxBC)"
    (blocks of BR x BC dealt round-robin over a process grid of R x C, ScaLAPACK's layout).
    The distributions choose the algorithm (all-gather of A or B, reduce-scatter, all-reduce,
    SUMMA for block-cyclic ones) as nvmath.distributed infers it; `mepi-dist-schedule` lowers the op to one
    rank's host schedule.

    ```mlir
    mepi.dist.matmul {shape = array<i64: 8192, 28672, 8192>, ranks = 2, element_type = bf16,
                      a_distribution = "slab_x", b_distribution = "slab_x",
                      d_distribution = "slab_y", transpose_b, epilog = "GELU"}
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$shape, I64Attr:$ranks, TypeAttr:$element_type,
                   StrAttr:$a_distribution, StrAttr:$b_distribution, StrAttr:$d_distribution,
                   UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                   DefaultValuedStrAttr<StrAttr, "DEFAULT">:$epilog);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Mepi_DistScheduleOp : Mepi_Op<"dist.schedule", [NoTerminator, SingleBlock]> {
  let summary = "one rank's host schedule of a distributed matmul";
  let description = [{
    The steps one rank runs, in order: local GEMMs and waits on the compute stream (the
    caller's), copies into peers' buffers over NVLink on a copy stream, NCCL collectives.
    Flags are words in a buffer every rank maps: a copy raises its receiver's flag to the
    execution's number, a wait holds its stream until the flag reaches it.
  }];
  let arguments = (ins StrAttr:$algorithm, I64Attr:$rank, I64Attr:$ranks, I64Attr:$pieces,
                   DenseI64ArrayAttr:$shape);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

def Mepi_DistStepOp : Mepi_Op<"dist.step", [HasParent<"DistScheduleOp">]> {
  let summary = "a step of a distributed schedule";
  let description = [{
    `kind` is one of ready, fork, wait_ready, push, copy_local, wait, gemm, join, signal,
    nccl_reduce, nccl_all_reduce, nccl_all_gather; `stream` "compute" or "copy". Buffers'
    blocks are written `Buffer[rows, cols]` (`Buffer+base[...]` in a slot buffer): A, B, C, D
    as given, Gather, GatherB and Recv mapped by every rank, Partial this rank's; `rank r D[...]` is
    rank r's. A gemm's `mirrors` are the peers' blocks it stores its D block to as well.
  }];
  let arguments = (ins StrAttr:$kind, StrAttr:$stream, OptionalAttr<I64Attr>:$peer,
                   OptionalAttr<I64Attr>:$flag, OptionalAttr<I64Attr>:$gemm,
                   OptionalAttr<StrAttr>:$from, OptionalAttr<StrAttr>:$to,
                   OptionalAttr<StrAttr>:$a, OptionalAttr<StrAttr>:$b, OptionalAttr<StrAttr>:$c,
                   OptionalAttr<StrAttr>:$d, OptionalAttr<StrAttr>:$mirrors,
                   UnitAttr:$epilog);
  let assemblyFormat = "$kind `on` $stream attr-dict";
}

#endif // MEPI_DIST_OPS_TD
