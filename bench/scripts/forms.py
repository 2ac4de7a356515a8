"""python3 bench/scripts/forms.py LIST.json BIN_DIR CONFIG... [--rounds R] [--epilog E]

Forced forms: times each problem of LIST.json (as config_ab.py's; entries without "epilog" get
--epilog's, DEFAULT) with the heuristic's choice and each CONFIG (a #mepi.kernel_config
attribute) beside it, interleaved launch by launch in one mepi-bench process (`--against`), bf16,
R such runs (1). Prints each problem's heuristic rate and share of cuBLASLt with each CONFIG's
speed over the heuristic's (the runs' geomean; `-` where it cannot run the problem), and per
CONFIG the geomean of that speed over the problems with how many beat the heuristic by more
than 3 %: the data a rule for a class of problems is fitted on (then checked with
choice_diff.py and config_ab.py on other seeds). Run on the GPU machine."""
import json
import sys

from mlir_problems import bench_run, geomean, label


def parse(argv):
    rounds, default_epilog, rest = 1, "DEFAULT", []
    it = iter(argv)
    for a in it:
        if a == "--rounds":
            rounds = int(next(it))
        elif a == "--epilog":
            default_epilog = next(it)
        else:
            rest.append(a)
    path, bin_dir, *configs = rest
    problems = [dict({"epilog": default_epilog}, **p) for p in json.load(open(path))["problems"]]
    return problems, bin_dir, configs, rounds


def speeds(runs, i):
    """CONFIG i's speed over the heuristic's over the runs (None if it never ran)."""
    values = [r["speed"][i] for r in runs if r["speed"][i]]
    return geomean(values) if values else None


def main(argv):
    problems, bin_dir, configs, rounds = parse(argv)
    for i, c in enumerate(configs, 1):
        print(f"arm {i}: {c}")
    ratios = {i: [] for i in range(len(configs))}
    for p in problems:
        runs = [r for r in (bench_run(bin_dir, p, None, configs) for _ in range(rounds)) if r]
        if not runs:
            print(f"{label(p):>20} {p['epilog']:9} no row", flush=True)
            continue
        cells = []
        for i in ratios:
            v = speeds(runs, i)
            ratios[i] += [v] if v else []
            cells.append(f"{i + 1}:{v:.3f}" if v else f"{i + 1}:-")
        mepi = geomean([r["mepi"] for r in runs])
        share = geomean([r["mepi"] / r["cublas"] for r in runs])
        print(f"{label(p):>20} {p['epilog']:9} heuristic {mepi:7.1f} TFLOP/s ({share:.3f} of "
              f"cuBLASLt, {runs[0]['kernel']})  {' '.join(cells)}", flush=True)
    for i, values in ratios.items():
        if values:
            print(f"arm {i + 1}: geomean {geomean(values):.3f} of the heuristic over "
                  f"{len(values)}, {sum(v > 1.03 for v in values)} faster by more than 3 %, "
                  f"best {max(values):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
