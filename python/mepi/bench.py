"""python -m mepi.bench: mepi against torch in one process on the GPU, as a user of torch would
compare them: torch.mm / torch._addmm_activation (cuBLASLt's GELU epilog) and torch.bmm, on
mepi-bench's shapes, CUDA events, median after warm-up, inputs rotated when they fit in L2, each
timed launch queued behind a short spin kernel (--ungated: with the host in step).

    python -m mepi.bench [--quick] [--grouped | --fp8] [--overhead] [--ungated] [--json FILE]
                         [--filter TEXT]...
    mpirun -np 2 python -m mepi.bench --dist [--quick] [--json FILE] [--filter TEXT]...

GELU_BIAS: torch adds a bias per column of D (addmm's [N] input); mepi computes the same
product with the bias per row of Dᵀ = Bᵀ Aᵀ (its built-in GELU_BIAS), the same work and bytes.

--overhead: the host time of one execute() from Python on a planned problem (issue target:
10 µs), against torch.mm's, each the mean of 2000 calls on a small problem (the GPU's queue
absorbs them; the stream is synchronized once at the end).

--grouped: mixture-of-experts shapes (mepi-bench --grouped's), mepi.GroupedMatmul against
torch._grouped_mm (x [T, K], w [G, N, K] read as [G, K, N], int32 group ends on the device),
bf16, group sizes from a seeded generator; then their weight gradients (GROUPED_K: 2-D x
2-D, groups along K), dW = dYᵀ X from dY [T, N] and X [T, K] row-major, mepi.GroupedMatmul
against torch._grouped_mm(dY.t(), X, offs) -> [G, N, K].

--fp8: e4m3 x e4m3 -> bf16 against torch._scaled_mm (cuBLASLt's FP8) with the same scaling:
tensor-wise (scalars), tensor-wise with fast accumulation (use_fast_accum) and row-wise (A's per
row, B's per column); A [M, K] row-major, B the transposed view of a row-major [N, K], as
_scaled_mm takes them.

--dist: mepi.distributed beside torch.distributed (bench_dist.py says what is compared).
"""

import argparse
import datetime
import json
import math
import os
import statistics
import sys

SHAPES = [(4096, 4096, 4096, "4096^3"), (8192, 8192, 8192, "8192^3"),
          (16, 8192, 8192, "decode16"), (16, 14336, 4096, "decode16-up"),
          (128, 8192, 8192, "m128"), (128, 4096, 14336, "m128-down"),
          (4096, 14336, 4096, "llm-up"), (4096, 4096, 14336, "llm-down"),
          (16384, 8192, 8192, "m16384"), (16384, 14336, 4096, "m16384-up"),
          (4095, 4097, 4099, "odd")]
# (G experts, T tokens or 0 for 0-8 a group, N, K, label), as mepi-bench --grouped.
GROUPED = [(8, 16336, 14336, 4096, "mixtral-up"), (8, 16336, 4096, 14336, "mixtral-down"),
           (256, 30944, 4096, 7168, "dsv3-up"), (256, 32, 4096, 7168, "dsv3-decode"),
           (128, 64608, 1536, 2048, "qwen3-up"), (128, 64608, 2048, 768, "qwen3-down"),
           (256, 0, 4096, 7168, "dsv3-decode-0to8"), (128, 0, 1536, 2048, "qwen3-decode-0to8")]
# The FP8 issue's shapes, then some of the dense set's.
FP8 = [(8192, 8192, 8192, "8192^3"), (4096, 7168, 16384, "4096x7168x16384"),
       (4096, 4096, 7168, "4096x4096x7168"), (2048, 5120, 5120, "2048x5120x5120"),
       (128, 8192, 8192, "m128"), (4096, 4096, 4096, "4096^3"), (4096, 14336, 4096, "llm-up"),
       (4096, 4096, 14336, "llm-down")]
FP8_MODES = ("tensor", "tensor-fast", "row")
BATCHED = [(16, 1024, 1024, 1024, "bmm16x1024^3"), (8, 2048, 2048, 2048, "bmm8x2048^3"),
           (64, 512, 512, 512, "bmm64x512^3")]


