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
import re
import subprocess
import sys

from mlir_problems import config_of, geomean, problem_mlir

args = sys.argv[1:]
path, bin_dir = args[0], args[1]
opt = lambda name, default: args[args.index(name) + 1] if name in args else default
only, default_epilog = opt("--set", ""), opt("--epilog", "DEFAULT")
problems = [p for p in json.load(open(path))["problems"] if only in p["set"]]


def shape(p):
    batch = p.get("batch", 1)
    return (f"{batch}x" if batch > 1 else "") + f"{p['m']}x{p['n']}x{p['k']}"


def epilog(p):
    return p.get("epilog", default_epilog)


def chosen(p):
    """The heuristic's configuration for p (bf16, B given as [N, K], a truncating epilog or,
    for GELU_BIAS, one of its cost class)."""
    text = problem_mlir("p", p["m"], p["n"], p["k"], p.get("batch", 1), epilog(p) != "DEFAULT")
    out = subprocess.run([f"{bin_dir}/mepi-opt", "--mepi-select-kernel-config=chip=sm_90a"],
                         input=text, capture_output=True, text=True, check=True).stdout
    return config_of(out)


def rates(p, config):
    """(mepi's, cuBLASLt's) TFLOP/s of one mepi-bench run with the configuration forced."""
    s, e = shape(p), epilog(p)
    text = subprocess.run([f"{bin_dir}/mepi-bench", "--quick", "--shape", s, "--filter",
                           f"{s} bf16 {e}", "--config", config],
                          capture_output=True, text=True, timeout=60).stdout
    row = next(line for line in text.splitlines() if re.search(rf"{s} +bf16 +{e} ", line))
    return float(row.split()[6]), float(row.split()[7])


def compare(p):
    """A B B A; prints and returns B / A of the summed rates."""
    runs = {"A": [], "B": []}
    for arm in "ABBA":
        runs[arm].append(rates(p, p["old"] if arm == "A" else p["new"]))
    a, b = (sum(r[0] for r in runs[x]) for x in "AB")
    share = lambda x: sum(r[0] / r[1] for r in runs[x]) / 2
    print(f"{shape(p):>20} {epilog(p):9} B/A {b / a:.3f}  of cuBLASLt {share('A'):.3f} -> "
          f"{share('B'):.3f}  A {[r[0] for r in runs['A']]}  B {[r[0] for r in runs['B']]}",
          flush=True)
    return b / a


if "--check-chosen" in args:
    differ = [f"{shape(p)} {epilog(p)}" for p in problems if chosen(p) != p["new"]]
    print(f"{len(problems) - len(differ)} of {len(problems)} chosen as listed; differ: {differ}")
ratios = [compare(p) for p in problems]
if ratios:
    print(f"geomean B/A {geomean(ratios):.3f} over {len(ratios)}, lowest {min(ratios):.3f}, "
          f"{sum(r > 1.03 for r in ratios)} faster and {sum(r < 0.97 for r in ratios)} slower "
          f"by more than 3 %")
