"""mepi.Matmul: nvmath-python's stateful matmul (plan, autotune, execute, reset, free) over
mepi's C API."""

import ctypes
import dataclasses
import enum
import logging
import time
from typing import Optional

from . import _capi
from ._epilog import Epilog, element_type_name
from ._operands import BF16, F16, F32, F8E4M3FN, F8E5M2, DeviceArray, Operand, to_package


STATUSES = {1: "invalid value", 2: "not supported", 3: "allocation failed",
            4: "compile failed", 5: "launch failed", 6: "CUDA error", 7: "internal error"}


class MepiError(RuntimeError):
    """An error mepi reported: its message names the operand and the expected and actual
    values (and keeps the CUDA or nvJitLink code where there is one); `status` says what kind
    of failure it is ('invalid value', 'not supported', 'allocation failed', 'compile failed',
    'launch failed', 'CUDA error', 'internal error')."""

    def __init__(self, message, status="invalid value"):
        super().__init__(message)
        self.status = status


def read_aux_outputs(handle, count_of, get, convert):
    """The aux outputs a handle's last execute wrote, {key: convert(key, tensor)}, through the
    C API's count and get functions (a plain or a distributed matmul's)."""
    aux, error = {}, _capi.Error()
    for i in range(count_of(handle)):
        key, tensor = _capi.StringRef(), _capi.Tensor()
        _check(get(handle, i, ctypes.byref(key), ctypes.byref(tensor), ctypes.byref(error)), error)
        aux[key.text()] = convert(key.text(), tensor)
    return aux


class MatmulEpilog(enum.IntEnum):
    """nvmath-python's epilogs (and SIGMOID, TANH, SILU), with the C API's values."""
    DEFAULT = 0
    BIAS = 1
    RELU = 2
    RELU_BIAS = 3
    GELU = 4
    GELU_BIAS = 5
    SIGMOID = 6
    TANH = 7
    SILU = 8
    RELU_AUX = 9
    RELU_AUX_BIAS = 10
    DRELU = 11
    DRELU_BGRAD = 12
    GELU_AUX = 13
    GELU_AUX_BIAS = 14
    DGELU = 15
    DGELU_BGRAD = 16
    BGRADA = 17
    BGRADB = 18


_RESULT_TYPES = {"float16": F16, "bfloat16": BF16, "float32": F32,
                 "float8_e4m3fn": F8E4M3FN, "float8_e5m2": F8E5M2}

# What the package does, through Python's logging (as nvmath-python logs): plan (the kernel
# configuration and the time, compiling or from the cache), autotune, releases. INFO and DEBUG
# of the logger "mepi"; MatmulOptions.logger replaces it.
_LOGGER = logging.getLogger("mepi")


