"""The bench scripts' shared helpers: a bf16 problem as a mepi.matmul for mepi-opt, the kernel
configuration the heuristic wrote into mepi-opt's output, a problem's rates from one mepi-bench
run, and an A B B A comparison. A problem is a dict {"m", "n", "k"} with optional "batch" (1)
and "epilog" (DEFAULT), as in the LIST.json files of config_ab.py and choice_diff.py."""
import math
import re
import subprocess


def problem_mlir(name, m, n, k, batch=1, special=False):
    """D [m, n] = A [m, k] B [n, k]^T in bf16 with a truncating epilog, as func.func @name;
    `batch` > 1 gives each operand a leading batch dimension, and `special` a sigmoid-like
    epilog of approximate special ops (x / (1 + 2^x), the heuristic's cost class of GELU_BIAS)."""
    pre = f"{batch}x" if batch > 1 else ""
    a, b, d = f"{pre}{m}x{k}xbf16", f"{pre}{n}x{k}xbf16", f"{pre}{m}x{n}xbf16"
    body = "%r = arith.truncf %acc : f32 to bf16"
    if special:
        body = ("%one = arith.constant 1.0 : f32\n    %e = math.exp2 %acc fastmath<afn> : f32\n"
                "    %s = arith.addf %one, %e : f32\n"
                "    %x = arith.divf %acc, %s fastmath<afn> : f32\n"
                "    %r = arith.truncf %x : f32 to bf16")
    return f"""func.func @{name}(%a: memref<{a}> {{mepi.alignment = 16 : i64}}, %b: memref<{b}> {{mepi.alignment = 16 : i64}}, %d: memref<{d}> {{mepi.alignment = 16 : i64}}) {{
  mepi.matmul ins(%a, %b : memref<{a}>, memref<{b}>) outs(%d : memref<{d}>) attributes {{transpose_b}} epilog {{
  ^bb0(%acc: f32, %row: index, %col: index):
    {body}
    mepi.yield %r : bf16
  }}
  return
}}"""


def config_of(text):
    """The first #mepi.kernel_config attribute in `text` (its angle brackets balanced)."""
    i = text.find("#mepi.kernel_config<")
    j, depth = i + len("#mepi.kernel_config<"), 1
    while depth:
        depth += {"<": 1, ">": -1}.get(text[j], 0)
        j += 1
    return text[i:j]


def abba(label, time_a, time_b):
    """Runs time_a() and time_b() (TFLOP/s each) in the order A B B A, prints the label's B / A
    (the runs' sums) with the runs, and returns that ratio."""
    runs = {"A": [], "B": []}
    for arm in "ABBA":
        runs[arm].append(time_a() if arm == "A" else time_b())
    ratio = sum(runs["B"]) / sum(runs["A"])
    print(f"{label:>18} B/A {ratio:.3f}  A {runs['A']}  B {runs['B']}", flush=True)
    return ratio


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def label(p):
    """The problem's mepi-bench --shape label: [BATCHx]MxNxK."""
    batch = p.get("batch", 1)
    return (f"{batch}x" if batch > 1 else "") + f"{p['m']}x{p['n']}x{p['k']}"


def epilog(p, default="DEFAULT"):
    return p.get("epilog", default)


def problem_of(p, name="p"):
    """The problem as problem_mlir writes it (GELU_BIAS as its cost class)."""
    return problem_mlir(name, p["m"], p["n"], p["k"], p.get("batch", 1), epilog(p) != "DEFAULT")


def chosen(opt, module):
    """Each function's configuration, in order, from one mepi-opt run over the module's text."""
    out = subprocess.run([opt, "--mepi-select-kernel-config=chip=sm_90a"], input=module,
                         capture_output=True, text=True, check=True).stdout
    return [config_of(part) for part in out.split("func.func @")[1:]]


def bench_run(bin_dir, p, config=None, against=(), default_epilog="DEFAULT"):
    """One `mepi-bench --quick` run of the problem in bf16, with `config` forced or the heuristic's
    choice, and each of `against` timed interleaved with it (launch by launch): a dict of mepi's
    and cuBLASLt's TFLOP/s, mepi's kernel as the row names it, and per `against` its speed over
    the row's own (None where it could not plan the problem); None where mepi-bench printed no
    row (a forced configuration that cannot run the problem: it said why)."""
    s, e = label(p), epilog(p, default_epilog)
    args = [f"{bin_dir}/mepi-bench", "--quick", "--shape", s, "--filter", f"{s} bf16 {e}"]
    args += ["--config", config] if config else []
    for c in against:
        args += ["--against", c]
    text = subprocess.run(args, capture_output=True, text=True, timeout=300).stdout
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if re.search(rf"^{s} +bf16 +{e} ", line)), None)
    if at is None:
        return None
    fields = lines[at].split()
    run = {"mepi": float(fields[6]), "cublas": float(fields[7]), "kernel": " ".join(fields[12:]),
           "speed": []}
    if against:  # the line before the row: own, then each against, as `=MS ms TIME/OWN;`
        times = [float(t) for t in re.findall(r"=[0-9.]+ ms ([0-9.]+);", lines[at - 1])]
        run["speed"] = [1 / t if t > 0 else None for t in times[1:]]
    return run
