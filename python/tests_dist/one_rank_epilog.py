"""One rank (for a machine with one GPU; python/tests_dist needs two): a Python epilog on a
distributed matmul split into two pieces, against fp64. `mpirun -np 1 python3 one_rank_epilog.py`."""
import torch
from mpi4py import MPI
import mepi
import mepi.distributed as md

torch.cuda.set_device(0)
md.initialize(0, MPI.COMM_WORLD)


@mepi.epilog(bias="row")
def tanh_rows(acc, bias):
    return mepi.math.tanh(acc + bias) + mepi.row() / 1024.0 - mepi.col() / 2048.0


g = torch.Generator(device="cuda").manual_seed(1)
T, H, F = 1001, 256, 768
x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16, generator=g)
w = torch.randn(F, H, device="cuda", dtype=torch.bfloat16, generator=g)
bias = torch.randn(T, device="cuda", dtype=torch.bfloat16, generator=g)
for dists, name in (([md.Slab.X, md.Slab.Y, md.Slab.Y], "all-gather"),
                    ([md.Slab.Y, md.Slab.X, md.Slab.X], "reduce-scatter")):
    with md.Matmul(x, w.T, distributions=dists, pieces=2) as mm:
        mm.plan(epilog=tanh_rows, epilog_inputs={"bias": bias})
        d = mm.execute()
        rows = torch.arange(T, device="cuda", dtype=torch.float64)[:, None]
        cols = torch.arange(F, device="cuda", dtype=torch.float64)[None, :]
        want = torch.tanh(x.double() @ w.double().T + bias.double()[:, None]) + rows / 1024 - cols / 2048
        err = float(torch.linalg.norm(d.double() - want) / torch.linalg.norm(want))
        print(f"{'PASS' if err < 1e-2 else 'FAIL'} one rank, {name} ({mm.algorithm}), Python epilog, "
              f"2 pieces: relative error {err:.2e}")
md.finalize()
