// The verifier of mepi.dist.matmul.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{'mepi.dist.matmul' op a_distribution: expected slab_x, slab_y, block_cyclic(RxC, BRxBC), got "replicated"}}
mepi.dist.matmul {shape = array<i64: 64, 64, 64>, ranks = 2, element_type = bf16,
                  a_distribution = "replicated", b_distribution = "slab_x", d_distribution = "slab_y"}

// -----

// expected-error @+1 {{'mepi.dist.matmul' op shape: expected [M, N, K] of positive extents}}
mepi.dist.matmul {shape = array<i64: 64, 0, 64>, ranks = 2, element_type = bf16,
                  a_distribution = "slab_x", b_distribution = "slab_x", d_distribution = "slab_y"}

// -----

// expected-error @+1 {{'mepi.dist.matmul' op ranks: expected at least 1, got 0}}
mepi.dist.matmul {shape = array<i64: 64, 64, 64>, ranks = 0, element_type = bf16,
                  a_distribution = "slab_x", b_distribution = "slab_x", d_distribution = "slab_y"}

// -----

// expected-error @+1 {{'mepi.dist.matmul' op b_distribution: expected block_cyclic(RxC, BRxBC) (process grid R x C, blocks BR x BC, positive extents), got "block_cyclic(2x2, 0x64)"}}
mepi.dist.matmul {shape = array<i64: 64, 64, 64>, ranks = 4, element_type = bf16,
                  a_distribution = "block_cyclic(2x2, 64x64)", b_distribution = "block_cyclic(2x2, 0x64)",
                  d_distribution = "block_cyclic(2x2, 64x64)"}
