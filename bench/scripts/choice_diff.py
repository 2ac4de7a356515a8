"""python3 bench/scripts/choice_diff.py OLD_OPT NEW_OPT BENCH SEED... [--all] > LIST.json

A SEED may also name one of mepi-bench's fixed sets: `dense` (its default set) or a set's flag
(`--batched`, `--catalog`, ...).

The problems of seeded sweeps whose heuristic configuration differs between two mepi-opt builds
(OLD_OPT: the tree before a rule, NEW_OPT: with it), as config_ab.py's LIST.json: a rule is
judged on the problems whose kernels it changes, each timed with the old configuration forced
against the new one. BENCH is a mepi-bench whose `--list --sweep SEED` gives the problems; each
aligned one (--all: every one) is asked with a DEFAULT and a GELU-like epilog (problem_mlir's
`special`, the heuristic's cost class of GELU_BIAS). Problems whose batch shares one B (a
trailing `b`) are left out: problem_mlir does not write them. Prints the count per seed on
stderr."""
import json
import subprocess
import sys

from mlir_problems import chosen, problem_of

EPILOGS = ("DEFAULT", "GELU_BIAS")


def listed(bench, seed, every):
    """(name, batch, m, n, k) of the sweep's problems that problem_mlir can write."""
    which = [] if seed == "dense" else [seed] if seed.startswith("--") else ["--sweep", seed]
    out = subprocess.run([bench, "--list", *which], capture_output=True, text=True,
                         check=True).stdout
    seen = set()  # the fixed sets list each shape once per dtype and epilog
    for line in out.splitlines():
        name, shape, _, _, aligned = line.split()
        if shape.endswith("b") or (aligned != "aligned" and not every) or (name, shape) in seen:
            continue
        seen.add((name, shape))
        yield (name, *map(int, shape.split("x")))


def changed(old_opt, new_opt, bench, seed, every=False):
    """The problem-epilogs of one seed whose configuration differs, as LIST.json entries."""
    asked = [{"set": f"seed {seed}", "name": name, "batch": b, "m": m, "n": n, "k": k,
              "epilog": epilog}
             for name, b, m, n, k in listed(bench, seed, every) for epilog in EPILOGS]
    module = "\n".join(problem_of(p, f"p{i}") for i, p in enumerate(asked))
    old, new = chosen(old_opt, module), chosen(new_opt, module)
    assert len(old) == len(new) == len(asked), "mepi-opt dropped a function"
    return [dict(p, old=o, new=c) for p, o, c in zip(asked, old, new) if o != c]


def main(argv):
    every = "--all" in argv
    old_opt, new_opt, bench, *seeds = [a for a in argv if a != "--all"]
    problems = []
    for seed in seeds:
        found = changed(old_opt, new_opt, bench, seed, every)
        print(f"seed {seed}: {len(found)} problem-epilogs changed", file=sys.stderr)
        problems += found
    json.dump({"problems": problems}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
