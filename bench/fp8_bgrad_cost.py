# FP8 bias gradients of A or B (BGRADA, BGRADB: a pass after the GEMM that reads the operand
# again) against the same GEMM without them (DEFAULT); e4m3 A and B, bf16 D, tensor-wise and
# block scales, CUDA events, median of 30.
# On the device, beside torch: PYTHONPATH=python MEPI_LIBRARY=... python bench/fp8_bgrad_cost.py
import sys, torch, mepi
from cuda_timing import median_ms
torch.manual_seed(0)
dev = "cuda"
for (m, n, k) in [(8192, 8192, 8192), (4096, 7168, 16384), (2048, 5120, 5120), (128, 8192, 8192), (4096, 4096, 4096)]:
    a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()
    kb, nb = (k + 127) // 128, (n + 127) // 128
    s = torch.tensor(0.5, device=dev)
    block = {"a": (torch.rand(m, kb, device=dev) + 0.5).t().contiguous().t(),
             "b": torch.rand(nb, kb, device=dev) + 0.5}
    opts = mepi.MatmulOptions(result_type="bfloat16")
    for scaling, scales in [("tensor", {"a": s, "b": s}), ("block", block)]:
        base = None
        for epilog in ["DEFAULT", "BGRADA", "BGRADB"]:
            with mepi.Matmul(a, b, options=opts, quantization_scales=scales) as mm:
                mm.plan(epilog=getattr(mepi.MatmulEpilog, epilog))
                ms = median_ms(mm)
            base = ms if base is None else base
            extra = "" if epilog == "DEFAULT" else f"  +{(ms - base) * 1e3:6.1f} us ({ms / base:.3f}x)"
            print(f"{m}x{n}x{k:<6} {scaling:6s} {epilog:8s} {ms:8.4f} ms {2 * m * n * k / ms / 1e9:7.1f} TFLOP/s{extra}")
            sys.stdout.flush()
