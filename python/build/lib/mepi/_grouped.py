"""Grouped matmuls (mixture-of-experts, segment GEMM) over mepi's C API: mepi.GroupedMatmul
(stateful, like mepi.Matmul), mepi.grouped_mm (torch._grouped_mm's semantics) and
mepi.SegmentGEMMWrapper (FlashInfer's). Group sizes stay on the device: nothing here reads
them, so a CUDA graph may capture execute() and replay it with other sizes."""

import ctypes

from . import _capi
from ._matmul import (_LOGGER, Matmul, MatmulEpilog, MatmulOptions, _check, _copy, _on_device,
                      _quantization_scales)
from ._operands import Operand

FORMS = {"ends": 0, "indptr": 1, "lengths": 2, "masked": 3}


class _Groups(ctypes.Structure):
    _fields_ = [("bounds", ctypes.POINTER(_capi.Tensor)), ("form", ctypes.c_int),
                ("weightIndices", ctypes.POINTER(_capi.Tensor))]


_P = ctypes.POINTER
for _name, _restype, _argtypes in [
        ("mepiGroupedMatmulCreate", _capi.Handle,
         [_P(_capi.Tensor), _P(_capi.Tensor), _P(_Groups), ctypes.c_float, ctypes.c_bool,
          ctypes.c_bool, _P(_capi.MatmulOptions), _P(_capi.Error)]),
        ("mepiGroupedMatmulResetOperands", _capi.LogicalResult,
         [_capi.Handle, _P(_capi.Tensor), _P(_capi.Tensor), _P(_Groups), _P(_capi.EpilogInputs),
          _P(_capi.Error)])]:
    _fn = getattr(_capi.lib, _name)
    _fn.restype, _fn.argtypes = _restype, _argtypes


def _index_vector(obj, name):
    operand = _on_device(obj, name, index=True)
    if len(operand.shape) != 1:
        raise TypeError(f"{name}: expected a 1-D int32 or int64 tensor, got shape "
                        f"{operand.shape}")
    return operand


class GroupedMatmul(Matmul):
    """D[rows of group g] = epilog(alpha * A[rows of g] @ B[w(g)]): A [T, K], B [W, K, N] (a
    transposed view [W, K, N] of [W, N, K] weights is read as such), D [T, N]; or A [S, M, K]
    by B [K, N] with the groups cutting N (D [M, N], handed out as a transposed view); or A
    [M, K] by B [K, N] with the groups cutting K (D [S, M, N]: 'ends' or 'indptr', 16-bit
    operands, no weight indices). `bounds` gives
    the groups in `form`: 'ends' (torch's offs: [S] cumulative ends), 'indptr' ([S + 1]),
    'lengths' ([S]) or 'masked' (DeepGEMM: A [S, R, K], bounds = masked_m [S], D [S, R, N]);
    `weight_indices` ([S]) picks group g's matrix of B (default: matrix g). The built-in *BIAS
    epilogs take a bias [S, N] (or [N]); a @mepi.epilog function may read mepi.group() and inputs
    with a leading dimension of S (one row, col or scalar value set per group)."""

    _grouped = True

    def __init__(self, a, b, bounds, *, form="ends", weight_indices=None, alpha=1.0,
                 options=None, stream=None, quantization_scales=None):
        if form not in FORMS:
            raise ValueError(f"form: expected one of {sorted(FORMS)}, got {form!r}")
        if isinstance(options, dict):
            options = MatmulOptions(**options)
        self.options = options or MatmulOptions()
        self._log = self.options.logger or _LOGGER
        self._stream, self._form = stream, form
        self._results = {}
        self._a, self._b, self._c = _on_device(a, "a"), _on_device(b, "b"), None
        self._package = self._a.package
        self._bounds = _index_vector(bounds, "bounds")
        self._weights = (_index_vector(weight_indices, "weight_indices")
                         if weight_indices is not None else None)
        self._inputs = {}
        a_matrix, transpose_a = self._a.as_matrix(form != "masked")
        b_matrix, transpose_b = self._b.as_matrix(True)
        self._views = (a_matrix, b_matrix)
        # FP8: a's scale per row [T] or one; b's one, per group [S] or per group and column
        # [S, N]; d's one.
        self._scales = _quantization_scales(quantization_scales, self._a)
        error, c_options = _capi.Error(), self.options.c_options(self._scales)
        groups = self._c_groups()
        self._handle = _capi.lib.mepiGroupedMatmulCreate(
            ctypes.byref(a_matrix.c_tensor()), ctypes.byref(b_matrix.c_tensor()),
            ctypes.byref(groups), float(alpha), transpose_a, transpose_b,
            ctypes.byref(c_options), ctypes.byref(error))
        if not self._handle.ptr:
            _check(None, error)

    def _c_groups(self):
        return _Groups(ctypes.pointer(self._bounds.c_tensor()), FORMS[self._form],
                       ctypes.pointer(self._weights.c_tensor()) if self._weights else None)

    def reset_operands(self, a=None, b=None, bounds=None, weight_indices=None,
                       epilog_inputs=None):
        """New operands, bounds, weight indices and epilog inputs of the same layouts."""
        if a is not None:
            self._a = _on_device(a, "a")
        if b is not None:
            self._b = _on_device(b, "b")
        if bounds is not None:
            self._bounds = _index_vector(bounds, "bounds")
        if weight_indices is not None:
            self._weights = _index_vector(weight_indices, "weight_indices")
        keep = dict(self._inputs)
        inputs = self._c_inputs(epilog_inputs or {k: v.source for k, v in keep.items()})
        a_matrix, _ = self._a.as_matrix(self._form != "masked")
        b_matrix, _ = self._b.as_matrix(True)
        self._views = (a_matrix, b_matrix)
        groups, error = self._c_groups(), _capi.Error()
        _check(_capi.lib.mepiGroupedMatmulResetOperands(
            self._live(), ctypes.byref(a_matrix.c_tensor()), ctypes.byref(b_matrix.c_tensor()),
            ctypes.byref(groups), ctypes.byref(inputs), ctypes.byref(error)), error)