@dataclasses.dataclass
class MatmulOptions:
    """What nvmath's MatmulOptions says that mepi does: `result_type` ('float16', 'bfloat16',
    'float32'; None: A's), `allow_tf32` (f32 operands at TF32 precision), `result_amax`
    (max |D| as the aux output 'result_amax'), `logger` (a logging.Logger; None: "mepi"), and
    mepi's own `kernel_config` (a #mepi.kernel_config to force) and `arch` ('sm_90a'; None:
    the device's). FP8: `fast_accumulation` (the tensor cores' sums kept over all of K) and
    `block_scaling` (MXFP8: quantization_scales a and b are uint8 e8m0 scales per 32
    elements of K in cuBLASLt's interleaved layout, as nvmath's to_block_scale writes them;
    emulated on Hopper by exactly scaled bf16 copies). nvmath's MatmulEpilogPreferences, given
    here (or as matmul()'s `preferences={"epilog": {...}}`): `aux_type` (the type of GELU_AUX's
    'gelu_aux', a name as result_type's or a torch dtype; an 8-bit one needs the epilog input
    'aux_quantization_scale') and `aux_amax` (max |gelu_aux| before its scale, the aux output
    'gelu_aux_amax')."""
    result_type: Optional[str] = None
    allow_tf32: bool = False
    result_amax: bool = False
    kernel_config: Optional[str] = None
    arch: Optional[str] = None
    logger: Optional[logging.Logger] = None
    fast_accumulation: bool = False
    block_scaling: bool = False
    aux_type: Optional[object] = None
    aux_amax: bool = False

    def c_options(self, scales=None):
        """The C API's options; `scales`: the quantization scales' Operands by 'a', 'b', 'c', 'd'
        (their C tensors live as long as the returned struct's `_keep`)."""
        if self.result_type is not None and self.result_type not in _RESULT_TYPES:
            raise ValueError(f"options.result_type: expected one of "
                             f"{sorted(_RESULT_TYPES)}, got {self.result_type!r}")
        options = _capi.MatmulOptions(
            self.result_amax, _capi.StringRef.of(self.kernel_config or ""), self.allow_tf32,
            self.result_type is not None, _RESULT_TYPES.get(self.result_type, 0),
            _capi.StringRef.of(self.arch or ""), self.fast_accumulation)
        options.blockScaling = self.block_scaling
        if self.aux_type is not None:
            name = str(self.aux_type).split(".")[-1]  # torch.float8_e4m3fn or its name
            if name not in _RESULT_TYPES:
                raise ValueError(f"options.aux_type: expected one of {sorted(_RESULT_TYPES)}, "
                                 f"got {self.aux_type!r}")
            options.hasAuxType, options.auxType = True, _RESULT_TYPES[name]
        options.auxAmax = self.aux_amax
        options._keep = []
        for key, field in (("a", "aScale"), ("b", "bScale"), ("c", "cScale"), ("d", "dScale")):
            if scales and key in scales:
                tensor = scales[key].c_tensor()
                options._keep.append(tensor)
                setattr(options, field, ctypes.pointer(tensor))
        return options


def _quantization_scales(scales, like):
    """nvmath's quantization_scales (a dict or an object with a, b, c, d) as Operands: device f32
    tensors, or Python numbers put on the device in `like`'s package."""
    if scales is None:
        return {}
    items = scales.items() if isinstance(scales, dict) else (
        (key, getattr(scales, key, None)) for key in ("a", "b", "c", "d"))
    result = {}
    for key, value in items:
        if value is None:
            continue
        if key not in ("a", "b", "c", "d"):
            raise ValueError(f"quantization_scales: unknown key {key!r}; "
                             "expected 'a', 'b', 'c' or 'd'")
        if isinstance(value, (int, float)):
            value = _device_scalar(float(value), like)
        result[key] = _on_device(value, f"quantization scale {key}")
    return result


def _device_scalar(value, like):
    """A rank-0 f32 device tensor holding `value`, in torch or cupy as `like` is."""
    if like.package == "cupy":
        import cupy
        return cupy.asarray(value, dtype=cupy.float32)
    import torch
    return torch.tensor(value, dtype=torch.float32, device=f"cuda:{like.device}")


def _check(ok, error):
    if ok is not None and ok.value != 0:
        return
    message = _capi.lib.mepiErrorGetMessage(error).text()
    status = STATUSES.get(_capi.lib.mepiErrorGetStatus(error), "internal error")
    _capi.lib.mepiErrorDestroy(error)
    raise MepiError(message, status)


