"""The grouped API without a GPU: planning for sm_90a, argument validation with clear errors,
and the forms torch._grouped_mm and FlashInfer's SegmentGEMMWrapper take."""

import pytest

import mepi

from test_api import FakeDeviceArray, sm90


def test_grouped_plans_with_a_per_group_bias():
    x = FakeDeviceArray((1000, 64), "<f2")
    # [6, 64, 96] (K x N) over weights [6, 96, 64] (nn.Linear's N x K): read transposed
    w = FakeDeviceArray((6, 64, 96), "<f2", strides=(96 * 64 * 2, 2, 64 * 2))
    offs = FakeDeviceArray((6,), "<i4")
    with mepi.GroupedMatmul(x, w, offs, options=sm90()) as mm:
        mm.plan(mepi.MatmulEpilog.RELU_BIAS, epilog_inputs={"bias": FakeDeviceArray((6, 96))})
        assert "store = tma" in mm.kernel_configuration
        with pytest.raises(mepi.MepiError, match=r"shape \[6, 96\] or \[96\]"):
            mm.plan(mepi.MatmulEpilog.BIAS, epilog_inputs={"bias": FakeDeviceArray((1000,))})


def test_grouped_argument_errors():
    x, w = FakeDeviceArray((100, 64)), FakeDeviceArray((4, 64, 32))
    with pytest.raises(ValueError, match="form: expected one of"):
        mepi.GroupedMatmul(x, w, FakeDeviceArray((4,), "<i4"), form="offsets")
    with pytest.raises(TypeError, match="bounds: expected a 1-D int32 or int64 tensor"):
        mepi.GroupedMatmul(x, w, FakeDeviceArray((4, 1), "<i4"))
    with pytest.raises(mepi.MepiError, match=r"one matrix per group \(5\)"):
        mepi.GroupedMatmul(x, w, FakeDeviceArray((5,), "<i8"), options=sm90())
    with pytest.raises(mepi.MepiError, match="masked form expects A"):
        mepi.GroupedMatmul(x, w, FakeDeviceArray((4,), "<i4"), form="masked", options=sm90())


def test_masked_layout_plans():
    a = FakeDeviceArray((4, 25, 64))  # [S, R, K]
    with mepi.GroupedMatmul(a, FakeDeviceArray((4, 64, 32)), FakeDeviceArray((4,), "<i4"),
                            form="masked", options=sm90()) as mm:
        mm.plan()
        assert mm.kernel_configuration.startswith("#mepi.kernel_config<wgmma")


def test_grouped_mm_forms():
    with pytest.raises(ValueError, match="expected 2-D x 3-D, 3-D x 2-D, 2-D x 2-D or 3-D x 3-D"):
        mepi.grouped_mm(FakeDeviceArray((10,)), FakeDeviceArray((64, 32)),
                        FakeDeviceArray((4,), "<i4"))
    with pytest.raises(ValueError, match="needs offs"):
        mepi.grouped_mm(FakeDeviceArray((10, 64)), FakeDeviceArray((4, 64, 32)))
    with pytest.raises(ValueError, match="takes no offs"):
        mepi.grouped_mm(FakeDeviceArray((4, 10, 64)), FakeDeviceArray((4, 64, 32)),
                        FakeDeviceArray((4,), "<i4"))


def test_segment_gemm_arguments():
    seg = mepi.SegmentGEMMWrapper()
    x, w = FakeDeviceArray((100, 64)), FakeDeviceArray((4, 32, 64))
    with pytest.raises(ValueError, match="exactly one of seg_lens and seg_indptr"):
        seg.run(x, w, 4, True)
    with pytest.raises(ValueError, match=r"seg_indptr: expected shape \(5,\)"):
        seg.run(x, w, 4, True, seg_indptr=FakeDeviceArray((4,), "<i8"))


def test_column_groups_plan_as_the_transposed_problem():
    # b [K, N] as the transposed view of a row-major [N, K] (byte strides 2 and 128)
    a, b = FakeDeviceArray((4, 25, 64)), FakeDeviceArray((64, 300), strides=(2, 128))
    with mepi.GroupedMatmul(a, b, FakeDeviceArray((4,), "<i4"), options=sm90()) as mm:
        mm.plan(mepi.MatmulEpilog.RELU)
        assert mm.kernel_configuration.startswith("#mepi.kernel_config<wgmma")
    # A row-major [K, N] b is refused, with the way to give it.
    with pytest.raises(mepi.MepiError, match="need b as \\[N, K\\] read transposed"):
        mepi.GroupedMatmul(a, FakeDeviceArray((64, 300)), FakeDeviceArray((4,), "<i4"),
                           options=sm90())


def test_groups_along_k_plan():
    # the weight gradient dW = dy^T x: dy^T [M, K] as the transposed view of a row-major
    # dy [K, M], by x [K, N], offs cutting K -> D [S, M, N]
    dy_t = FakeDeviceArray((300, 2000), strides=(2, 600))
    x = FakeDeviceArray((2000, 136))
    offs = FakeDeviceArray((5,), "<i4")
    with mepi.GroupedMatmul(dy_t, x, offs, options=sm90()) as mm:
        mm.plan()
        config = mm.kernel_configuration
        assert config.startswith("#mepi.kernel_config<wgmma") and "pingpong" not in config
    with pytest.raises(mepi.MepiError, match="take the Ends or Indptr form"):
        mepi.GroupedMatmul(dy_t, x, offs, form="lengths", options=sm90())
    with pytest.raises(mepi.MepiError, match=r"agree on K, got 2000 and 1999"):
        mepi.GroupedMatmul(dy_t, FakeDeviceArray((1999, 136)), offs, options=sm90())


def test_grouped_python_epilog_reads_the_group():
    @mepi.epilog(scale="scalar", bias="col")
    def scaled(acc, scale, bias):
        return mepi.math.relu(acc * scale + bias) + mepi.group()

    text = scaled.mlir("bf16", grouped=True)
    assert "%col: index, %group: index) -> bf16" in text
    x, w = FakeDeviceArray((1000, 64)), FakeDeviceArray((6, 64, 96))
    offs = FakeDeviceArray((6,), "<i4")
    with mepi.GroupedMatmul(x, w, offs, options=sm90()) as mm:
        mm.plan(scaled, epilog_inputs={"scale": FakeDeviceArray((6,), "<f4"),
                                       "bias": FakeDeviceArray((6, 96))})
        assert "%group: index" in mm.epilog_mlir
        assert mm.kernel_configuration.startswith("#mepi.kernel_config<wgmma")
    # A non-grouped epilog has no group to read: the error names the user's line.
    with pytest.raises(mepi.EpilogTraceError, match="mepi.group\\(\\) is only defined"):
        scaled.mlir("bf16")