# The queue gate (as mepi-bench's): each timed launch waits on the stream behind a spin kernel
# (torch.cuda._sleep) of about _GATE_US, so that the host has queued its events and launches
# before the GPU reaches them and the events time the GPU, not a host call that outlasts its
# kernel (cuBLASLt's host call takes about as long as a µs problem's kernel). None: ungated,
# each launch between events with the host in step (--ungated).
_GATE_US = 50.0
_gate_cycles = None


def _calibrate_gate(torch):
    """Spin cycles of about _GATE_US on this GPU (one timed _sleep of 10^6 cycles)."""
    torch.cuda._sleep(1000)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(1000000)
    stop.record()
    stop.synchronize()
    us_per_cycle = start.elapsed_time(stop) * 1000.0 / 1000000
    return max(1, int(_GATE_US / us_per_cycle))


def _median_ms(torch, run, sets, iterations):
    for i in range(3):
        run(i % sets)
    torch.cuda.synchronize()
    pairs = []
    if _gate_cycles:  # the host runs ahead: twenty gates' time to start with
        torch.cuda._sleep(20 * _gate_cycles)
    for i in range(iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if _gate_cycles:
            torch.cuda._sleep(_gate_cycles)
        start.record()
        run(i % sets)
        stop.record()
        if not _gate_cycles:
            stop.synchronize()
        pairs.append((start, stop))
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(stop) for start, stop in pairs)