def grouped_mm(a, b, offs=None, *, bias=None, epilog=MatmulEpilog.DEFAULT, out_dtype=None,
               stream=None):
    """torch._grouped_mm(a, b, offs): 2-D x 3-D (a [T, K], b [G, K, N], offs int32 [G]
    cumulative row ends, no leading 0) -> [T, N], with an optional fused epilog (bias [G, N]);
    3-D x 2-D (a [G, M, K], b [K, N], offs cutting N) -> [M, N]; 2-D x 2-D (a [M, K], b
    [K, N], offs cutting K: the weight gradient) -> [G, M, N], group g's product over its
    slice of K (an empty group's is zero); 3-D x 3-D (no offs) -> the batched product
    [G, M, N]. Returns a new tensor."""
    ranks = (len(Operand(a, "a").shape), len(Operand(b, "b").shape))
    options = MatmulOptions(result_type=out_dtype) if out_dtype else None
    inputs = {"bias": bias} if bias is not None else None
    if ranks == (3, 3):
        if offs is not None:
            raise ValueError("grouped_mm: 3-D x 3-D takes no offs (every group is a full batch "
                             "element)")
        with Matmul(a, b, options=options, stream=stream) as mm:
            mm.plan(epilog, inputs)
            return _copy(mm.execute(stream))
    if ranks not in ((2, 3), (3, 2), (2, 2)):
        raise ValueError(f"grouped_mm: a of rank {ranks[0]} and b of rank {ranks[1]}: expected "
                         f"2-D x 3-D, 3-D x 2-D, 2-D x 2-D or 3-D x 3-D")
    if offs is None:
        raise ValueError(f"grouped_mm: {ranks[0]}-D x {ranks[1]}-D needs offs (the groups' "
                         f"cumulative ends)")
    with GroupedMatmul(a, b, offs, options=options, stream=stream) as mm:
        mm.plan(epilog, inputs)
        return _copy(mm.execute(stream))


class SegmentGEMMWrapper:
    """FlashInfer's SegmentGEMMWrapper: run(x, weights, batch_size, weight_column_major,
    out=None, seg_lens=None, seg_indptr=None, weight_indices=None). Each distinct layout is
    planned once and its kernel reused; the result is a new tensor (or `out`)."""

    def __init__(self, float_workspace_buffer=None, backend="auto"):
        del float_workspace_buffer, backend  # mepi keeps its own workspace per planned layout
        self._plans = {}

    def run(self, x, weights, batch_size, weight_column_major, out=None, seg_lens=None,
            seg_indptr=None, weight_indices=None):
        if (seg_lens is None) == (seg_indptr is None):
            raise ValueError("SegmentGEMMWrapper.run: expected exactly one of seg_lens and "
                             "seg_indptr")
        bounds = seg_lens if seg_lens is not None else seg_indptr
        form = "lengths" if seg_lens is not None else "indptr"
        want = batch_size if seg_lens is not None else batch_size + 1
        if Operand(bounds, "bounds", index=True).shape != (want,):
            name = "seg_lens" if seg_lens is not None else "seg_indptr"
            raise ValueError(f"SegmentGEMMWrapper.run: {name}: expected shape ({want},) "
                             f"(batch_size {batch_size}), got "
                             f"{Operand(bounds, name, index=True).shape}")
        # weights [W, N, K] when column-major (read as B = weights^T), else [W, K, N].
        w = weights.swapaxes(-1, -2) if weight_column_major else weights
        xo, wo = Operand(x, "x"), Operand(weights, "weights")
        key = (xo.shape, xo.strides, xo.dtype, wo.shape, wo.strides, wo.dtype,
               weight_column_major, form, Operand(bounds, "bounds", index=True).dtype,
               weight_indices is not None)
        mm = self._plans.get(key)
        if mm is None:
            mm = GroupedMatmul(x, w, bounds, form=form, weight_indices=weight_indices)
            mm.plan()
            self._plans[key] = mm
        else:
            mm.reset_operands(x, w, bounds, weight_indices)
        y = mm.execute()
        if out is None:
            return _copy(y)
        out.copy_(y) if hasattr(out, "copy_") else out.__setitem__(Ellipsis, y)
        return out

    def free(self):
        for mm in self._plans.values():
            mm.free()
        self._plans = {}

