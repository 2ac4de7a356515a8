"""The Python package on the GPU (run by scripts/device-run.sh python, beside torch): results
against an fp64 reference on random inputs with odd shapes, every operand source, Python
epilogs, aux outputs, reset and the function form."""

import numpy
import pytest
import torch

import mepi

DEVICE = "cuda"


def reference(a, b, bias=None, activation=None):
    d = a.double() @ b.double()
    if bias is not None:
        d = d + bias.double()[:, None]
    if activation == "relu":
        d = torch.relu(d)
    if activation == "gelu":
        d = torch.nn.functional.gelu(d, approximate="tanh")
    return d


def relative_error(got, want):
    got = torch.as_tensor(got, device=DEVICE).double()
    return float(torch.linalg.norm(got - want) / torch.linalg.norm(want))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (127, 129, 255), (1000, 1000, 1000), (257, 33, 4099)])
def test_dense_against_fp64(dtype, m, n, k):
    a = torch.randn(m, k, device=DEVICE, dtype=dtype)
    b = torch.randn(k, n, device=DEVICE, dtype=dtype)
    with mepi.Matmul(a, b) as mm:
        mm.plan()
        d = mm.execute()
        assert isinstance(d, torch.Tensor) and d.dtype == dtype and d.shape == (m, n)
        assert relative_error(d, reference(a, b)) < 1e-2


def test_column_major_and_transposed_views():
    a = torch.randn(300, 200, device=DEVICE, dtype=torch.bfloat16).t()  # [200, 300], col-major
    b = torch.randn(257, 300, device=DEVICE, dtype=torch.bfloat16).t()  # [300, 257]
    d = mepi.matmul(a, b)
    assert relative_error(d, reference(a, b)) < 1e-2


@pytest.mark.parametrize("epilog,activation", [(mepi.MatmulEpilog.BIAS, None),
                                               (mepi.MatmulEpilog.RELU_BIAS, "relu"),
                                               (mepi.MatmulEpilog.GELU_BIAS, "gelu")])
def test_builtin_epilogs(epilog, activation):
    a = torch.randn(333, 520, device=DEVICE, dtype=torch.bfloat16)
    b = torch.randn(520, 264, device=DEVICE, dtype=torch.bfloat16)
    bias = torch.randn(333, device=DEVICE, dtype=torch.bfloat16)
    with mepi.Matmul(a, b) as mm:
        mm.plan(epilog, epilog_inputs={"bias": bias})
        assert relative_error(mm.execute(), reference(a, b, bias, activation)) < 1e-2


@pytest.mark.parametrize("epilog,activation", [(mepi.MatmulEpilog.BIAS, None),
                                               (mepi.MatmulEpilog.GELU_BIAS, "gelu")])
def test_batch_with_one_b_and_one_bias(epilog, activation):
    """A [batch, M, K] @ one B with one bias [M] for every element, as nn.Linear's batched
    input in nvmath's orientation: planned as one GEMM of batch * M rows whose bias repeats
    every M rows (M = 100 ends inside a tile)."""
    a = torch.randn(5, 100, 264, device=DEVICE, dtype=torch.bfloat16)
    b = torch.randn(264, 136, device=DEVICE, dtype=torch.bfloat16)
    bias = torch.randn(100, device=DEVICE, dtype=torch.bfloat16)
    with mepi.Matmul(a, b) as mm:
        mm.plan(epilog, epilog_inputs={"bias": bias})
        d = mm.execute()
        assert d.shape == (5, 100, 136)
        want = torch.stack([reference(a[i], b, bias, activation) for i in range(5)])
        assert relative_error(d, want) < 1e-2
    # A bias of another length is refused, naming it, though 50 divides the folded rows.
    with mepi.Matmul(a, b) as mm:
        with pytest.raises(Exception, match="bias|epilog input 0"):
            mm.plan(epilog, epilog_inputs={"bias": bias[:50]})


def test_python_epilog():
    @mepi.epilog(bias="row", scale="scalar")
    def scaled_gelu(acc, bias, scale):
        return mepi.math.gelu(acc * scale + bias)

    a = torch.randn(257, 130, device=DEVICE, dtype=torch.bfloat16)
    b = torch.randn(130, 99, device=DEVICE, dtype=torch.bfloat16)
    bias = torch.randn(257, device=DEVICE, dtype=torch.float32)
    scale = torch.tensor(0.5, device=DEVICE, dtype=torch.float32)
    with mepi.Matmul(a, b) as mm:
        mm.plan(scaled_gelu, epilog_inputs={"bias": bias, "scale": scale})
        want = torch.nn.functional.gelu(0.5 * a.double() @ b.double() + bias.double()[:, None],
                                        approximate="tanh")
        assert relative_error(mm.execute(), want) < 1e-2


