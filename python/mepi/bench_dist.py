"""python -m mepi.bench --dist, one process per GPU (mpirun -np 2): mepi.distributed beside
torch.distributed on tensor-parallel MLP shapes (T x H x F, F split over the ranks), bf16, as a
user of torch's tensor parallelism would compare them:

  ag+gemm  column-linear: all-gather of the sequence-split X [T/P, H], then X @ W_r.T (W_r:
           this rank's [F/P, H] rows); torch: all_gather_into_tensor + mm, and the fused
           torch.ops.symm_mem.fused_all_gather_matmul (async-TP) where it runs
  gemm+rs  row-linear: Y_r [T, F/P] @ W2_r.T, then reduce-scatter of the rows; torch:
           mm + reduce_scatter_tensor, and fused_matmul_reduce_scatter
  gemm+ar  the same product, then all-reduce; torch: mm + all_reduce

Efficiency is the local GEMM's time (torch.mm of this rank's share, no communication) over the
whole operation's; each time is the slowest rank's median, the variants interleaved so that
clock drift spreads over all alike. NVLink multicast stays off (set here before torch loads).
"""

import datetime
import json
import os
import statistics

# (T, H, F, label): the distributed issue's shapes and a decode shape.
SHAPES = [(8192, 8192, 28672, "8192x8192x28672"), (16384, 4096, 14336, "16384x4096x14336"),
          (4096, 8192, 28672, "4096x8192x28672"), (128, 8192, 28672, "decode128x8192x28672")]
OPS = ("ag+gemm", "gemm+rs", "gemm+ar")


def _no_multicast():
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"


def _interleaved_medians(torch, comm, variants, iterations):
    """Each variant's median time in ms (the slowest rank's), runs interleaved."""
    from mpi4py import MPI
    for run in variants:
        if run:
            run(), run()
    torch.cuda.synchronize()
    times = [[] for _ in variants]
    for _ in range(iterations):
        for i, run in enumerate(variants):
            if not run:
                continue
            comm.Barrier()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            stop.record()
            stop.synchronize()
            times[i].append(start.elapsed_time(stop))
    return [comm.allreduce(statistics.median(t), op=MPI.MAX) if t else 0.0 for t in times]


def _fused(torch, op, group_name, x, w):
    """torch's async-TP op for `op`, or None where torch has none."""
    if op == "ag+gemm":
        return lambda: torch.ops.symm_mem.fused_all_gather_matmul(x, [w.t()], 0, group_name)
    if op == "gemm+rs":
        return lambda: torch.ops.symm_mem.fused_matmul_reduce_scatter(x, w.t(), "sum", 0,
                                                                      group_name)
    return None


