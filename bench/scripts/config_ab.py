"""python3 bench/scripts/config_ab.py LIST.json BIN_DIR [--set TEXT] [--epilog E] [--check-chosen]

Times each problem of LIST.json ({"problems": [{"m", "n", "k", "old", "new", "set"}]}, e.g.
bench/results/swapped-pairs-ab.json) with mepi-bench forced to the old and the new kernel
configuration, A B B A (A = old, B = new), bf16, and prints each problem's B / A (summed
TFLOP/s) and the geomean. --set keeps the problems whose set holds TEXT; --check-chosen first
asks BIN_DIR's mepi-opt which configuration the heuristic chooses for each and reports those
whose choice is not `new` (the landed tree's rule against the list). Run on the GPU machine."""
import json
import re
import subprocess
import sys
import tempfile

from mlir_problems import abba, config_of, geomean, problem_mlir

args = sys.argv[1:]
path, bin_dir = args[0], args[1]
opt = lambda name, default: args[args.index(name) + 1] if name in args else default
only, epilog = opt("--set", ""), opt("--epilog", "DEFAULT")
problems = [p for p in json.load(open(path))["problems"] if only in p["set"]]


def shape(p):
    return f"{p['m']}x{p['n']}x{p['k']}"


def chosen(p):
    """The heuristic's configuration for p (bf16, B given as [N, K], a truncating epilog)."""
    text = problem_mlir("p", p["m"], p["n"], p["k"])
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
        f.write(text)
        f.flush()
        out = subprocess.run([f"{bin_dir}/mepi-opt", "--mepi-select-kernel-config=chip=sm_90a",
                              f.name], capture_output=True, text=True, check=True).stdout
    return config_of(out)


def tflops(p, config):
    s = shape(p)
    text = subprocess.run([f"{bin_dir}/mepi-bench", "--quick", "--shape", s, "--filter",
                           f"{s} bf16 {epilog}", "--config", config],
                          capture_output=True, text=True, timeout=60).stdout
    row = next(line for line in text.splitlines() if re.search(rf"{s} +bf16 +{epilog}", line))
    return float(row.split()[6])


if "--check-chosen" in args:
    differ = [shape(p) for p in problems if chosen(p) != p["new"]]
    print(f"{len(problems) - len(differ)} of {len(problems)} chosen as listed; differ: {differ}")
ratios = [abba(shape(p), lambda: tflops(p, p["old"]), lambda: tflops(p, p["new"]))
          for p in problems]
if ratios:
    print(f"geomean B/A {geomean(ratios):.3f} over "
          f"{len(ratios)}, lowest {min(ratios):.3f}")