def test_aux_outputs_and_reset():
    a = torch.randn(256, 128, device=DEVICE, dtype=torch.float16)
    b = torch.randn(128, 192, device=DEVICE, dtype=torch.float16)
    bias = torch.randn(256, device=DEVICE, dtype=torch.float16)
    with mepi.Matmul(a, b) as mm:
        mm.plan(mepi.MatmulEpilog.GELU_AUX_BIAS, epilog_inputs={"bias": bias})
        d, aux = mm.execute()
        assert set(aux) == {"gelu_aux"}
        assert relative_error(d, reference(a, b, bias, "gelu")) < 1e-2
        a2 = torch.randn_like(a)
        mm.reset_operands(a=a2)
        d2, aux2 = mm.execute()
        assert relative_error(d2, reference(a2, b, bias, "gelu")) < 1e-2
        # The same memory, rewritten: the same tensors handed out again (no export per call).
        assert d2 is d and aux2["gelu_aux"] is aux["gelu_aux"]


def test_strict_and_tf32_f32():
    a = torch.randn(300, 1000, device=DEVICE, dtype=torch.float32)
    b = torch.randn(257, 1000, device=DEVICE, dtype=torch.float32).t()  # K-major, as TF32 reads
    assert relative_error(mepi.matmul(a, b), reference(a, b)) < 1e-5
    tf32 = mepi.matmul(a, b, options={"allow_tf32": True})
    assert 1e-6 < relative_error(tf32, reference(a, b)) < 1e-3


def test_numpy_in_numpy_out():
    a = numpy.random.randn(65, 33).astype(numpy.float16)
    b = numpy.random.randn(33, 17).astype(numpy.float16)
    d = mepi.matmul(a, b)
    assert isinstance(d, numpy.ndarray) and d.shape == (65, 17)
    want = a.astype(numpy.float64) @ b.astype(numpy.float64)
    assert numpy.linalg.norm(d - want) / numpy.linalg.norm(want) < 1e-2


def test_cupy_operands():
    cupy = pytest.importorskip("cupy")
    a = cupy.random.randn(100, 60).astype(cupy.float16)
    b = cupy.random.randn(60, 40).astype(cupy.float16)
    d = mepi.matmul(a, b)
    assert isinstance(d, cupy.ndarray)
    want = a.astype(cupy.float64) @ b.astype(cupy.float64)
    assert float(cupy.linalg.norm(d - want) / cupy.linalg.norm(want)) < 1e-2


def test_execute_on_a_torch_stream():
    a = torch.randn(512, 512, device=DEVICE, dtype=torch.bfloat16)
    stream = torch.cuda.Stream()
    with mepi.Matmul(a, a, stream=stream) as mm:
        mm.plan()
        d = mm.execute()
        stream.synchronize()
        assert relative_error(d, reference(a, a)) < 1e-2


@pytest.mark.parametrize("row_wise", [False, True])
def test_fp8_scaled_against_fp64(row_wise):
    m, n, k = 257, 300, 528
    a = torch.randn(m, k, device=DEVICE).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=DEVICE).to(torch.float8_e5m2).t()  # [K, N], K-major
    sa = (torch.rand(m, device=DEVICE) + 0.5) if row_wise else torch.tensor(0.75, device=DEVICE)
    scales = {"a": sa, "b": 1.5}  # a Python number goes to the device as a rank-0 f32
    options = mepi.MatmulOptions(result_type="bfloat16", result_amax=True)
    d, aux = mepi.matmul(a, b, epilog=mepi.MatmulEpilog.RELU, options=options,
                         quantization_scales=scales)
    scale_a = sa.double()[:, None] if row_wise else sa.double()
    want = torch.relu(a.double() @ b.double() * scale_a * 1.5)
    assert d.dtype == torch.bfloat16 and relative_error(d, want) < 1e-2
    amax = float(aux["result_amax"])
    assert abs(amax - float(want.abs().max())) <= 1e-3 * amax


