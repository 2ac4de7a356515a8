"""The seeded sample of the one-tile rules' domains (OneTileRules.cpp; seed 20261130): 24 direct
torch.mm problems of 129-192 rows, 24 transposed GELU_BIAS problems (D^T = B^T A^T) of 16-256
user rows, then four few-column short-M problems. Writes OUT/sample.json (the problems) and
OUT/probs.mlir (each as a mepi.matmul, for mepi-opt --mepi-select-kernel-config=chip=sm_90a,
whose choices with and without the rules one_tile_ab.py compares on the GPU).

    python3 bench/scripts/one_tile_sample.py OUT"""
import json, math, random, sys
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
rng = random.Random(20261130)
def logu(lo, hi): return math.exp(rng.uniform(math.log(lo), math.log(hi)))
def r64(x): return max(64, int(round(x / 64)) * 64)
probs = []
while len(probs) < 24:
    m = rng.randint(129, 192); n = r64(logu(2048, 32768)); k = r64(logu(1024, 16384))
    if n * k <= 2 ** 28:
        probs.append({"route": "direct", "m": m, "n": n, "k": k,
                      "layout": rng.choice(["B [K,N]", "B [N,K]^T"])})
while len(probs) < 48:
    m = rng.randint(16, 256); n = r64(logu(2048, 32768)); k = r64(logu(1024, 16384))
    if n * k <= 2 ** 28 and m % 8 == 0:
        probs.append({"route": "transposed", "m": m, "n": n, "k": k,
                      "layout": rng.choice(["A^T MN", "A^T K"])})
# Beyond the seed: few-column short-M problems where the narrow tiles split along K.
for m, n, k in [(192, 4096, 14336), (176, 4096, 8192), (144, 3072, 12288), (160, 2048, 16384)]:
    for lay in ("B [K,N]", "B [N,K]^T"):
        probs.append({"route": "direct", "m": m, "n": n, "k": k, "layout": lay})
json.dump(probs, open(out_dir + "/sample.json", "w"), indent=0)
out = []
for i, e in enumerate(probs):
    m, n, k = e["m"], e["n"], e["k"]
    if e["route"] == "direct":
        a, bsh = f"{m}x{k}", (f"{k}x{n}" if e["layout"] == "B [K,N]" else f"{n}x{k}")
        attrs = "" if e["layout"] == "B [K,N]" else "attributes {transpose_b} "
        d = f"{m}x{n}"
        body = "%r = arith.truncf %acc : f32 to bf16"
    else:  # D^T [n, m] = A'[n, k] B'[k, m]; A' MN-major ([k, n] transpose_a) or K-major
        a = f"{k}x{n}" if e["layout"] == "A^T MN" else f"{n}x{k}"
        bsh = f"{m}x{k}"  # B' = a.t(): K-major, [m, k] with transpose_b
        attrs = ("attributes {transpose_a, transpose_b} " if e["layout"] == "A^T MN"
                 else "attributes {transpose_b} ")
        d = f"{n}x{m}"
        body = "%g = math.tanh %acc : f32\n    %r = arith.truncf %g : f32 to bf16"
    out.append(f"""func.func @s{i}(%a: memref<{a}xbf16> {{mepi.alignment = 16 : i64}}, %b: memref<{bsh}xbf16> {{mepi.alignment = 16 : i64}}, %d: memref<{d}xbf16> {{mepi.alignment = 16 : i64}}) {{
  mepi.matmul ins(%a, %b : memref<{a}xbf16>, memref<{bsh}xbf16>) outs(%d : memref<{d}xbf16>) {attrs}epilog {{
  ^bb0(%acc: f32, %row: index, %col: index):
    {body}
    mepi.yield %r : bf16
  }}
  return
}}""")
open(out_dir + "/probs.mlir", "w").write("\n".join(out))
print(len(probs))