def _stream_handle(stream):
    """A CUstream from an int, a torch or cupy stream, or None (the default stream)."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"stream: expected an int, a torch or cupy stream or None, got "
                    f"{type(stream).__name__}")


def _on_device(obj, name, index=False):
    """An operand on the GPU; numpy arrays are copied there (through cupy or torch), as nvmath
    does, and their results come back as numpy."""
    operand = Operand(obj, name, index)
    if not operand.on_host:
        return operand
    try:
        import cupy
        return Operand(cupy.asarray(obj), name, index)
    except ImportError:
        pass
    try:
        import torch
        return Operand(torch.from_numpy(obj).cuda(), name, index)
    except ImportError:
        raise TypeError(f"operand {name}: host arrays are copied to the GPU through cupy or "
                        f"torch, and neither is installed") from None


_INPUT_FIELDS = {"bias": "bias", "relu_aux": "reluAux", "gelu_aux": "geluAux",
                 "aux_quantization_scale": "auxQuantizationScale"}


class TracedEpilogCall:
    """A @mepi.epilog function's arguments for the C API: its MLIR for D's element type
    `d_type`, its inputs on the device (`operands`, by name) and their C arrays."""

    def __init__(self, epilog, epilog_inputs, d_type, grouped=False):
        missing = [n for n in epilog.inputs if n not in epilog_inputs]
        extra = [n for n in epilog_inputs if n not in epilog.inputs]
        if missing or extra:
            raise ValueError(f"epilog_inputs: {epilog.fn.__name__} reads {epilog.inputs}; "
                             f"missing {missing}, not read {extra}")
        operands = [_on_device(epilog_inputs[n], n) for n in epilog.inputs]
        self.text = epilog.mlir(d_type, {n: element_type_name(o.dtype)
                                         for n, o in zip(epilog.inputs, operands)}, grouped)
        self.operands = dict(zip(epilog.inputs, operands))
        self.tensors = (_capi.Tensor * max(len(operands), 1))(*[o.c_tensor() for o in operands])
        self.kinds = (ctypes.c_int * max(len(operands), 1))(*epilog.kind_codes())


class Matmul:
    """D = epilog(alpha * A @ B + beta * C), planned once and executed many times (nvmath's
    Matmul). A column-major matrix (contiguous columns) is read transposed, as nvmath infers."""

    def __init__(self, a, b, c=None, *, alpha=1.0, beta=None, qualifiers=None, options=None,
                 stream=None, quantization_scales=None):
        if qualifiers is not None:
            raise ValueError("qualifiers: mepi takes the layout from the operands' strides "
                             "(a transposed view is a column-major operand); got "
                             f"{qualifiers!r}")
        if isinstance(options, dict):
            options = MatmulOptions(**options)
        self.options = options or MatmulOptions()
        self._log = self.options.logger or _LOGGER
        self._stream = stream
        self._package = Operand(a, "a").package
        self._results = {}  # the package objects handed out for D and the aux outputs
        self._a, self._b, self._c = self._operands(a, b, c)
        self._beta = beta
        self._inputs = {}
        error = _capi.Error()
        a_matrix, transpose_a = self._a.as_matrix(True)
        b_matrix, transpose_b = self._b.as_matrix(True)
        self._views = (a_matrix, b_matrix)
        beta_value = ctypes.c_float(beta) if beta is not None else None
        self._scales = _quantization_scales(quantization_scales, self._a)
        c_options = self.options.c_options(self._scales)
        self._handle = _capi.lib.mepiMatmulCreateWithOptions(
            ctypes.byref(a_matrix.c_tensor()), ctypes.byref(b_matrix.c_tensor()),
            ctypes.byref(self._c.c_tensor()) if self._c else None, float(alpha),
            ctypes.byref(beta_value) if beta_value is not None else None, transpose_a,
            transpose_b, ctypes.byref(c_options), ctypes.byref(error))
        if not self._handle.ptr:
            _check(None, error)
        self._log.debug("Matmul: a %s, b %s%s, alpha %s, beta %s", self._a.shape, self._b.shape,
                        f", c {self._c.shape}" if self._c else "", alpha, beta)

    @staticmethod
    def _operands(a, b, c):
        return (_on_device(a, "a"), _on_device(b, "b"),
                _on_device(c, "c") if c is not None else None)

    def _c_inputs(self, epilog_inputs):
        inputs = _capi.EpilogInputs()
        for key, tensor in (epilog_inputs or {}).items():
            if key not in _INPUT_FIELDS:
                raise ValueError(f"epilog_inputs: unknown key {key!r}; expected one of "
                                 f"{sorted(_INPUT_FIELDS)}")
            if key == "aux_quantization_scale" and isinstance(tensor, (int, float)):
                tensor = _device_scalar(float(tensor), self._a)  # as nvmath takes a number
            operand = _on_device(tensor, key)
            self._inputs[key] = operand
            setattr(inputs, _INPUT_FIELDS[key], ctypes.pointer(operand.c_tensor()))
        return inputs

    def _live(self):
        if not self._handle.ptr:
            raise MepiError("the Matmul was freed")
        return self._handle

    def plan(self, epilog=MatmulEpilog.DEFAULT, epilog_inputs=None):
        """Plans the problem with `epilog` (a MatmulEpilog, or a @mepi.epilog function) and
        compiles its kernel (or takes it from the cache)."""
        start = time.perf_counter()
        if isinstance(epilog, Epilog):
            self._plan_traced(epilog, epilog_inputs or {})
            name = f"the Python epilog {epilog.fn.__name__}"
        else:
            error = _capi.Error()
            self._inputs = {}
            inputs = self._c_inputs(epilog_inputs)
            _check(_capi.lib.mepiMatmulPlanWithInputs(self._live(), int(MatmulEpilog(epilog)),
                                                      ctypes.byref(inputs),
                                                      ctypes.byref(error)), error)
            name = MatmulEpilog(epilog).name
        self._log.info("plan: %s in %.1f ms (compiled, or from the kernel cache): %s", name,
                       1e3 * (time.perf_counter() - start), self.kernel_configuration)

    _grouped = False  # a grouped matmul's epilog also takes the group's index

    def _plan_traced(self, epilog, epilog_inputs):
        d_type = self.options.result_type and _RESULT_TYPES[self.options.result_type]
        d_type = element_type_name(self._a.dtype if d_type is None else d_type)
        traced = TracedEpilogCall(epilog, epilog_inputs, d_type, self._grouped)
        error = _capi.Error()
        self._inputs = traced.operands
        _check(_capi.lib.mepiMatmulPlanUserEpilog(
            self._live(), _capi.StringRef.of(traced.text), _capi.StringRef.of(epilog.name),
            traced.tensors, traced.kinds, len(traced.operands), None, 0, ctypes.byref(error)),
            error)
        self.epilog_mlir = traced.text

    @property
    def kernel_configuration(self):
        """The planned kernel's configuration, as mepi's IR prints it."""
        error, text = _capi.Error(), _capi.StringRef()
        _check(_capi.lib.mepiMatmulGetKernelConfiguration(self._live(), ctypes.byref(text),
                                                          ctypes.byref(error)), error)
        return text.text()

    def autotune(self, iterations=3, prune=0, stream=None):
        """Times the candidate kernels on the current operands and plans the fastest.

        ``prune``: how many of the ranked candidates to time; 0 takes mepi's default (the cost
        model's first 16 for 16-bit operands and f32 at TF32 precision, else all), a negative
        value all of them."""
        error = _capi.Error()
        start = time.perf_counter()
        _check(_capi.lib.mepiMatmulAutotune(self._live(), iterations, prune,
                                            _stream_handle(stream or self._stream),
                                            ctypes.byref(error)), error)
        self._log.info("autotune: %.1f ms, chose %s", 1e3 * (time.perf_counter() - start),
                       self.kernel_configuration)

    def execute(self, stream=None):
        """Runs the planned kernel; returns D, or (D, aux) where the epilog has aux outputs
        (a dict by nvmath's keys), in the operands' package, sharing mepi's memory (rewritten
        by the next execute)."""
        error, result = _capi.Error(), _capi.Tensor()
        handle = self._live()
        _check(_capi.lib.mepiMatmulExecute(handle, _stream_handle(stream or self._stream),
                                           ctypes.byref(result), ctypes.byref(error)), error)
        d = self._cached_result(None, result)
        aux = read_aux_outputs(handle, _capi.lib.mepiMatmulGetNumAuxOutputs,
                               _capi.lib.mepiMatmulGetAuxOutput, self._cached_result)
        return (d, aux) if aux else d

    def _cached_result(self, key, tensor):
        # D and the aux outputs stay in mepi's memory, rewritten by each execute(): while their
        # address, type and layout are those of the last call, the package object handed out
        # then is handed out again, without another DLPack export (most of execute()'s host
        # time from Python). numpy results are copies, made anew.
        rank = tensor.rank
        ident = (tensor.data, tensor.dtype, tuple(tensor.shape[i] for i in range(rank)),
                 tuple(tensor.strides[i] for i in range(rank)))
        cached = self._results.get(key)
        if cached is not None and cached[0] == ident:
            return cached[1]
        value = self._result(DeviceArray(tensor, self))
        if self._package != "numpy":
            self._results[key] = (ident, value)
        return value

    def _result(self, array):
        if self._package == "numpy":
            try:
                import cupy
                return cupy.from_dlpack(array).get()
            except ImportError:
                return to_package(array, "torch").cpu().numpy()
        return to_package(array, self._package)

    def reset_operands(self, a=None, b=None, c=None, epilog_inputs=None):
        """New operands (and epilog inputs) of the same layouts for later executes."""
        a = a if a is not None else self._a.source
        b = b if b is not None else self._b.source
        c = c if c is not None else (self._c.source if self._c else None)
        operands = self._operands(a, b, c)
        keep = dict(self._inputs)
        inputs = self._c_inputs(epilog_inputs or {k: v.source for k, v in keep.items()})
        a_matrix, _ = operands[0].as_matrix(True)
        b_matrix, _ = operands[1].as_matrix(True)
        error = _capi.Error()
        _check(_capi.lib.mepiMatmulResetOperandsWithInputs(
            self._live(), ctypes.byref(a_matrix.c_tensor()), ctypes.byref(b_matrix.c_tensor()),
            ctypes.byref(operands[2].c_tensor()) if operands[2] else None, ctypes.byref(inputs),
            ctypes.byref(error)), error)
        self._a, self._b, self._c = operands
        self._views = (a_matrix, b_matrix)

    def release_operands(self):
        """Forgets the operands; execute() fails until reset_operands()."""
        _capi.lib.mepiMatmulReleaseOperands(self._live())
        self._a = self._b = self._c = None
        self._inputs = {}

    def free(self):
        """Releases mepi's memory (D, aux outputs, workspace) and the kernel."""
        self._results.clear()  # the handed-out objects no longer kept by the Matmul
        if self._handle.ptr:
            _capi.lib.mepiMatmulDestroy(self._handle)
            self._handle = _capi.Handle(None)
            self._log.debug("free: the Matmul's memory and kernel released")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            self.free()


