"""Summarizes an A/B log of D's evict-first TMA stores (bench/results/d-store-hint-ab.log).

Usage: d_store_hint_ab.py LOG [SECTION]
Each line: arm shape epilog mepi_TFLOPs cuBLASLt_TFLOPs ratio config. Arm G8 is the store
without the hint, G8h with it (G1h: with it and a tile order of one tile row). Prints, for the
problems whose D is at least 50 MiB, the geometric mean of G8h / G8 (medians of the runs) by
K class and epilog.
"""
import collections
import math
import sys


def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def main():
    section = sys.argv[2] if len(sys.argv) > 2 else None
    runs = collections.defaultdict(list)
    inside = section is None
    for line in open(sys.argv[1]):
        if line.startswith("## section"):
            inside = section is None or section in line
            continue
        if not inside or line.startswith("#") or not line.strip():
            continue
        arm, shape, epilog, tflops = line.split()[:4]
        runs[(shape, epilog, arm)].append(float(tflops))
    classes = collections.defaultdict(list)
    for shape, epilog, arm in list(runs):
        if arm != "G8" or (shape, epilog, "G8h") not in runs:
            continue
        dims = [int(x) for x in shape.split("x")]
        batch, (m, n, k) = (dims[0] if len(dims) == 4 else 1), dims[-3:]
        if batch * m * n * 2 < 50 * 2**20:
            continue
        x = median(runs[(shape, epilog, "G8h")]) / median(runs[(shape, epilog, arm)])
        kind = "K <= 256" if k <= 256 else "K > 256"
        classes[(kind, epilog)].append(x)
        classes[(kind, "both")].append(x)
    for key in sorted(classes):
        v = classes[key]
        g = math.exp(sum(map(math.log, v)) / len(v))
        print("%-9s %-10s %3d  hint %.3f  [%.3f, %.3f]" % (key + (len(v), g, min(v), max(v))))


if __name__ == "__main__":
    main()
