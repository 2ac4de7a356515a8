"""python3 bench/scripts/forms.py LIST.json BIN_DIR CONFIG... [--rounds R] [--epilog E]

Forced forms: times each problem of LIST.json (as config_ab.py's; entries without "epilog" get
--epilog's, DEFAULT) with the heuristic's choice and with each CONFIG forced (a
#mepi.kernel_config attribute), arms interleaved, the order reversed every other round (R = 2:
H C1 C2 ... then ... C2 C1 H), bf16. Prints each problem's mean TFLOP/s per arm, each arm's ratio
to the heuristic, and per arm the geomean of that ratio over the problems with how many beat the
heuristic by more than 3 %: the data a rule for a class of problems is fitted on (then checked
with choice_diff.py and config_ab.py on other seeds). Run on the GPU machine."""
import json
import sys

from mlir_problems import bench_rates, geomean, label


def parse(argv):
    rounds, default_epilog, rest = 2, "DEFAULT", []
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


def time_arms(bin_dir, p, arms, rounds):
    """Each arm's mean TFLOP/s (arm None: the heuristic; None where a configuration cannot run
    the problem), the heuristic's kernel and cuBLASLt's mean TFLOP/s."""
    runs, kernel, cublas = {i: [] for i in range(len(arms))}, "", []
    for r in range(rounds):
        order = range(len(arms)) if r % 2 == 0 else reversed(range(len(arms)))
        for i in order:
            rates = bench_rates(bin_dir, p, arms[i])
            if rates is None:
                runs[i] = None
                continue
            if runs[i] is not None:
                runs[i].append(rates[0])
            cublas.append(rates[1])
            kernel = rates[2] if arms[i] is None else kernel
    mean = lambda v: sum(v) / len(v) if v else None
    return [mean(runs[i]) for i in range(len(arms))], kernel, mean(cublas)


def main(argv):
    problems, bin_dir, configs, rounds = parse(argv)
    arms = [None] + configs
    for i, c in enumerate(configs, 1):
        print(f"arm {i}: {c}")
    ratios = {i: [] for i in range(1, len(arms))}
    for p in problems:
        rates, kernel, cublas = time_arms(bin_dir, p, arms, rounds)
        if rates[0] is None:
            print(f"{label(p):>20} {p['epilog']:9} no row for the heuristic's choice", flush=True)
            continue
        for i in ratios:
            if rates[i] is not None:
                ratios[i].append(rates[i] / rates[0])
        cells = " ".join(f"{i}:{rates[i] / rates[0]:.3f}" if rates[i] else f"{i}:-"
                         for i in ratios)
        print(f"{label(p):>20} {p['epilog']:9} heuristic {rates[0]:7.1f} TFLOP/s "
              f"({rates[0] / cublas:.3f} of cuBLASLt, {kernel})  {cells}", flush=True)
    for i, values in ratios.items():
        if values:
            print(f"arm {i}: geomean {geomean(values):.3f} of the heuristic over {len(values)}, "
                  f"{sum(v > 1.03 for v in values)} faster by more than 3 %, "
                  f"best {max(values):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
