"""Seeded samples of the paired split-K rule's domain (PairedSplitRules.cpp; seed 20261202, the
rule's data, and 20261203, its check):
bf16 problems D [M, N] = A [M, K] B [N, K]^T of 65-1024 rows, 64-4096 columns and K of
4096-65536 (B at most 2^28 elements), half of them rounded to multiples of 64. Writes
OUT/sample.json and OUT/probs.mlir (each as a mepi.matmul, for mepi-opt
--mepi-select-kernel-config=chip=sm_90a, with the rule's threshold MEPI_EXP_PAIR_MIN_MB set
huge and to 0: the problems whose choice it changes are the A/B's).

    python3 bench/scripts/split_pairs_sample.py OUT [COUNT [SEED]]"""
import json, math, random, sys
from mlir_problems import problem_mlir
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261202)
def logu(lo, hi): return math.exp(rng.uniform(math.log(lo), math.log(hi)))
probs = []
while len(probs) < count:
    m, n, k = int(logu(65, 1024)), int(logu(64, 4096)), int(logu(4096, 65536))
    if len(probs) % 2 == 0:
        m, n, k = (max(128, round(x / 64) * 64) for x in (m, n, k))
    if n * k <= 2 ** 28 and m > 64:
        probs.append({"m": m, "n": n, "k": k})
json.dump(probs, open(out_dir + "/sample.json", "w"), indent=0)
out = [problem_mlir(f"s{i}", e["m"], e["n"], e["k"]) for i, e in enumerate(probs)]
open(out_dir + "/probs.mlir", "w").write("\n".join(out))
print(len(probs))
