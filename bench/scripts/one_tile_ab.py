"""python3 bench/scripts/one_tile_ab.py PROBLEMS.json (on the GPU machine, with mepi and torch)

Session 58: a seeded sample of the one-tile rules' domains (seed 20261130; 24 direct
torch.mm problems of 129-192 rows, 24 transposed GELU_BIAS problems of 16-256 user rows; none
tuned on): the heuristic (new) against the choice without the rules (old, forced), A B B A
twice, beside torch; problems whose choice the rules do not change are timed once as controls."""
import json
import math
import sys
import torch
import mepi
import mepi.bench as mb

mb._gate_cycles = mb._calibrate_gate(torch)
rows = []
for e in json.load(open(sys.argv[1])):  # sample.json with each problem's "old" and "new" choice
    m, n, k, lay, old = e["m"], e["n"], e["k"], e["layout"], e["old"]
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    changed = e["old"] != e["new"]
    plans = {}
    for arm, cfg in (("new", None), ("old", old)) if changed else (("new", None),):
        opts = mepi.MatmulOptions(kernel_config=cfg)
        if e["route"] == "direct":
            b = w.t().contiguous() if lay == "B [K,N]" else w.t()
            mm = mepi.Matmul(a, b, options=opts)
            mm.plan()
        else:
            b = w.t().contiguous()
            mm = mepi.Matmul(b.t() if lay == "A^T MN" else w, a.t(), options=opts)
            mm.plan(mepi.MatmulEpilog.GELU_BIAS, epilog_inputs={"bias": bias})
        plans[arm] = mm
    if e["route"] == "direct":
        ref = lambda i: torch.mm(a, b)  # noqa: E731
    else:
        ref = lambda i: torch._addmm_activation(bias, a, b, use_gelu=True)  # noqa: E731
    order = ("new", "old", "old", "new", "new", "old", "old", "new") if changed else ("new",) * 2
    times = {"new": [], "old": [], "torch": []}
    for arm in order:
        times[arm].append(mb._median_ms(torch, lambda i: plans[arm].execute(), 1, 50))
    for _ in range(2):
        times["torch"].append(mb._median_ms(torch, ref, 1, 50))
    t = min(times["torch"])
    med = {arm: sorted(v)[len(v) // 2] for arm, v in times.items() if v}
    gain = med["old"] / med["new"] if changed else 1.0
    rows.append({**e, "new_of_torch": t / med["new"],
                 "old_of_torch": t / med["old"] if changed else None, "new_over_old": gain})
    old_text = f" old {t / med['old']:.3f}" if changed else ""
    print(f"{e['route']:<10} {m}x{n}x{k:<6} {lay:<9} {'changed' if changed else 'same   '} "
          f"new/old {gain:.3f}  of torch: new {t / med['new']:.3f}{old_text}  "
          f"{plans['new'].kernel_configuration}", flush=True)
    for mm in plans.values():
        mm.free()
ch = [r for r in rows if r["old_of_torch"]]
gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 0  # noqa: E731
print(f"changed {len(ch)} of {len(rows)}: new/old geomean {gm([r['new_over_old'] for r in ch]):.3f}, "
      f"min {min((r['new_over_old'] for r in ch), default=0):.3f}; of torch new "
      f"{gm([r['new_of_torch'] for r in ch]):.3f} old {gm([r['old_of_torch'] for r in ch]):.3f}; "
      f"all {len(rows)} new of torch {gm([r['new_of_torch'] for r in rows]):.3f}")
json.dump(rows, open(__import__("os").environ.get("OUT", ".") + "/one-tile-sweep.json", "w"),
          indent=1)
