// mepi-dist-schedule lowers a distributed matmul to one rank's host schedule, planned as the
// runtime plans it (lib/Distributed/DistPlan.cpp).
// RUN: mepi-opt %s --split-input-file --mepi-dist-schedule="rank=1" | FileCheck %s

// All-gather of A (X split by rows, W [F, H] by rows, Y by columns): our own rows first, from
// A as given, while they travel to rank 0; then rank 0's from the gather buffer.
// CHECK-LABEL: mepi.dist.schedule attributes {algorithm = "AllGatherA", pieces = 1 : i64, rank = 1 : i64, ranks = 2 : i64
// CHECK: mepi.dist.step "fork" on "copy"
// CHECK: mepi.dist.step "ready" on "copy"
// CHECK: mepi.dist.step "wait_ready" on "copy" {peer = 0 : i64}
// CHECK: mepi.dist.step "push" on "copy" {flag = 3 : i64, from = "A[0:500, 0:300]", peer = 0 : i64, to = "Gather[500:1000, 0:300]"}
// CHECK: mepi.dist.step "gemm" on "compute" {a = "A[0:500, 0:300]", b = "B[0:350, 0:300]", d = "D[500:1000, 0:350]", epilog, gemm = 0 : i64}
// CHECK: mepi.dist.step "wait" on "compute" {flag = 2 : i64}
// CHECK: mepi.dist.step "gemm" on "compute" {a = "Gather[0:500, 0:300]", b = "B[0:350, 0:300]", d = "D[0:500, 0:350]", epilog, gemm = 1 : i64}
// CHECK: mepi.dist.step "join" on "compute"
mepi.dist.matmul {shape = array<i64: 1000, 700, 300>, ranks = 2, element_type = bf16,
                  a_distribution = "slab_x", b_distribution = "slab_x",
                  d_distribution = "slab_y", transpose_b, epilog = "GELU"}

// -----

// Reduce-scatter over rows of D (K split), two pieces per chunk: rank 0's rows first as
// partial sums sent to rank 0, then our rows adding rank 0's partial sums, with the epilog.
// CHECK-LABEL: algorithm = "ReduceScatterRows", pieces = 2
// CHECK: "gemm" on "compute" {a = "A[0:1024, 0:2048]", b = "B[0:1024, 0:2048]", d = "Partial[0:1024, 0:1024]", gemm = 0
// CHECK: "push" on "copy" {flag = 2 : i64, from = "Partial[0:1024, 0:1024]", gemm = 0 : i64, peer = 0 : i64, to = "Recv[0:1024, 0:1024]"}
// CHECK: "gemm" on "compute" {a = "A[1024:2048, 0:2048]", {{.*}}d = "Partial[1024:2048, 0:1024]", gemm = 1
// CHECK: "wait" on "compute" {flag = 2 : i64}
// CHECK: "gemm" on "compute" {a = "A[2048:3072, 0:2048]", b = "B[0:1024, 0:2048]", c = "Recv[0:1024, 0:1024]", d = "D[0:1024, 0:1024]", epilog, gemm = 2
// CHECK: "wait" on "compute" {flag = 3 : i64}
// CHECK: "gemm" on "compute" {{.*}}c = "Recv[1024:2048, 0:1024]", d = "D[1024:2048, 0:1024]", epilog, gemm = 3
mepi.dist.matmul {shape = array<i64: 4096, 1024, 4096>, ranks = 2, element_type = bf16,
                  a_distribution = "slab_y", b_distribution = "slab_y",
                  d_distribution = "slab_x", transpose_b, epilog = "GELU_BIAS"}

// -----

// All-reduce: the ring, then our finished rows copied into rank 0's D.
// CHECK-LABEL: algorithm = "AllReduce"
// CHECK: "push" on "copy" {flag = 2 : i64, from = "Partial[0:512, 0:256]"
// CHECK: "wait" on "compute" {flag = 2 : i64}
// CHECK: "gemm" on "compute" {{.*}}c = "Recv[0:512, 0:256]", d = "D[512:1024, 0:256]", epilog
// CHECK: "push" on "copy" {flag = 4 : i64, from = "D[512:1024, 0:256]", gemm = 1 : i64, peer = 0 : i64, to = "D[512:1024, 0:256]"}
// CHECK: "wait" on "compute" {flag = 3 : i64}
// CHECK: "join" on "compute"
mepi.dist.matmul {shape = array<i64: 1024, 256, 512>, ranks = 2, element_type = f16,
                  a_distribution = "slab_y", b_distribution = "slab_x",
                  d_distribution = "replicated", epilog = "BIAS"}

// -----

// Decode (few rows) with the identity epilog: one GEMM, then NCCL.
// CHECK-LABEL: algorithm = "ReduceScatterRows", pieces = 1
// CHECK: "gemm" on "compute" {a = "A[0:128, 0:4096]", b = "B[0:8192, 0:4096]", d = "Partial[0:128, 0:8192]", gemm = 0
// CHECK: "nccl_reduce" on "compute" {from = "Partial[0:128, 0:8192]", to = "D[0:64, 0:8192]"}
// CHECK-NOT: "push"
mepi.dist.matmul {shape = array<i64: 128, 8192, 8192>, ranks = 2, element_type = bf16,
                  a_distribution = "slab_y", b_distribution = "slab_y",
                  d_distribution = "slab_x", transpose_b}

// -----

// SUMMA on a 1 x 2 grid (block-cyclic A, B, D in 64 x 64 blocks): K of A is dealt over the
// grid's columns, so each rank copies its blocks of A's columns to their global K offsets in
// every rank's gather buffer: its own on the compute stream, a peer's by the copy engine, the
// last copy to a peer raising its flag; B's columns are D's, used as given.
// CHECK-LABEL: algorithm = "Summa", pieces = 1
// CHECK: "fork" on "copy"
// CHECK: "ready" on "copy"
// CHECK: "copy_local" on "compute" {from = "A[0:300, 0:64]", peer = 1 : i64, to = "Gather[0:300, 64:128]"}
// CHECK: "copy_local" on "compute" {from = "A[0:300, 64:122]", peer = 1 : i64, to = "Gather[0:300, 192:250]"}
// CHECK: "wait_ready" on "copy" {peer = 0 : i64}
// CHECK: "push" on "copy" {from = "A[0:300, 0:64]", peer = 0 : i64, to = "Gather[0:300, 64:128]"}
// CHECK: "push" on "copy" {flag = 4 : i64, from = "A[0:300, 64:122]", peer = 0 : i64, to = "Gather[0:300, 192:250]"}
// CHECK: "wait" on "compute" {flag = 2 : i64}
// CHECK: "gemm" on "compute" {a = "Gather[0:300, 0:250]", b = "B[0:250, 0:72]", d = "D[0:300, 0:72]", epilog, gemm = 0 : i64}
// CHECK: "join" on "compute"
mepi.dist.matmul {shape = array<i64: 300, 200, 250>, ranks = 2, element_type = bf16,
                  a_distribution = "block_cyclic(1x2, 64x64)", b_distribution = "block_cyclic(1x2, 64x64)",
                  d_distribution = "block_cyclic(1x2, 64x64)", epilog = "GELU"}
