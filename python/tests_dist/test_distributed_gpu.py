"""mepi.distributed on several GPUs, beside torch: run under MPI, one process per GPU
(`mpirun -np 2 python -m pytest python/tests_dist`, scripts/device-run.sh dist). Every rank
makes the same global operands from one seed, passes its parts, and checks its part of D
against the fp64 product of the global operands."""

import pytest
import torch
from mpi4py import MPI

import mepi
import mepi.distributed as md

COMM = MPI.COMM_WORLD
RANK, NRANKS = COMM.Get_rank(), COMM.Get_size()
if NRANKS < 2:
    pytest.exit("tests_dist need at least 2 MPI processes (mpirun -np 2)", returncode=2)
DEVICE = RANK % torch.cuda.device_count()
torch.cuda.set_device(DEVICE)


@pytest.fixture(scope="module", autouse=True)
def group():
    md.initialize(DEVICE, COMM)
    yield
    md.finalize()


def part(t, dist):
    """This rank's part of a global matrix under a Slab distribution, contiguous as a rank's
    own tensor is (a column slice of the global one is not, and is refused)."""
    rows, cols = t.shape
    r0 = sum(dist.shape(q, (rows, cols))[0] for q in range(RANK)) if dist is md.Slab.X else 0
    c0 = sum(dist.shape(q, (rows, cols))[1] for q in range(RANK)) if dist is md.Slab.Y else 0
    r, c = dist.shape(RANK, (rows, cols))
    return t[r0:r0 + r, c0:c0 + c].contiguous()


def randn(*shape, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16, generator=g)


def check(got, want):
    error = float(torch.linalg.norm(got.double() - want) / torch.linalg.norm(want))
    assert error < 1e-2, f"rank {RANK}: relative error {error}"


def test_allgather_then_gemm_with_gelu():
    # Column-linear layer: X rows split, W [F, H] rows split (passed as w.T, column-major).
    T, H, F = 1001, 256, 768
    x, w = randn(T, H, seed=1), randn(F, H, seed=2)
    xl, wl = part(x, md.Slab.X), part(w, md.Slab.X)
    with md.Matmul(xl, wl.T, distributions=[md.Slab.X, md.Slab.Y, md.Slab.Y]) as mm:
        mm.plan(epilog=mepi.MatmulEpilog.GELU)
        assert mm.algorithm == "AllGatherA"
        y = mm.execute()
        assert isinstance(y, torch.Tensor) and y.shape == (T, wl.shape[0])
        want = torch.nn.functional.gelu(x.double() @ w.double().T, approximate="tanh")
        check(y, part(want, md.Slab.Y))


def test_gemm_then_reduce_scatter_with_bias_relu():
    # Row-linear layer: Y columns split (K), W2 [H, F] columns split, Z rows split.
    T, H, F = 999, 320, 1024
    y, w2 = randn(T, F, seed=3), randn(H, F, seed=4)
    bias = randn(T, seed=5)
    zl_bias = part(bias[:, None], md.Slab.X)[:, 0].contiguous()
    with md.Matmul(part(y, md.Slab.Y), part(w2, md.Slab.Y).T,
                   distributions=[md.Slab.Y, md.Slab.X, md.Slab.X]) as mm:
        mm.plan(epilog=mepi.MatmulEpilog.RELU_BIAS, epilog_inputs={"bias": zl_bias})
        assert mm.algorithm == "ReduceScatterRows"
        z = mm.execute()
        want = torch.relu(y.double() @ w2.double().T + bias.double()[:, None])
        check(z, part(want, md.Slab.X))


def test_gemm_then_all_reduce():
    T, H, F = 640, 256, 512
    y, w2 = randn(T, F, seed=6), randn(H, F, seed=7)
    z = md.matmul(part(y, md.Slab.Y), part(w2, md.Slab.Y).T, alpha=0.5,
                  distributions=[md.Slab.Y, md.Slab.X, md.Replicated])
    check(z, 0.5 * (y.double() @ w2.double().T))


def test_bad_distributions_are_refused_on_every_rank():
    x = randn(64, 64, seed=8)
    with pytest.raises(mepi.MepiError, match="supported are"):
        md.Matmul(part(x, md.Slab.X), x[:32], distributions=[md.Slab.X, md.Slab.X, md.Slab.Y])


@mepi.epilog(bias="row")
def tanh_rows(acc, bias):
    """Reads the row input and both indices, which index this rank's D."""
    return mepi.math.tanh(acc + bias) + mepi.row() / 1024.0 - mepi.col() / 2048.0