def _input_sets(torch, bytes_per_set):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return max(1, min(8, 2 * l2 // max(bytes_per_set, 1) + 1)) if bytes_per_set < 2 * l2 else 1


def _measure(torch, mepi, batch, m, n, k, dtype, epilog, quick):
    shape_a = (batch, m, k) if batch > 1 else (m, k)
    shape_b = (batch, k, n) if batch > 1 else (k, n)
    sets = _input_sets(torch, 2 * (batch * m * k + batch * k * n))
    a = [torch.randn(shape_a, device="cuda", dtype=dtype) for _ in range(sets)]
    b = [torch.randn(shape_b, device="cuda", dtype=dtype) for _ in range(sets)]
    gelu = epilog == "GELU_BIAS"
    bias = [torch.randn(n, device="cuda", dtype=dtype) for _ in range(sets)]
    if batch > 1:
        ref = lambda i: torch.bmm(a[i], b[i])  # noqa: E731
    elif gelu:
        ref = lambda i: torch._addmm_activation(bias[i], a[i], b[i], use_gelu=True)  # noqa: E731
    else:
        ref = lambda i: torch.mm(a[i], b[i])  # noqa: E731
    # mepi: one planned Matmul per input set (the kernel compiles once).
    matmuls = []
    for i in range(sets):
        if gelu:  # Dᵀ = Bᵀ Aᵀ with the bias per row of Dᵀ
            mm = mepi.Matmul(b[i].t(), a[i].t())
            mm.plan(mepi.MatmulEpilog.GELU_BIAS, epilog_inputs={"bias": bias[i]})
        else:
            mm = mepi.Matmul(a[i], b[i])
            mm.plan()
        matmuls.append(mm)
    iterations = 20 if quick else 50
    mepi_ms = _median_ms(torch, lambda i: matmuls[i].execute(), sets, iterations)
    ref_ms = _median_ms(torch, ref, sets, iterations)
    config = matmuls[0].kernel_configuration
    for mm in matmuls:
        mm.free()
    return mepi_ms, ref_ms, config


def _group_sizes(torch, groups, tokens, seed=2026):
    """Multiples of 16 in random proportions summing to `tokens`; tokens spread one by one when
    fewer than 16 a group; 0-8 a group when `tokens` is 0."""
    gen = torch.Generator().manual_seed(seed)
    if tokens == 0:
        return torch.randint(0, 9, (groups,), generator=gen)
    if tokens < 16 * groups:
        return torch.bincount(torch.randint(0, groups, (tokens,), generator=gen),
                              minlength=groups)
    weights = torch.rand(groups, generator=gen) * 1.5 + 0.25
    sizes = (weights / weights.sum() * tokens / 16).floor().long() * 16
    sizes[-1] += tokens - int(sizes.sum())
    return sizes


def _measure_grouped(torch, mepi, groups, tokens, n, k, quick):
    sizes = _group_sizes(torch, groups, tokens)
    t = int(sizes.sum())
    x = torch.randn(t, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16).transpose(-1, -2)
    offs = sizes.cumsum(0).to(torch.int32).cuda()
    mm = mepi.GroupedMatmul(x, w, offs)
    mm.plan()
    iterations = 20 if quick else 50
    mepi_ms = _median_ms(torch, lambda i: mm.execute(), 1, iterations)
    ref_ms = _median_ms(torch, lambda i: torch._grouped_mm(x, w, offs), 1, iterations)
    config = mm.kernel_configuration
    mm.free()
    return t, mepi_ms, ref_ms, config


def _measure_grouped_k(torch, mepi, groups, tokens, n, k, quick):
    sizes = _group_sizes(torch, groups, tokens)
    t = int(sizes.sum())
    dy = torch.randn(t, n, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(t, k, device="cuda", dtype=torch.bfloat16)
    offs = sizes.cumsum(0).to(torch.int32).cuda()
    mm = mepi.GroupedMatmul(dy.t(), x, offs)
    mm.plan()
    iterations = 10 if quick else 30
    mepi_ms = _median_ms(torch, lambda i: mm.execute(), 1, iterations)
    ref_ms = _median_ms(torch, lambda i: torch._grouped_mm(dy.t(), x, offs), 1, iterations)
    config = mm.kernel_configuration
    mm.free()
    return t, mepi_ms, ref_ms, config


def _measure_fp8(torch, mepi, m, n, k, mode, quick):
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    row = mode == "row"
    sa = (torch.rand(m, 1, device="cuda") + 0.5) if row else torch.tensor(0.8, device="cuda")
    sb = (torch.rand(1, n, device="cuda") + 0.5) if row else torch.tensor(1.2, device="cuda")
    fast = mode == "tensor-fast"
    options = mepi.MatmulOptions(result_type="bfloat16", fast_accumulation=fast)
    mm = mepi.Matmul(a, b, options=options,
                     quantization_scales={"a": sa.reshape(-1) if row else sa,
                                          "b": sb.reshape(-1) if row else sb})
    mm.plan()
    iterations = 20 if quick else 50
    mepi_ms = _median_ms(torch, lambda i: mm.execute(), 1, iterations)
    ref_ms = _median_ms(torch, lambda i: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16,
                                                          use_fast_accum=fast), 1, iterations)
    config = mm.kernel_configuration
    mm.free()
    return mepi_ms, ref_ms, config


def _host_overhead(torch, mepi, calls=2000):
    """Mean host µs of mepi's execute() and torch.mm on a 256 x 256 x 256 bf16 problem."""
    import time
    a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    mm = mepi.Matmul(a, b)
    mm.plan()
    results = {}
    for name, call in (("mepi_execute_us", lambda: mm.execute()),
                       ("torch_mm_us", lambda: torch.mm(a, b))):
        for _ in range(100):
            call()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        results[name] = (time.perf_counter() - start) / calls * 1e6
        torch.cuda.synchronize()
    mm.free()
    return results


def _run_header(device, date, torch, argv):
    """What a results file says of its run: device, date, torch, command, and the commit the
    package was built from (MEPI_REVISION, which the device scripts set from the bundle)."""
    return {"device": device, "date": date, "torch": torch.__version__,
            "command": "python -m mepi.bench " + " ".join(argv),
            "commit": os.environ.get("MEPI_REVISION", "unknown")}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m mepi.bench")
    parser.add_argument("--quick", action="store_true", help="bf16 only, fewer launches")
    parser.add_argument("--grouped", action="store_true",
                        help="grouped (MoE) shapes against torch._grouped_mm instead")
    parser.add_argument("--fp8", action="store_true",
                        help="FP8 against torch._scaled_mm with the same scaling instead")
    parser.add_argument("--dist", action="store_true",
                        help="under mpirun: tensor-parallel ops against torch.distributed")
    parser.add_argument("--overhead", action="store_true",
                        help="the host time of execute() from Python against torch.mm's")
    parser.add_argument("--ungated", action="store_true",
                        help="time each launch with the host in step (no queue gate)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--filter", action="append", default=[],
                        help="keep problems whose label contains this text")
    args = parser.parse_args(argv)
    if args.dist:
        from . import bench_dist
        return bench_dist.run(args, argv)
    import torch

    import mepi
    global _gate_cycles
    _gate_cycles = None if args.ungated else _calibrate_gate(torch)
    dtypes = [torch.bfloat16] if args.quick else [torch.bfloat16, torch.float16]
    problems = [(1, m, n, k, name, dt, e) for m, n, k, name in SHAPES for dt in dtypes
                for e in ("DEFAULT", "GELU_BIAS")]
    problems += [(bt, m, n, k, name, dt, "DEFAULT") for bt, m, n, k, name in BATCHED
                 for dt in dtypes]
    if args.grouped:  # (groups, tokens, N, K) in the batch, m, n, k places; m's T is drawn
        problems = [(g, t, n, k, name, torch.bfloat16, "GROUPED")
                    for g, t, n, k, name in GROUPED]
        problems += [(g, t, n, k, name + "-dw", torch.bfloat16, "GROUPED_K")
                     for g, t, n, k, name in GROUPED if t >= 16 * g]
    if args.fp8:  # the mode in the epilog's place
        problems = [(1, m, n, k, name, torch.float8_e4m3fn, mode)
                    for m, n, k, name in FP8 for mode in FP8_MODES]
    device = torch.cuda.get_device_name(0)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if args.overhead:
        results = _host_overhead(torch, mepi)
        print(f"device: {device}, torch {torch.__version__}, {date}: host time per call, "
              f"mepi execute() {results['mepi_execute_us']:.2f} us, torch.mm "
              f"{results['torch_mm_us']:.2f} us")
        if args.json:
            with open(args.json, "w") as out:
                json.dump({**_run_header(device, date, torch, argv), **results},
                          out, indent=1)
        return 0
    print(f"device: {device}, torch {torch.__version__}, {date}, "
          f"{'gated' if _gate_cycles else 'ungated'}")
    print(f"{'shape':<16} {'dtype':<9} {'epilog':<10} {'mepi TF/s':>10} {'torch TF/s':>10} "
          f"{'ratio':>7}  mepi kernel")
    rows, logs = [], []
    for batch, m, n, k, name, dtype, epilog in problems:
        dname = str(dtype).split(".")[-1]
        label = f"{name} {dname} {epilog}"
        if args.filter and not any(f in label for f in args.filter):
            continue
        try:
            if epilog in ("GROUPED", "GROUPED_K"):  # batch: the experts; m: their rows
                measure = _measure_grouped if epilog == "GROUPED" else _measure_grouped_k
                m, mepi_ms, ref_ms, config = measure(torch, mepi, batch, m, n, k, args.quick)
            elif epilog in FP8_MODES:
                mepi_ms, ref_ms, config = _measure_fp8(torch, mepi, m, n, k, epilog,
                                                       args.quick)
            else:
                mepi_ms, ref_ms, config = _measure(torch, mepi, batch, m, n, k, dtype, epilog,
                                                   args.quick)
            error = ""
        except Exception as e:  # noqa: BLE001 - reported per problem, the run goes on
            mepi_ms, ref_ms, config, error = 0.0, 0.0, "", str(e)
        flops = 2.0 * (1 if epilog.startswith("GROUPED") else batch) * m * n * k
        tf = lambda ms: flops / (ms * 1e-3) / 1e12 if ms > 0 else 0.0  # noqa: E731
        ratio = ref_ms / mepi_ms if mepi_ms > 0 else 0.0
        if ratio > 0:
            logs.append(math.log(ratio))
        print(f"{name:<16} {dname:<9} {epilog:<10} {tf(mepi_ms):>10.1f} {tf(ref_ms):>10.1f} "
              f"{ratio:>7.3f}  {config}{'  ERROR: ' + error if error else ''}", flush=True)
        rows.append({"name": name, "batch": batch, "m": m, "n": n, "k": k, "dtype": dname,
                     "epilog": epilog, "mepi_ms": mepi_ms, "torch_ms": ref_ms, "ratio": ratio,
                     "mepi_config": config, "error": error})
    geomean = math.exp(sum(logs) / len(logs)) if logs else 0.0
    print(f"geometric mean of mepi/torch speed ratios over {len(logs)} problems: {geomean:.3f}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({**_run_header(device, date, torch, argv),
                       "gated": _gate_cycles is not None, "geomean_ratio": geomean,
                       "results": rows}, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