def test_fp8_batch_with_one_b_and_one_bias_against_fp64():
    """8-bit A [batch, M, K] @ one B with tensor-wise scales and one bias [M] for every element:
    folded into one GEMM of batch * M rows, the bias read at the row within the element."""
    a = torch.randn(3, 100, 528, device=DEVICE).to(torch.float8_e4m3fn)
    b = torch.randn(300, 528, device=DEVICE).to(torch.float8_e4m3fn).t()  # [K, N], K-major
    bias = torch.randn(100, device=DEVICE, dtype=torch.bfloat16)
    options = mepi.MatmulOptions(result_type="bfloat16", result_amax=True)
    d, aux = mepi.matmul(a, b, epilog=mepi.MatmulEpilog.GELU_BIAS, options=options,
                         epilog_inputs={"bias": bias}, quantization_scales={"a": 0.75, "b": 1.5})
    x = torch.stack([a[i].double() @ b.double() for i in range(3)]) * 1.125
    want = torch.nn.functional.gelu(x + bias.double()[:, None], approximate="tanh")
    assert d.shape == (3, 100, 300) and relative_error(d, want) < 1e-2
    amax = float(aux["result_amax"])
    assert abs(amax - float(want.abs().max())) <= 1e-2 * amax


def test_fp8_with_c_and_its_scale_against_fp64():
    # nvmath's D = sD * epilog(alpha sA sB A B + beta sC C): C in bf16 beside an e4m3 D, every
    # scale a device scalar or a number; odd shapes.
    m, n, k = 201, 136, 520
    a = torch.randn(m, k, device=DEVICE).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=DEVICE).to(torch.float8_e4m3fn).t()
    c = torch.randn(m, n, device=DEVICE).to(torch.bfloat16)
    sa = torch.rand(m, device=DEVICE) + 0.5
    scales = {"a": sa, "b": 0.75, "c": 1.25, "d": 2.0}
    options = mepi.MatmulOptions(result_type="float8_e4m3fn")
    d = mepi.matmul(a, b, c, alpha=0.5, beta=0.8, epilog=mepi.MatmulEpilog.RELU,
                    options=options, quantization_scales=scales)
    z = 0.5 * (a.double() @ b.double()) * sa.double()[:, None] * 0.75 + 0.8 * 1.25 * c.double()
    want = (torch.relu(z) * 2.0).clamp(-448, 448)
    assert d.dtype == torch.float8_e4m3fn
    assert relative_error(d.double(), want) < 5e-2  # e4m3's rounding


def block_scaled_operands(m, n, k, b_type=torch.float8_e4m3fn):
    """Random 8-bit A [M, K] and B [K, N] (K-major) with DeepSeek-V3's scales: A's per row and
    128 elements of K (M-major, as torch hands them to cuBLASLt), B's per 128 x 128 block; and
    the dequantized A [M, K] and B^T [N, K] in fp64."""
    kb, nb = (k + 127) // 128, (n + 127) // 128
    a = torch.randn(m, k, device=DEVICE).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=DEVICE).to(b_type).t()
    sa = (torch.rand(m, kb, device=DEVICE) * 3 + 0.25).t().contiguous().t()
    sb = torch.rand(nb, kb, device=DEVICE) * 3 + 0.25
    a_scale = sa.double().repeat_interleave(128, dim=1)[:, :k]
    b_scale = sb.double().repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
    return a, b, sa, sb, a.double() * a_scale, b.t().double() * b_scale


def test_fp8_block_scaled_against_fp64():
    # Partial blocks in M, N and K.
    a, b, sa, sb, a_real, b_real = block_scaled_operands(333, 300, 1000)
    options = mepi.MatmulOptions(result_type="float32")
    d = mepi.matmul(a, b, options=options, quantization_scales={"a": sa, "b": sb})
    assert relative_error(d, a_real @ b_real.t()) < 5e-4


@pytest.mark.parametrize("epilog", ["BGRADA", "BGRADB"])
def test_fp8_bias_gradients_with_block_scales_against_fp64(epilog):
    # The bias gradient of 8-bit A or B: the sums over K of the dequantized operand (a pass
    # after the GEMM), bf16 beside an e4m3 D; partial blocks in M, N and K.
    a, b, sa, sb, a_real, b_real = block_scaled_operands(300, 333, 1100, torch.float8_e5m2)
    d, aux = mepi.matmul(a, b, epilog=getattr(mepi.MatmulEpilog, epilog),
                         quantization_scales={"a": sa, "b": sb, "d": 0.5},
                         options={"result_type": "float8_e4m3fn"})
    assert relative_error(d.double(), (a_real @ b_real.t()) * 0.5) < 5e-2  # e4m3's rounding
    key = epilog.lower()
    assert set(aux) == {key}
    grad = aux[key]
    assert grad.dtype == torch.bfloat16
    want = a_real.sum(dim=1) if epilog == "BGRADA" else b_real.sum(dim=1)
    assert relative_error(grad.reshape(-1), want) < 1e-2


