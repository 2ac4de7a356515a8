"""The Python package without a GPU: import, argument validation with clear errors, planning
for sm_90a (kernels compile on any machine), and DLPack parsing. Operands are fake device
arrays (__cuda_array_interface__ at an address nothing reads)."""

import ctypes

import pytest

import mepi

FAKE = 0x7F0000000000


class FakeDeviceArray:
    """A device array by __cuda_array_interface__ (as cupy or numba give one)."""

    def __init__(self, shape, typestr="<f2", strides=None, offset=0):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "data": (FAKE + offset, False),
            "strides": strides, "version": 3}


def sm90(**kwargs):
    return mepi.MatmulOptions(arch="sm_90a", **kwargs)


def test_import_and_epilogs():
    assert mepi.API_VERSION == 7
    for name in ["DEFAULT", "RELU", "RELU_AUX", "BIAS", "RELU_BIAS", "RELU_AUX_BIAS", "DRELU",
                 "DRELU_BGRAD", "GELU", "GELU_AUX", "GELU_BIAS", "GELU_AUX_BIAS", "DGELU",
                 "DGELU_BGRAD", "BGRADA", "BGRADB"]:  # nvmath-python's MatmulEpilog
        assert hasattr(mepi.MatmulEpilog, name)


def test_mismatched_k_names_both_operands():
    with pytest.raises(mepi.MepiError, match="agree on K, got 16 and 12") as error:
        mepi.Matmul(FakeDeviceArray((8, 16)), FakeDeviceArray((12, 8)))
    assert error.value.status == "invalid value"


def test_unsupported_element_type():
    with pytest.raises(TypeError, match="operand a: unsupported element type '<i4'"):
        mepi.Matmul(FakeDeviceArray((8, 16), "<i4"), FakeDeviceArray((16, 8)))


def test_not_an_array():
    with pytest.raises(TypeError, match="operand b: expected an array with __dlpack__"):
        mepi.Matmul(FakeDeviceArray((8, 16)), [[1.0]])


def test_beta_needs_c_and_options_are_checked():
    with pytest.raises(mepi.MepiError, match="beta given without operand c"):
        mepi.Matmul(FakeDeviceArray((8, 16)), FakeDeviceArray((16, 8)), beta=0.5)
    with pytest.raises(ValueError, match="options.result_type: expected one of"):
        mepi.Matmul(FakeDeviceArray((8, 16)), FakeDeviceArray((16, 8)),
                    options=sm90(result_type="int8"))
    with pytest.raises(ValueError, match="qualifiers"):
        mepi.Matmul(FakeDeviceArray((8, 16)), FakeDeviceArray((16, 8)), qualifiers=[1, 0])


def test_plan_compiles_for_sm90a_and_names_the_kernel():
    with mepi.Matmul(FakeDeviceArray((256, 512)), FakeDeviceArray((512, 384)),
                     options=sm90()) as mm:
        mm.plan(mepi.MatmulEpilog.RELU)
        assert mm.kernel_configuration.startswith("#mepi.kernel_config<wgmma")


def test_column_major_operands_are_read_transposed():
    # A [M, K] with contiguous columns and B [K, N] with contiguous columns: the tensor-core
    # kernels take both (given transposed), so the plan is a wgmma one.
    a = FakeDeviceArray((256, 512), strides=(2, 512))
    b = FakeDeviceArray((512, 384), strides=(2, 1024))
    with mepi.Matmul(a, b, options=sm90()) as mm:
        mm.plan()
        assert "wgmma" in mm.kernel_configuration


def test_f32_options_reach_the_plan():
    # TF32 wgmma reads B K-major: a column-major B [K, N] (strides in bytes).
    a, b = FakeDeviceArray((128, 64), "<f4"), FakeDeviceArray((64, 96), "<f4", strides=(4, 256))
    with mepi.Matmul(a, b, options=sm90(allow_tf32=True, result_type="bfloat16")) as mm:
        mm.plan()
        assert ", 32]" in mm.kernel_configuration  # tf32's 32-element k-step


def test_epilog_inputs_are_checked():
    with mepi.Matmul(FakeDeviceArray((64, 32)), FakeDeviceArray((32, 16)), options=sm90()) as mm:
        with pytest.raises(ValueError, match="unknown key 'bais'"):
            mm.plan(mepi.MatmulEpilog.BIAS, {"bais": FakeDeviceArray((64,))})
        with pytest.raises(mepi.MepiError, match=r"epilog input 0 \(row\) to have shape"):
            mm.plan(mepi.MatmulEpilog.BIAS, {"bias": FakeDeviceArray((63,))})
        mm.plan(mepi.MatmulEpilog.BIAS, {"bias": FakeDeviceArray((64,))})


