// Distributed matmuls mepi cannot plan are refused with the reason.
// RUN: mepi-opt %s --split-input-file --mepi-dist-schedule --verify-diagnostics

// expected-error @+1 {{distributions A Slab.X, B Slab.X, D Slab.Y split op(A) along M, op(B) along K and D along N: supported are}}
mepi.dist.matmul {shape = array<i64: 64, 64, 64>, ranks = 2, element_type = bf16,
                  a_distribution = "slab_x", b_distribution = "slab_x", d_distribution = "slab_y"}

// -----

// expected-error @+1 {{block-cyclic distributions (SUMMA) are not supported yet}}
mepi.dist.matmul {shape = array<i64: 64, 64, 64>, ranks = 4, element_type = bf16,
                  a_distribution = "block_cyclic", b_distribution = "block_cyclic",
                  d_distribution = "block_cyclic"}