def mx_interleaved(scales):
    """[R, Kb] e8m0 scales (uint8) in cuBLASLt's interleaved layout (nvmath's to_block_scale):
    128 x 4 tiles of 512 bytes, row-tile-major, row r and block c at 16 (r % 32) +
    4 (r % 128 / 32) + c % 4 inside a tile."""
    rows, blocks = scales.shape
    padded = torch.zeros((rows + 127) // 128 * 128, (blocks + 3) // 4 * 4, dtype=torch.uint8,
                         device=scales.device)
    padded[:rows, :blocks] = scales
    tiles = padded.view(padded.shape[0] // 128, 4, 32, padded.shape[1] // 4, 4)
    # [row tile, quarter, r % 32, block tile, c % 4] -> [row tile, block tile, r % 32, quarter, c]
    return tiles.permute(0, 3, 2, 1, 4).contiguous().view(-1)


@pytest.mark.parametrize("types", [(torch.float8_e4m3fn, torch.float8_e4m3fn, "bfloat16"),
                                   (torch.float8_e5m2, torch.float8_e4m3fn, "float32")])
def test_mxfp8_block_scaling_against_fp64(types):
    # nvmath's block_scaling: e8m0 scales per 32 elements of K, emulated on Hopper; K not a
    # multiple of 32, scales 2^-6 .. 2^6.
    a_type, b_type, out = types
    m, n, k = 300, 136, 1000
    kb = (k + 31) // 32
    a = torch.randn(m, k, device=DEVICE).to(a_type)
    b = torch.randn(n, k, device=DEVICE).to(b_type).t()  # [K, N], K-major
    ea = torch.randint(121, 134, (m, kb), device=DEVICE, dtype=torch.uint8)
    eb = torch.randint(121, 134, (n, kb), device=DEVICE, dtype=torch.uint8)
    options = mepi.MatmulOptions(result_type=out, block_scaling=True)
    d = mepi.matmul(a, b, options=options,
                    quantization_scales={"a": mx_interleaved(ea), "b": mx_interleaved(eb)})
    fa = torch.exp2(ea.double() - 127).repeat_interleave(32, dim=1)[:, :k]
    fb = torch.exp2(eb.double() - 127).repeat_interleave(32, dim=1)[:, :k]
    want = (a.double() * fa) @ (b.t().double() * fb).t()
    assert relative_error(d, want) < (5e-5 if out == "float32" else 1e-2)


def test_fp8_output_saturates_and_fast_accumulation():
    m, n, k = 200, 256, 512
    a = torch.randn(m, k, device=DEVICE).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=DEVICE).to(torch.float8_e4m3fn).t()
    sd = torch.tensor(100.0, device=DEVICE)  # pushes most of D past e4m3's 448
    options = mepi.MatmulOptions(result_type="float8_e4m3fn", fast_accumulation=True)
    d = mepi.matmul(a, b, options=options, quantization_scales={"d": sd})
    assert d.dtype == torch.float8_e4m3fn
    want = (a.double() @ b.double() * 100.0).clamp(-448, 448)
    assert relative_error(d.double(), want) < 5e-2  # e4m3's rounding (3 mantissa bits)
    assert float(d.double().abs().max()) == 448.0


def test_fp8_gelu_aux_in_fp8_with_its_scale_and_amax():
    # nvmath's FP8 GELU_AUX: the aux type and its amax as epilog preferences, its scale as the
    # epilog input "aux_quantization_scale" (a number goes to the device); odd M and N.
    m, n, k = 200, 136, 520
    a = torch.randn(m, k, device=DEVICE).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=DEVICE).to(torch.float8_e4m3fn).t()
    preferences = {"epilog": {"aux_type": "float8_e4m3fn", "aux_amax": True}}
    d, aux = mepi.matmul(a, b, epilog=mepi.MatmulEpilog.GELU_AUX,
                         epilog_inputs={"aux_quantization_scale": 0.1},
                         quantization_scales={"a": 1.0, "b": 1.0, "d": 1.0},
                         options={"result_type": "float8_e4m3fn"}, preferences=preferences)
    assert set(aux) == {"gelu_aux", "gelu_aux_amax"}
    z = a.double() @ b.double()
    gelu_aux = aux["gelu_aux"]
    assert gelu_aux.dtype == torch.float8_e4m3fn and gelu_aux.shape[0] >= m
    assert relative_error(gelu_aux[:m].double(), z * 0.1) < 5e-2  # e4m3's rounding
    assert relative_error(d.double(), torch.nn.functional.gelu(z, approximate="tanh")) < 5e-2
    amax = float(aux["gelu_aux_amax"])
    assert abs(amax - float(z.abs().max())) <= 1e-3 * amax