def test_calls_in_the_wrong_order():
    mm = mepi.Matmul(FakeDeviceArray((64, 32)), FakeDeviceArray((32, 16)), options=sm90())
    with pytest.raises(mepi.MepiError, match="called before plan"):
        mm.kernel_configuration
    mm.free()
    with pytest.raises(mepi.MepiError, match="freed"):
        mm.plan()
    mm.free()  # twice is harmless


def test_execute_without_usable_memory_is_an_error_not_a_crash():
    # Without a GPU the driver is missing; with one, the fake address is not device memory.
    with mepi.Matmul(FakeDeviceArray((64, 32)), FakeDeviceArray((32, 16)), options=sm90()) as mm:
        mm.plan()
        with pytest.raises(mepi.MepiError, match="CUDA|not memory CUDA knows"):
            mm.execute()


def test_host_arrays_through_dlpack():
    numpy = pytest.importorskip("numpy")  # the Debian package python3-numpy (CI installs it)
    a = numpy.zeros((8, 16), dtype=numpy.float16)
    operand = mepi._operands.Operand(a, "a")  # DLPack parsed: a host array of float16
    assert operand.on_host and operand.shape == (8, 16) and operand.strides == (16, 1)
    assert operand.data == a.ctypes.data
    with pytest.raises(TypeError, match="unsupported element type"):
        mepi._operands.Operand(numpy.zeros((2, 2), dtype=numpy.int32), "a")


def test_results_export_dlpack_and_cai():
    tensor = mepi._capi.Tensor(FAKE, 0, 0, 2, (ctypes.c_int64 * 2)(4, 8),
                               (ctypes.c_int64 * 2)(8, 1))
    array = mepi.DeviceArray(tensor, owner=None)
    cai = array.__cuda_array_interface__
    assert cai["shape"] == (4, 8) and cai["typestr"] == "<f2" and cai["strides"] == (16, 2)
    assert array.__dlpack_device__() == (2, 0)
    capsule = array.__dlpack__()
    back = mepi._operands.Operand.__new__(mepi._operands.Operand)
    back.name, back._keep = "d", []
    back._from_dlpack(type("Exported", (), {"__dlpack__": lambda self: capsule,
                                            "__dlpack_device__": lambda self: (2, 0)})())
    assert back.shape == (4, 8) and back.strides == (8, 1) and back.data == FAKE
    del capsule, back
    assert not mepi._operands._exported, "an unconsumed capsule frees its tensor"


def test_bench_takes_its_options_without_a_gpu():
    import mepi.bench
    with pytest.raises(SystemExit) as done:
        mepi.bench.main(["--help"])
    assert done.value.code == 0


def test_plans_are_logged(caplog):
    import logging
    with caplog.at_level(logging.DEBUG, logger="mepi"):
        with mepi.Matmul(FakeDeviceArray((256, 512)), FakeDeviceArray((512, 384)),
                         options=sm90()) as mm:
            mm.plan(mepi.MatmulEpilog.RELU)
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("plan: RELU in ") and "#mepi.kernel_config<wgmma" in m
               for m in messages), messages
    assert any(m.startswith("free:") for m in messages), messages
    mine = logging.getLogger("test.mepi")
    with caplog.at_level(logging.INFO, logger="test.mepi"):
        with mepi.Matmul(FakeDeviceArray((64, 32)), FakeDeviceArray((32, 16)),
                         options=sm90(logger=mine)) as mm:
            mm.plan()
    assert any(r.name == "test.mepi" and r.getMessage().startswith("plan: DEFAULT")
               for r in caplog.records)


def test_the_runtime_logs_compiles_and_cache_hits(caplog):
    import logging
    with caplog.at_level(logging.DEBUG, logger="mepi"):
        for _ in range(2):  # the second plan is the kernel cache's
            with mepi.Matmul(FakeDeviceArray((72, 40)), FakeDeviceArray((40, 88)),
                             options=sm90()) as mm:
                mm.plan(mepi.MatmulEpilog.TANH)
    messages = [r.getMessage() for r in caplog.records if r.name == "mepi"]
    assert any(m.startswith("plan: TANH, a [72, 40], b [40, 88], d [72, 88] on sm_90a: ")
               for m in messages), messages
    assert any(m.startswith("kernel cache: compiled for sm_90a in ") or
               m.startswith("kernel cache: loaded from disk") for m in messages), messages
    assert any(m.startswith("kernel cache: hit in memory") for m in messages), messages