def _measure(torch, md, comm, shape, op, iterations):
    import torch.distributed as td
    t, h, f, name = shape
    rank, ranks = comm.Get_rank(), comm.Get_size()
    fr, tr = f // ranks, t // ranks
    g = torch.Generator(device="cuda").manual_seed(17 + rank)
    randn = lambda *s: torch.randn(*s, device="cuda", dtype=torch.bfloat16, generator=g)  # noqa
    if op == "ag+gemm":
        x, w = randn(tr, h), randn(fr, h)       # X rows of this rank, W_r
        full = torch.empty(t, h, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(t, fr, device="cuda", dtype=torch.bfloat16)
        local = lambda: torch.mm(full, w.t(), out=out)  # noqa: E731
        unfused = lambda: (td.all_gather_into_tensor(full, x), local())  # noqa: E731
        dists = [md.Slab.X, md.Slab.Y, md.Slab.Y]
    else:
        x, w = randn(t, fr), randn(h, fr)       # Y_r, W2_r
        part = torch.empty(t, h, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(tr, h, device="cuda", dtype=torch.bfloat16)
        local = lambda: torch.mm(x, w.t(), out=part)  # noqa: E731
        if op == "gemm+rs":
            unfused = lambda: (local(), td.reduce_scatter_tensor(out, part))  # noqa: E731
            dists = [md.Slab.Y, md.Slab.X, md.Slab.X]
        else:
            unfused = lambda: (local(), td.all_reduce(part))  # noqa: E731
            dists = [md.Slab.Y, md.Slab.X, md.Replicated]
    fused, fused_error = _fused(torch, op, td.group.WORLD.group_name, x, w), ""
    if fused:
        try:  # torch's symmetric memory may be unavailable; the row says why
            fused()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            fused, fused_error = None, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        # Timed only where every rank runs it (the variants' barriers must pair up).
        from mpi4py import MPI
        if not comm.allreduce(fused is not None, op=MPI.LAND):
            fused, fused_error = None, fused_error or "failed on another rank"
    stream = torch.cuda.current_stream()
    with md.Matmul(x, w.T, distributions=dists, stream=stream) as mm:
        mm.plan()
        ms = _interleaved_medians(torch, comm, [local, unfused, fused, lambda: mm.execute()],
                                  iterations)
        algorithm = mm.algorithm
    eff = lambda v: ms[0] / v if v > 0 else 0.0  # noqa: E731
    return {"shape": name, "t": t, "h": h, "f": f, "op": op, "algorithm": algorithm,
            "local_ms": ms[0], "torch_unfused_ms": ms[1], "torch_fused_ms": ms[2],
            "mepi_ms": ms[3], "torch_unfused_eff": eff(ms[1]), "torch_fused_eff": eff(ms[2]),
            "mepi_eff": eff(ms[3]), "fused_error": fused_error}


def run(args, argv):
    _no_multicast()
    from mpi4py import MPI
    import torch
    import torch.distributed as td

    import mepi.distributed as md
    comm = MPI.COMM_WORLD
    rank, ranks = comm.Get_rank(), comm.Get_size()
    device = rank % torch.cuda.device_count()
    torch.cuda.set_device(device)
    port = comm.bcast(29500 + os.getpid() % 1000 if rank == 0 else None, root=0)
    td.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                          world_size=ranks, device_id=torch.device("cuda", device))
    try:  # async-TP's ops need symmetric memory enabled for the group (older torch)
        from torch.distributed import _symmetric_memory
        _symmetric_memory.enable_symm_mem_for_group(td.group.WORLD.group_name)
    except Exception:  # noqa: BLE001 - the fused rows then say why they did not run
        pass
    md.initialize(device, comm)
    gpu = torch.cuda.get_device_name(device)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if rank == 0:
        print(f"device: {ranks} x {gpu}, torch {torch.__version__}, {date}")
        print(f"{'T x H x F':<22} {'op':<8} {'local':>7} {'unfused':>8} {'eff':>6} "
              f"{'async-TP':>8} {'eff':>6} {'mepi':>7} {'eff':>6}  algorithm")
    rows = []
    for shape in SHAPES:
        for op in OPS:
            if args.filter and not any(f in f"{shape[3]} {op}" for f in args.filter):
                continue
            r = _measure(torch, md, comm, shape, op, 5 if args.quick else 20)
            rows.append(r)
            if rank == 0:
                print(f"{r['shape']:<22} {op:<8} {r['local_ms']:>7.3f} "
                      f"{r['torch_unfused_ms']:>8.3f} {r['torch_unfused_eff']:>6.3f} "
                      f"{r['torch_fused_ms']:>8.3f} {r['torch_fused_eff']:>6.3f} "
                      f"{r['mepi_ms']:>7.3f} {r['mepi_eff']:>6.3f}  {r['algorithm']}"
                      f"{'  (async-TP: ' + r['fused_error'] + ')' if r['fused_error'] else ''}",
                      flush=True)
    if rank == 0 and args.json:
        with open(args.json, "w") as out:
            json.dump({"device": gpu, "ranks": ranks, "date": date, "torch": torch.__version__,
                       "command": f"mpirun -np {ranks} python -m mepi.bench " + " ".join(argv),
                       "commit": os.environ.get("MEPI_REVISION", "unknown"), "results": rows}, out, indent=1)
    md.finalize()
    td.destroy_process_group()
    return 0
