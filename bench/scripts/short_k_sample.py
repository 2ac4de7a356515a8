"""The problems of seeded sweeps whose short-K ping-pong the heuristic narrows to 64 x 192
(SelectKernelConfig.cpp, shortKPingpong): for each seed, the aligned problems of
`mepi-bench --list --sweep SEED` (unbatched and strided batched without a shared B, K <= 768), each with a DEFAULT
and a GELU-like epilog, whose configuration from mepi-opt is 64 x 192 ping-pong. Prints them as
`seed name shape epilog`; their --shape labels go to a forced A/B against 64 x 256 ping-pong
(short-k-narrow-unseen.log: seeds 20261201-20261206).

    python3 bench/scripts/short_k_sample.py BIN_DIR SEED..."""
import subprocess
import sys

from mlir_problems import config_of, problem_mlir

bin_dir, seeds = sys.argv[1], sys.argv[2:]
NARROW = "tile = [64, 192, 64], mainloop = <stages = 4, pingpong = true>"


def chosen(text):
    out = subprocess.run([f"{bin_dir}/mepi-opt", "--mepi-select-kernel-config=chip=sm_90a"],
                         input=text, capture_output=True, text=True, check=True).stdout
    return config_of(out)


for seed in seeds:
    listed = subprocess.run([f"{bin_dir}/mepi-bench", "--list", "--sweep", seed],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for line in listed:
        name, shape, _, _, aligned = line.split()
        if aligned != "aligned" or shape.endswith("b"): # one B for all: not in problem_mlir
            continue
        b, m, n, k = map(int, shape.split("x"))
        if k > 768:
            continue
        for special, epilog in ((False, "DEFAULT"), (True, "GELU_BIAS")):
            if NARROW in chosen(problem_mlir(name, m, n, k, b, special)):
                label = f"{b}x{m}x{n}x{k}" if b > 1 else f"{m}x{n}x{k}"
                print(seed, name, label, epilog, flush=True)
