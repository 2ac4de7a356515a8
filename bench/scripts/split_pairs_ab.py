"""python3 bench/scripts/split_pairs_ab.py SAMPLE_DIR BIN_DIR (on the GPU machine)

Reruns the paired split-K rule's A/B (PairedSplitRules.cpp) from the landed tree: SAMPLE_DIR
holds split_pairs_sample.py's sample.json and probs.mlir (e.g. `split_pairs_sample.py DIR 800
20261203`, the unseen check). BIN_DIR's mepi-opt gives the heuristic's choices; the problems it
pairs are timed with mepi-bench as chosen (B) and forced without the pairs (A: the same
configuration, `cluster = 2` taken out), A B B A, bf16 DEFAULT. Prints each problem's B / A
(mean TFLOP/s) and the geomean."""
import json
import subprocess
import sys

from mlir_problems import abba, bench_run, config_of, geomean

sample_dir, bin_dir = sys.argv[1], sys.argv[2]
out = subprocess.run([f"{bin_dir}/mepi-opt", "--mepi-select-kernel-config=chip=sm_90a",
                      f"{sample_dir}/probs.mlir"],
                     capture_output=True, text=True, check=True).stdout


problems = json.load(open(f"{sample_dir}/sample.json"))
paired = []
for part in out.split("func.func @")[1:]:
    config = config_of(part)
    if "cluster = 2>" in config and "split_k" in config:
        e = problems[int(part.split("(")[0][1:])]
        paired.append((f"{e['m']}x{e['n']}x{e['k']}", config.replace(", cluster = 2>", ">")))
print(f"{len(paired)} of {len(problems)} problems paired", flush=True)


def tflops(shape, config):
    m, n, k = map(int, shape.split("x"))
    return bench_run(bin_dir, {"m": m, "n": n, "k": k}, config)["mepi"]


ratios = [abba(shape, lambda: tflops(shape, unpaired), lambda: tflops(shape, None))
          for shape, unpaired in paired]
if ratios:
    print(f"geomean B/A {geomean(ratios):.3f} over "
          f"{len(ratios)}, {sum(r < 0.97 for r in ratios)} under 0.97")