def test_quantization_scales_are_checked():
    a, b = FakeDeviceArray((64, 128)), FakeDeviceArray((128, 32))
    with pytest.raises(ValueError, match="quantization_scales: unknown key 'x'"):
        mepi.Matmul(a, b, quantization_scales={"x": FakeDeviceArray((), "<f4")})
    # The C++ API's check, through the C API: scales are for 8-bit operands.
    with pytest.raises(mepi.MepiError, match="expected 8-bit A and B \\(fp8\\), got f16 x f16"):
        mepi.Matmul(a, b, options=sm90(), quantization_scales={"a": FakeDeviceArray((), "<f4")})
    # C's scale ("c", nvmath's) reaches the C API too.
    with pytest.raises(mepi.MepiError, match="expected 8-bit A and B \\(fp8\\), got f16 x f16"):
        mepi.Matmul(a, b, options=sm90(), quantization_scales={"c": FakeDeviceArray((), "<f4")})
    assert mepi.MatmulOptions(fast_accumulation=True).c_options().fastAccumulation
    # nvmath's epilog preferences: the aux type by name or dtype string, its amax.
    options = mepi.MatmulOptions(aux_type="torch.float8_e5m2", aux_amax=True).c_options()
    assert options.hasAuxType and options.auxType == mepi._matmul._RESULT_TYPES["float8_e5m2"]
    assert options.auxAmax
    with pytest.raises(ValueError, match="options.aux_type: expected one of"):
        mepi.MatmulOptions(aux_type="int8").c_options()
    merged = mepi._matmul._with_epilog_preferences(
        {"result_type": "bfloat16"}, {"epilog": {"aux_type": "float8_e4m3fn", "aux_amax": True}})
    assert (merged.result_type, merged.aux_type, merged.aux_amax) == (
        "bfloat16", "float8_e4m3fn", True)
    with pytest.raises(ValueError, match="preferences: only 'epilog' is taken"):
        mepi._matmul._with_epilog_preferences(None, {"limit": 8})
    with pytest.raises(ValueError, match="expected aux_type and aux_amax"):
        mepi._matmul._with_epilog_preferences(None, {"epilog": {"aux_ld": 8}})
    # The C++ API's check, through the C API: another aux type needs 8-bit operands.
    with pytest.raises(mepi.MepiError, match="options.auxType: expected D's type f16"):
        with mepi.Matmul(a, b, options=sm90(aux_type="float8_e4m3fn")) as mm:
            mm.plan(mepi.MatmulEpilog.GELU_AUX)
    # MX block scaling (MXFP8): the option reaches the C API, which checks the operands.
    assert mepi.MatmulOptions(block_scaling=True).c_options().blockScaling
    with pytest.raises(mepi.MepiError, match="block scaling \\(MXFP8\\): expected 8-bit A and B, "
                                             "got f16 x f16"):
        mepi.Matmul(a, b, options=sm90(block_scaling=True),
                    quantization_scales={"a": FakeDeviceArray((8192,), "|u1"),
                                         "b": FakeDeviceArray((512,), "|u1")})


def test_batch_with_one_b_and_one_bias_plans_and_checks_the_length():
    # A [batch, M, K] @ one B with one bias [M] for every element: one GEMM of batch * M rows
    # whose bias repeats every M rows (M = 100 ends inside a tile). A bias of another length
    # is refused even where it divides those rows.
    a, b = FakeDeviceArray((5, 100, 264)), FakeDeviceArray((264, 136))
    with mepi.Matmul(a, b, options=sm90()) as mm:
        mm.plan(mepi.MatmulEpilog.GELU_BIAS, epilog_inputs={"bias": FakeDeviceArray((100,))})
    with mepi.Matmul(a, b, options=sm90()) as mm:
        with pytest.raises(mepi.MepiError, match=r"epilog input 0 \(row\).*\[batch\.\.\., 100\]"):
            mm.plan(mepi.MatmulEpilog.GELU_BIAS, epilog_inputs={"bias": FakeDeviceArray((50,))})
