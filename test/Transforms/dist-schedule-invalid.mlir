// Distributed matmuls mepi cannot plan are refused with the reason.
// RUN: mepi-opt %s --split-input-file --mepi-dist-schedule --verify-diagnostics

// expected-error @+1 {{distributions A Slab.X, B Slab.X, D Slab.Y split op(A) along M, op(B) along K and D along N: supported are}}
mepi.dist.matmul {shape = array<i64: 64, 64, 64>, ranks = 2, element_type = bf16,
                  a_distribution = "slab_x", b_distribution = "slab_x", d_distribution = "slab_y"}

// -----

// expected-error @+1 {{operand b: BlockCyclic(2x2, 64x64): the process grid has 4 processes, expected 2 (the ranks)}}
mepi.dist.matmul {shape = array<i64: 256, 256, 256>, ranks = 2, element_type = bf16,
                  a_distribution = "block_cyclic(2x1, 64x64)", b_distribution = "block_cyclic(2x2, 64x64)",
                  d_distribution = "block_cyclic(1x2, 64x64)"}

// -----

// expected-error @+1 {{operands a and d: op(A)'s blocks of rows are 32 long and D's 64}}
mepi.dist.matmul {shape = array<i64: 256, 256, 256>, ranks = 2, element_type = bf16,
                  a_distribution = "block_cyclic(1x2, 32x64)", b_distribution = "block_cyclic(1x2, 64x64)",
                  d_distribution = "block_cyclic(1x2, 64x64)"}

// -----

// expected-error @+1 {{operand d: Slab.Y with a block-cyclic distribution elsewhere}}
mepi.dist.matmul {shape = array<i64: 256, 256, 256>, ranks = 2, element_type = bf16,
                  a_distribution = "block_cyclic(1x2, 64x64)", b_distribution = "block_cyclic(1x2, 64x64)",
                  d_distribution = "slab_y"}
