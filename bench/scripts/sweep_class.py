"""python3 bench/scripts/sweep_class.py OPT BENCH SEED... [--where EXPR] [--chosen TEXT] [--all]

A class of seeded sweep problems as a LIST.json for forms.py or config_ab.py (no GPU): each
aligned problem (--all: every one) of `BENCH --list --sweep SEED` that problem_mlir can write,
with a DEFAULT and a GELU-like epilog, kept where EXPR (Python over b, m, n, k; e.g.
"n <= 384 and b * m >= 8192") holds and OPT's (mepi-opt's) choice holds TEXT; each entry gets
that choice as "heuristic". Prints the count per choice on stderr."""
import collections
import json
import sys

from choice_diff import EPILOGS, listed
from mlir_problems import chosen, problem_of


def main(argv):
    opts = {"--where": "True", "--chosen": ""}
    rest, it = [], iter(argv)
    for a in it:
        if a in opts:
            opts[a] = next(it)
        elif a != "--all":
            rest.append(a)
    opt, bench, *seeds = rest
    asked = [{"set": f"seed {seed}", "name": name, "batch": b, "m": m, "n": n, "k": k,
              "epilog": epilog}
             for seed in seeds for name, b, m, n, k in listed(bench, seed, "--all" in argv)
             if eval(opts["--where"], {}, {"b": b, "m": m, "n": n, "k": k})
             for epilog in EPILOGS]
    configs = chosen(opt, "\n".join(problem_of(p, f"p{i}") for i, p in enumerate(asked)))
    kept = [dict(p, heuristic=c) for p, c in zip(asked, configs) if opts["--chosen"] in c]
    for config, count in collections.Counter(p["heuristic"] for p in kept).most_common():
        print(f"{count:4} {config}", file=sys.stderr)
    json.dump({"problems": kept}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