def gelu_derivative(z):
    c, a = 0.7978845608028654, 0.044715
    t = torch.tanh(c * (z + a * z ** 3))
    return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * a * z * z)


FORWARD = {"RELU": torch.relu, "GELU": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
           "SIGMOID": torch.sigmoid, "TANH": torch.tanh, "SILU": lambda x: x * torch.sigmoid(x)}


@pytest.mark.parametrize("epilog", list(mepi.MatmulEpilog), ids=lambda e: e.name)
def test_every_builtin_epilog_against_fp64(epilog):
    """nvmath's catalog with its aux outputs and inputs in nvmath's layouts (masks: a bit per
    row, column-major bytes, rows padded to 16 bytes; GELU pre-activations: column-major, rows
    padded to 8), M not a multiple of 8."""
    name = epilog.name
    m, n, k = 333, 264, 520
    mask_ld, gelu_ld = ((m + 7) // 8 + 15) // 16 * 16, (m + 7) // 8 * 8
    a = torch.randn(m, k, device=DEVICE, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEVICE, dtype=torch.bfloat16)
    x = a.double() @ b.double()
    inputs = {}
    if "BIAS" in name and "BGRAD" not in name:
        inputs["bias"] = torch.randn(m, device=DEVICE, dtype=torch.bfloat16)
        x = x + inputs["bias"].double()[:, None]
    want = FORWARD.get(name.split("_")[0], lambda v: v)(x)
    if name.startswith("DRELU"):
        mask = torch.randint(0, 256, (n, mask_ld), device=DEVICE, dtype=torch.uint8).t()
        inputs["relu_aux"] = mask
        rows = torch.arange(m, device=DEVICE)
        bits = (mask[rows // 8].long() >> (rows % 8)[:, None]) & 1
        want = x * bits
    if name.startswith("DGELU"):
        pre = torch.randn(n, gelu_ld, device=DEVICE, dtype=torch.bfloat16).t()
        inputs["gelu_aux"] = pre
        want = x * gelu_derivative(pre[:m].double())
    with mepi.Matmul(a, b) as mm:
        mm.plan(epilog, epilog_inputs=inputs)
        out = mm.execute()
        d, aux = out if isinstance(out, tuple) else (out, {})
        assert relative_error(d, want) < 1e-2, name
        expected = {"RELU_AUX": "relu_aux", "GELU_AUX": "gelu_aux", "DRELU_BGRAD": "drelu_bgrad",
                    "DGELU_BGRAD": "dgelu_bgrad", "BGRADA": "bgrada", "BGRADB": "bgradb"}
        key = expected.get(name.replace("_BIAS", ""))
        assert set(aux) == ({key} if key else set()), (name, set(aux))
        if key == "relu_aux":
            got = torch.as_tensor(aux[key], device=DEVICE)
            assert got.shape == (mask_ld, n)
            rows = torch.arange(gelu_ld, device=DEVICE)
            bits = (got[rows // 8].long() >> (rows % 8)[:, None]) & 1
            assert not bits[m:].any(), "bits of rows past M set"
            decided = x.abs() > 1e-3  # a pre-activation within rounding of 0 may go either way
            assert torch.equal(bits[:m].bool()[decided], (x >= 0)[decided])
        if key == "gelu_aux":
            got = torch.as_tensor(aux[key], device=DEVICE)
            assert got.shape == (gelu_ld, n)
            assert relative_error(got[:m], x) < 1e-2
        if key in ("drelu_bgrad", "dgelu_bgrad"):
            assert relative_error(aux[key], want.sum(dim=1)) < 1e-2
        if key == "bgrada":
            assert relative_error(aux[key], a.double().sum(dim=1)) < 1e-2
        if key == "bgradb":
            assert relative_error(aux[key], b.double().sum(dim=0)) < 1e-2
