"""Seeded problems for the A/B of D's evict-first TMA stores (Sm90Spec::streamsD).

Usage: d_store_hint_sample.py SEED [--large-d]
Without --large-d: 25 problems whose operands fit in half of L2 with at least two waves of
128 x 256 tiles, then 25 of the sweep's distribution (seed 20261130 gave the fitting sample).
With --large-d: 30 problems of the sweep's distribution whose D is at least 50 MiB, then 6
batched ones (seed 20261201 gave the unseen sample). Prints them as mepi-bench --shape labels.
"""
import math
import random
import sys

L2 = 60 * 2**20


def main():
    rng = random.Random(int(sys.argv[1]))
    large_d = "--large-d" in sys.argv[2:]

    def lu(lo, hi):
        return math.exp(rng.uniform(math.log(lo), math.log(hi)))

    def r64(x):
        return max(64, int(round(x / 64)) * 64)

    out = []
    while not large_d and len(out) < 25:
        m, n, k = r64(lu(1024, 65536)), r64(lu(1024, 65536)), r64(lu(64, 2048))
        tiles = math.ceil(m / 128) * math.ceil(n / 256)
        if 2 * k * (m + n) <= L2 // 2 and m * n <= 2**30 and tiles >= 264:
            out.append("%dx%dx%d" % (m, n, k))
    while len(out) < (30 if large_d else 50):
        m, n, k = r64(lu(64, 65536)), r64(lu(64, 65536)), r64(lu(64, 65536))
        if n * k <= 2**28 and m * n <= 2**30 and (not large_d or m * n * 2 >= 50 * 2**20):
            out.append("%dx%dx%d" % (m, n, k))
    while large_d and len(out) < 36:
        b = rng.randint(2, 64)
        m, n, k = r64(lu(64, 8192)), r64(lu(64, 8192)), r64(lu(64, 8192))
        if b * m * n * 2 >= 50 * 2**20 and b * m * n <= 2**31:
            out.append("%dx%dx%dx%d" % (b, m, n, k))
    print(" ".join(out))


if __name__ == "__main__":
    main()
