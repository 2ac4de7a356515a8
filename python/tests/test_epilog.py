"""Python epilogs without a GPU: the traced MLIR, planning it into a kernel for sm_90a, and
tracing errors that point at the user's line."""

import pytest

import mepi

from test_api import FakeDeviceArray, sm90


@mepi.epilog(bias="row")
def bias_gelu(acc, bias):
    return mepi.math.gelu(acc + bias)


def test_traced_text_is_a_user_epilog():
    text = bias_gelu.mlir("bf16", {"bias": "bf16"})
    assert text.startswith(
        "func.func @py_bias_gelu(%acc: f32, %in0: bf16, %row: index, %col: index) -> bf16 {")
    for op in ["arith.extf %in0 : bf16 to f32", "math.exp2", "fastmath<afn> : f32",
               "arith.truncf"]:
        assert op in text
    assert text.rstrip().endswith("}")


def test_every_construct_traces():
    @mepi.epilog(scale="scalar", residual="matrix", shift="col")
    def everything(acc, scale, residual, shift):
        y = -acc * scale / 2.0 - 1.0 + residual + shift
        y = mepi.math.maximum(mepi.math.abs(y), mepi.math.sqrt(mepi.math.exp(y)))
        y = mepi.select(y >= 1.0, mepi.math.sigmoid(y), mepi.math.relu(y))
        return y + mepi.row() * mepi.col() * 0.0 + mepi.math.erf(mepi.math.log(y + 2.0))

    text = everything.mlir("f32")
    for op in ["arith.negf", "arith.divf", "arith.subf", "arith.maximumf", "math.absf",
               "math.sqrt", "math.exp", "arith.cmpf oge", "arith.select", "math.erf", "math.log",
               "arith.index_cast %row : index to i64", "arith.sitofp", "%col"]:
        assert op in text, op
    assert "arith.truncf" not in text  # D of f32 keeps the f32 value


def test_a_traced_epilog_plans_into_a_kernel():
    a, b = FakeDeviceArray((256, 512)), FakeDeviceArray((512, 384))
    with mepi.Matmul(a, b, options=sm90()) as mm:
        mm.plan(bias_gelu, epilog_inputs={"bias": FakeDeviceArray((256,))})
        assert "wgmma" in mm.kernel_configuration
        assert "math.exp2" in mm.epilog_mlir


def test_inputs_must_match_the_function():
    a, b = FakeDeviceArray((64, 32)), FakeDeviceArray((32, 16))
    with mepi.Matmul(a, b, options=sm90()) as mm:
        with pytest.raises(ValueError, match=r"missing \['bias'\]"):
            mm.plan(bias_gelu, epilog_inputs={})
        with pytest.raises(mepi.MepiError, match="epilog input 0"):
            mm.plan(bias_gelu, epilog_inputs={"bias": FakeDeviceArray((16,))})  # a column's


def test_kinds_are_declared():
    with pytest.raises(TypeError, match="input 'bias' of f needs a kind"):
        @mepi.epilog
        def f(acc, bias):
            return acc + bias
    with pytest.raises(TypeError, match="expected kind row, col, scalar or matrix"):
        @mepi.epilog(bias="rows")
        def g(acc, bias):
            return acc + bias


def test_python_control_flow_names_the_line():
    @mepi.epilog
    def branchy(acc):
        if acc > 0:  # the line the error names
            return acc
        return -acc

    with pytest.raises(mepi.EpilogTraceError) as error:
        branchy.mlir("bf16")
    assert "use mepi.select" in str(error.value)
    assert "test_epilog.py" in str(error.value) and "if acc > 0:" in str(error.value)


def test_non_numbers_are_refused():
    @mepi.epilog
    def stringy(acc):
        return acc + "1"

    with pytest.raises(mepi.EpilogTraceError, match="expected a traced value or a number"):
        stringy.mlir("f16")