def tanh_rows_reference(d, bias):
    rows = torch.arange(d.shape[0], device="cuda", dtype=torch.float64)[:, None]
    cols = torch.arange(d.shape[1], device="cuda", dtype=torch.float64)[None, :]
    return torch.tanh(d + bias.double()[:, None]) + rows / 1024 - cols / 2048


def test_allgather_with_a_python_epilog():
    T, H, F = 1001, 256, 768
    x, w = randn(T, H, seed=11), randn(F, H, seed=12)
    bias = randn(T, seed=13)
    wl = part(w, md.Slab.X)
    with md.Matmul(part(x, md.Slab.X), wl.T, distributions=[md.Slab.X, md.Slab.Y, md.Slab.Y],
                   pieces=2) as mm:
        mm.plan(epilog=tanh_rows, epilog_inputs={"bias": bias})
        assert "func.func" in mm.epilog_mlir
        check(mm.execute(), tanh_rows_reference(x.double() @ wl.double().T, bias))


def test_reduce_scatter_with_a_python_epilog():
    T, H, F = 999, 320, 1024
    y, w2 = randn(T, F, seed=14), randn(H, F, seed=15)
    bias = part(randn(T, seed=16)[:, None], md.Slab.X)[:, 0].contiguous()
    with md.Matmul(part(y, md.Slab.Y), part(w2, md.Slab.Y).T,
                   distributions=[md.Slab.Y, md.Slab.X, md.Slab.X], pieces=2) as mm:
        mm.plan(epilog=tanh_rows, epilog_inputs={"bias": bias})
        sums = part(y.double() @ w2.double().T, md.Slab.X)
        check(mm.execute(), tanh_rows_reference(sums, bias))


