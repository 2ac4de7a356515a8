"""The bench scripts' shared helpers: a bf16 problem as a mepi.matmul for mepi-opt, the kernel
configuration the heuristic wrote into mepi-opt's output, and an A B B A comparison."""
import math


def problem_mlir(name, m, n, k):
    """D [m, n] = A [m, k] B [n, k]^T in bf16 with a truncating epilog, as func.func @name."""
    return f"""func.func @{name}(%a: memref<{m}x{k}xbf16> {{mepi.alignment = 16 : i64}}, %b: memref<{n}x{k}xbf16> {{mepi.alignment = 16 : i64}}, %d: memref<{m}x{n}xbf16> {{mepi.alignment = 16 : i64}}) {{
  mepi.matmul ins(%a, %b : memref<{m}x{k}xbf16>, memref<{n}x{k}xbf16>) outs(%d : memref<{m}x{n}xbf16>) attributes {{transpose_b}} epilog {{
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
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
