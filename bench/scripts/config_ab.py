"""python3 bench/scripts/config_ab.py LIST.json BIN_DIR [--set TEXT] [--epilog E] [--check-chosen]
                                     [--rounds R]

Times each problem of LIST.json ({"problems": [{"m", "n", "k", "old", "new", "set"} with
optional "batch" and "epilog"]}, e.g. bench/results/swapped-pairs-ab.json or choice_diff.py's
output) with the old kernel configuration forced and the new one beside it, interleaved launch
by launch in one mepi-bench process (`--config OLD --against NEW`), bf16, R such runs (2), and
prints each problem's new / old speed (the runs' geomean), its share of cuBLASLt's rate old ->
new, and the geomean with how many got faster or slower by more than 3 %. --set keeps the
problems whose set holds TEXT; --epilog is the epilog of entries that name none (DEFAULT);
--check-chosen first asks BIN_DIR's mepi-opt which configuration the heuristic chooses for each
and reports those whose choice is not `new` (the landed tree's rule against the list). Run on
the GPU machine."""
import json
import sys

from mlir_problems import bench_run, chosen, geomean, label, problem_of

args = sys.argv[1:]
path, bin_dir = args[0], args[1]
opt = lambda name, default: args[args.index(name) + 1] if name in args else default
only, default_epilog = opt("--set", ""), opt("--epilog", "DEFAULT")
rounds = int(opt("--rounds", "2"))
problems = [dict({"epilog": default_epilog}, **p)
            for p in json.load(open(path))["problems"] if only in p["set"]]


def compare(p):
    """New over old from `rounds` interleaved runs; prints and returns it."""
    runs = [bench_run(bin_dir, p, p["old"], [p["new"]]) for _ in range(rounds)]
    assert all(r and r["speed"][0] for r in runs), f"{label(p)} {p['epilog']}: no time for both"
    ratio = geomean([r["speed"][0] for r in runs])
    share = geomean([r["mepi"] / r["cublas"] for r in runs])
    print(f"{label(p):>20} {p['epilog']:9} new/old {ratio:.3f}  of cuBLASLt {share:.3f} -> "
          f"{share * ratio:.3f}  runs {[round(r['speed'][0], 3) for r in runs]}", flush=True)
    return ratio


if "--check-chosen" in args:
    configs = chosen(f"{bin_dir}/mepi-opt", "\n".join(problem_of(p, f"p{i}")
                                                      for i, p in enumerate(problems)))
    differ = [f"{label(p)} {p['epilog']}" for p, c in zip(problems, configs) if c != p["new"]]
    print(f"{len(problems) - len(differ)} of {len(problems)} chosen as listed; differ: {differ}")
ratios = [compare(p) for p in problems]
if ratios:
    print(f"geomean new/old {geomean(ratios):.3f} over {len(ratios)}, lowest {min(ratios):.3f}, "
          f"{sum(r > 1.03 for r in ratios)} faster and {sum(r < 0.97 for r in ratios)} slower "
          f"by more than 3 %")