def matmul(a, b, c=None, *, alpha=1.0, beta=None, epilog=MatmulEpilog.DEFAULT,
           epilog_inputs=None, options=None, stream=None, quantization_scales=None,
           preferences=None):
    """The function form: plan and execute once. The result owns its memory (a copy in the
    operands' package), as nvmath's function form returns a fresh tensor. Of nvmath's
    `preferences`, the epilog's ({"epilog": {"aux_type": ..., "aux_amax": ...}}) are taken."""
    options = _with_epilog_preferences(options, preferences)
    with Matmul(a, b, c, alpha=alpha, beta=beta, options=options, stream=stream,
                quantization_scales=quantization_scales) as mm:
        mm.plan(epilog, epilog_inputs)
        result = mm.execute(stream)
        if isinstance(result, tuple):
            d, aux = result
            return _copy(d), {k: _copy(v) for k, v in aux.items()}
        return _copy(result)


def _with_epilog_preferences(options, preferences):
    """`options` with nvmath's epilog preferences (a dict or an object with `epilog`, itself
    a dict or an object with aux_type and aux_amax) set in it."""
    if preferences is None:
        return options
    epilog = preferences.get("epilog") if isinstance(preferences, dict) else getattr(
        preferences, "epilog", None)
    extra = set(preferences) - {"epilog"} if isinstance(preferences, dict) else set()
    if extra:
        raise ValueError(f"preferences: only 'epilog' is taken, got {sorted(extra)}")
    if epilog is None:
        return options
    fields = dict(epilog) if isinstance(epilog, dict) else {
        "aux_type": getattr(epilog, "aux_type", None),
        "aux_amax": getattr(epilog, "aux_amax", False)}
    unknown = set(fields) - {"aux_type", "aux_amax"}
    if unknown:
        raise ValueError(f"preferences['epilog']: expected aux_type and aux_amax, got "
                         f"{sorted(unknown)}")
    if isinstance(options, dict):
        options = MatmulOptions(**options)
    return dataclasses.replace(options or MatmulOptions(), **fields)


def _copy(x):
    return x.clone() if hasattr(x, "clone") else x.copy()
