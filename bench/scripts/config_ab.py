"""python3 bench/scripts/config_ab.py LIST.json BIN_DIR [--set TEXT] [--epilog E] [--check-chosen]

Times each problem of LIST.json ({"problems": [{"m", "n", "k", "old", "new", "set"} with
optional "batch" and "epilog"]}, e.g. bench/results/swapped-pairs-ab.json or choice_diff.py's
output) with mepi-bench forced to the old and the new kernel configuration, A B B A (A = old,
B = new), bf16, and prints each problem's B / A (summed TFLOP/s), its share of cuBLASLt's rate
old -> new, and the geomean with how many got faster or slower by more than 3 %. --set keeps the
problems whose set holds TEXT; --epilog is the epilog of entries that name none (DEFAULT);
--check-chosen first asks BIN_DIR's mepi-opt which configuration the heuristic chooses for each
and reports those whose choice is not `new` (the landed tree's rule against the list). Run on
the GPU machine."""
import json
import sys

from mlir_problems import bench_rates, chosen, geomean, label, problem_of

args = sys.argv[1:]
path, bin_dir = args[0], args[1]
opt = lambda name, default: args[args.index(name) + 1] if name in args else default
only, default_epilog = opt("--set", ""), opt("--epilog", "DEFAULT")
problems = [dict({"epilog": default_epilog}, **p)
            for p in json.load(open(path))["problems"] if only in p["set"]]


def compare(p):
    """A B B A; prints and returns B / A of the summed rates."""
    runs = {"A": [], "B": []}
    for arm in "ABBA":
        rates = bench_rates(bin_dir, p, p["old"] if arm == "A" else p["new"])
        assert rates, f"mepi-bench printed no row for {label(p)} {p['epilog']} arm {arm}"
        runs[arm].append(rates)
    a, b = (sum(r[0] for r in runs[x]) for x in "AB")
    share = lambda x: sum(r[0] / r[1] for r in runs[x]) / 2
    print(f"{label(p):>20} {p['epilog']:9} B/A {b / a:.3f}  of cuBLASLt {share('A'):.3f} -> "
          f"{share('B'):.3f}  A {[r[0] for r in runs['A']]}  B {[r[0] for r in runs['B']]}",
          flush=True)
    return b / a


if "--check-chosen" in args:
    configs = chosen(f"{bin_dir}/mepi-opt", "\n".join(problem_of(p, f"p{i}")
                                                      for i, p in enumerate(problems)))
    differ = [f"{label(p)} {p['epilog']}" for p, c in zip(problems, configs) if c != p["new"]]
    print(f"{len(problems) - len(differ)} of {len(problems)} chosen as listed; differ: {differ}")
ratios = [compare(p) for p in problems]
if ratios:
    print(f"geomean B/A {geomean(ratios):.3f} over {len(ratios)}, lowest {min(ratios):.3f}, "
          f"{sum(r > 1.03 for r in ratios)} faster and {sum(r < 0.97 for r in ratios)} slower "
          f"by more than 3 %")
