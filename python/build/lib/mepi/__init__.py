"""mepi: matrix multiplication with fused epilogs, JIT-compiled for the GPU.

nvmath-python's Matmul API over mepi's C API (ctypes; no compiled extension):

    import mepi, torch
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    with mepi.Matmul(a, a) as mm:
        mm.plan(mepi.MatmulEpilog.GELU_BIAS, epilog_inputs={"bias": bias})
        d = mm.execute()
"""

from . import _log  # noqa: F401 - the runtime's messages go to logging's "mepi" logger
from ._capi import API_VERSION
from ._epilog import EpilogTraceError, col, constant, epilog, group, math, row, select
from ._grouped import GroupedMatmul, SegmentGEMMWrapper, grouped_mm
from ._matmul import Matmul, MatmulEpilog, MatmulOptions, MepiError, matmul
from ._operands import DeviceArray

__all__ = ["Matmul", "MatmulEpilog", "MatmulOptions", "MepiError", "matmul", "DeviceArray",
           "API_VERSION", "epilog", "math", "select", "row", "col", "group", "constant",
           "EpilogTraceError", "GroupedMatmul", "grouped_mm", "SegmentGEMMWrapper"]