def bc_part(t, dist):
    """This rank's blocks of a global matrix under a BlockCyclic distribution (ScaLAPACK's
    layout: blocks dealt round-robin over the grid, rank r at (r // cols, r % cols))."""
    (pr, pc), (br, bcols) = dist.grid, dist.blocks
    rows = [i for i in range(t.shape[0]) if (i // br) % pr == RANK // pc]
    cols = [j for j in range(t.shape[1]) if (j // bcols) % pc == RANK % pc]
    return t[rows][:, cols].contiguous()


def test_summa_block_cyclic_with_gelu_bias():
    T, H, F = 1000, 700, 900
    grid = md.ProcessGrid((1, NRANKS))
    x, w = randn(T, H, seed=17), randn(H, F, seed=18)
    bias = randn(T, seed=19)
    dx, dw = md.BlockCyclic(grid, (128, 96)), md.BlockCyclic(grid, (96, 64))
    dy = md.BlockCyclic(grid, (128, 64))
    with md.Matmul(bc_part(x, dx), bc_part(w, dw), distributions=[dx, dw, dy]) as mm:
        mm.plan(epilog=mepi.MatmulEpilog.GELU_BIAS, epilog_inputs={"bias": bias})
        assert mm.algorithm == "Summa"
        want = torch.nn.functional.gelu(x.double() @ w.double() + bias.double()[:, None],
                                        approximate="tanh")
        check(mm.execute(), bc_part(want, dy))


def test_summa_with_a_column_major_part():
    # W [H, F] held as this rank's blocks of its transpose [F, H], passed as a .T view: the
    # stored matrix is dealt over the transposed grid.
    T, H, F = 513, 384, 640
    grid = md.ProcessGrid((NRANKS, 1))
    x, wt = randn(T, H, seed=20), randn(F, H, seed=21)
    dx, dy = md.BlockCyclic(grid, (64, 128)), md.BlockCyclic(grid, (64, 32))
    dw = md.BlockCyclic(grid, (128, 32))
    stored = md.BlockCyclic(md.ProcessGrid((1, NRANKS)), (32, 128))
    y = md.matmul(bc_part(x, dx), bc_part(wt, stored).T, distributions=[dx, dw, dy])
    check(y, bc_part(x.double() @ wt.double().T, dy))


def test_block_cyclic_blocks_that_do_not_match_are_refused():
    grid = md.ProcessGrid((1, NRANKS))
    x = randn(256, 256, seed=22)
    dx, dy = md.BlockCyclic(grid, (32, 64)), md.BlockCyclic(grid, (64, 64))
    with pytest.raises(mepi.MepiError, match="op\\(A\\)'s blocks of rows are 32 long and D's 64"):
        md.Matmul(bc_part(x, dx), bc_part(x, dy), distributions=[dx, dy, dy])


def test_relu_aux_bias_returns_this_ranks_mask():
    # Reduce-scatter: the mask of this rank's rows of Z, in cuBLASLt's layout (bit row % 8 of
    # byte (row // 8, col), column-major).
    T, H, F = 999, 320, 1024
    y, w2 = randn(T, F, seed=23), randn(H, F, seed=24)
    bias = randn(T, seed=25)
    zl_bias = part(bias[:, None], md.Slab.X)[:, 0].contiguous()
    with md.Matmul(part(y, md.Slab.Y), part(w2, md.Slab.Y).T,
                   distributions=[md.Slab.Y, md.Slab.X, md.Slab.X], pieces=2) as mm:
        mm.plan(epilog=mepi.MatmulEpilog.RELU_AUX_BIAS, epilog_inputs={"bias": zl_bias})
        z, aux = mm.execute()
        pre = part(y.double() @ w2.double().T + bias.double()[:, None], md.Slab.X)
        check(z, torch.relu(pre))
        mask = aux["relu_aux"]
        rows = pre.shape[0]
        bits = (mask[: (rows + 7) // 8].to(torch.int32)[:, None, :] >>
                torch.arange(8, device="cuda", dtype=torch.int32)[None, :, None]) & 1
        bits = bits.reshape(-1, pre.shape[1])[:rows]
        clear = pre.abs() > 0.5  # signs that rounding (bf16 partial sums of ~32) cannot flip
        assert torch.equal(bits.bool()[clear], (pre >= 0)[clear])


def test_gelu_aux_then_dgelu_bgrad_gives_the_global_bias_gradient():
    # A column-linear layer's forward (all-gather of X, GELU_AUX_BIAS) returns this rank's
    # GELU input; the backward DGELU_BGRAD of an upstream gradient reads it, and the bias
    # gradient is the sum over each row of this rank's D (its columns are all of F here).
    T, H, F = 1024, 256, 512
    x, w, up = randn(T, H, seed=26), randn(F, H, seed=27), randn(T, 384, seed=28)
    bias = randn(T, seed=29)
    dists = [md.Slab.X, md.Slab.Y, md.Slab.X]  # all-gather of B: D's rows split
    with md.Matmul(part(x, md.Slab.X), part(w.T.contiguous(), md.Slab.Y),
                   distributions=dists) as fwd:
        fwd.plan(epilog=mepi.MatmulEpilog.GELU_AUX_BIAS,
                 epilog_inputs={"bias": part(bias[:, None], md.Slab.X)[:, 0].contiguous()})
        assert fwd.algorithm == "AllGatherB"
        _, aux = fwd.execute()
        gelu_in = aux["gelu_aux"]
        pre = part(x.double() @ w.double().T + bias.double()[:, None], md.Slab.X)
        rows = pre.shape[0]
        check(gelu_in[:rows], pre)  # column-major [rows rounded up to 8, F]
        # Backward: dZ = (up @ v) * gelu'(pre), with v [384, F] replicated in B's columns.
        v = randn(384, F, seed=30)
        with md.Matmul(part(up, md.Slab.X), part(v, md.Slab.Y), distributions=dists) as bwd:
            bwd.plan(epilog=mepi.MatmulEpilog.DGELU_BGRAD, epilog_inputs={"gelu_aux": gelu_in})
            dz, grads = bwd.execute()
            c, a = 0.7978845608028654, 0.044715
            z = gelu_in[:rows].double()
            t = torch.tanh(c * (z + a * z ** 3))
            deriv = 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * a * z * z)
            want = part(up.double() @ v.double(), md.Slab.X) * deriv
            check(dz, want)
            check(grads["dgelu_bgrad"], want.sum(dim=1))


def test_bgrada_of_a_reduce_scatter_sums_over_every_rank_k():
    # A and B split along K: each rank's row sums of op(A) are partial; the all-reduce adds
    # them, and each rank receives those of its rows of D.
    T, H, F = 999, 320, 1024
    y, w2 = randn(T, F, seed=31), randn(H, F, seed=32)
    with md.Matmul(part(y, md.Slab.Y), part(w2, md.Slab.Y).T,
                   distributions=[md.Slab.Y, md.Slab.X, md.Slab.X]) as mm:
        mm.plan(epilog=mepi.MatmulEpilog.BGRADA)
        assert mm.algorithm == "ReduceScatterRows"
        z, grads = mm.execute()
        check(z, part(y.double() @ w2.double().T, md.Slab.X))
        check(grads["bgrada"], part(y.double().sum(dim=1, keepdim=True), md.Slab.X)[:, 0])
