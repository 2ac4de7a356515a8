# FP8 with an operand c: C read by the epilog (beside A's and B's scales) against the kernel's
# own C path (no A/B scales) and against no C; e4m3 A, B, bf16 C and D, CUDA events, median.
# On the device, beside torch: PYTHONPATH=python MEPI_LIBRARY=... python bench/fp8_c_cost.py
import sys, torch, mepi
from cuda_timing import median_ms
torch.manual_seed(0)
dev = "cuda"
for (m, n, k) in [(8192, 8192, 8192), (4096, 7168, 16384), (2048, 5120, 5120), (128, 8192, 8192), (4096, 4096, 4096)]:
    a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()
    c = torch.randn(m, n, device=dev).to(torch.bfloat16)
    s = torch.tensor(0.5, device=dev)
    opts = mepi.MatmulOptions(result_type="bfloat16")
    rows = []
    for name, cc, scales in [("no C, sA sB", None, {"a": s, "b": s}),
                             ("C in the epilog (sA sB sC)", c, {"a": s, "b": s, "c": s}),
                             ("C in the kernel (no A/B scales)", c, None)]:
        kw = dict(beta=1.0) if cc is not None else {}
        with mepi.Matmul(a, b, cc, options=opts, quantization_scales=scales, **kw) as mm:
            mm.plan()
            ms = median_ms(mm)
            rows.append((name, ms, 2 * m * n * k / ms / 1e9, mm.kernel_configuration))
    for name, ms, tf, cfg in rows:
        print(f"{m}x{n}x{k:<6} {name:34s} {ms:8.4f} ms {tf:7.1f} TFLOP/s  {cfg}")
    sys.stdout.flush()
