"""Operands from torch, cupy, numpy or any object with __dlpack__ / __cuda_array_interface__,
as the C API's tensors; results handed back as the caller's package type without a copy."""

import copy
import ctypes

from . import _capi

# MepiDType
F16, BF16, F32, U8, I32, I64, F8E4M3FN, F8E5M2 = 0, 1, 2, 3, 4, 5, 6, 7
_DTYPE_NAMES = {F16: "float16", BF16: "bfloat16", F32: "float32", U8: "uint8", I32: "int32",
                I64: "int64", F8E4M3FN: "float8_e4m3fn", F8E5M2: "float8_e5m2"}

# DLPack (dlpack.h, version 0.8 ABI: the "dltensor" capsule)
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_MANAGED = 1, 2, 13
# DLPack 1.1's type codes: kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12.
_DL_CODES = {(2, 16): F16, (4, 16): BF16, (2, 32): F32, (1, 8): U8, (0, 32): I32, (0, 64): I64,
             (10, 8): F8E4M3FN, (12, 8): F8E5M2}
_TORCH_FLOAT8 = {"torch.float8_e4m3fn": F8E4M3FN, "torch.float8_e5m2": F8E5M2}
_CAI_TYPES = {"<f2": F16, "<f4": F32, "|u1": U8, "<i4": I32, "<i8": I64}
_CAI_NAMES = {F16: "<f2", BF16: "bf16", F32: "<f4", U8: "|u1", I32: "<i4", I64: "<i8",
              F8E4M3FN: "e4m3", F8E5M2: "e5m2"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _DELETER)]


_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def package_of(obj):
    """'torch', 'cupy', 'numpy' or None (another producer: results stay mepi arrays)."""
    module = type(obj).__module__.split(".")[0]
    return module if module in ("torch", "cupy", "numpy") else None


class Operand:
    """One operand: address, device, dtype, shape and strides (in elements), and what keeps
    its memory alive (the source object and its DLPack capsule)."""

    def __init__(self, obj, name, index=False):
        """`index`: a vector of group bounds or weight indices (int32 or int64), where every
        other operand holds floats."""
        self.name, self.source, self.package = name, obj, package_of(obj)
        self._keep = [obj]
        if self.package == "torch" and str(getattr(obj, "dtype", "")) in _TORCH_FLOAT8:
            self._from_torch_float8(obj)
        elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            self._from_dlpack(obj)
        elif hasattr(obj, "__cuda_array_interface__"):
            self._from_cai(obj)
        else:
            raise TypeError(f"operand {name}: expected an array with __dlpack__ or "
                            f"__cuda_array_interface__ (torch, cupy, numpy), got "
                            f"{type(obj).__name__}")
        if (self.dtype in (I32, I64)) != index:
            raise TypeError(f"operand {name}: unsupported element type "
                            f"'{_CAI_NAMES[self.dtype]}' ({_DTYPE_NAMES[self.dtype]}); expected "
                            f"{'int32 or int64' if index else 'a floating type'}")

    def _from_dlpack(self, obj):
        device_type, device_id = obj.__dlpack_device__()
        self.on_host = int(device_type) == _KDL_CPU
        if not self.on_host and int(device_type) not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            raise TypeError(f"operand {self.name}: expected memory of a CUDA device, got "
                            f"DLPack device type {int(device_type)}")
        capsule = obj.__dlpack__()
        if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
            raise TypeError(f"operand {self.name}: __dlpack__ gave no 'dltensor' capsule")
        self._keep.append(capsule)  # not consumed: the producer frees it with the capsule
        managed = _DLManagedTensor.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor"))
        t = managed.dl_tensor
        key = (t.dtype.code, t.dtype.bits)
        if key not in _DL_CODES or t.dtype.lanes != 1:
            raise TypeError(f"operand {self.name}: unsupported element type (DLPack code "
                            f"{t.dtype.code}, {t.dtype.bits} bits, {t.dtype.lanes} lanes); "
                            f"expected float16, bfloat16 or float32 (int32 or int64 for "
                            f"group bounds and weight indices)")
        self.dtype = _DL_CODES[key]
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        self.strides = (tuple(t.strides[i] for i in range(t.ndim)) if t.strides
                        else _row_major(self.shape))
        self.data = (t.data or 0) + t.byte_offset
        self.device = int(device_id)

    def _from_torch_float8(self, obj):
        # torch's 8-bit floats, read from the tensor itself: not every torch exports them
        # through DLPack.
        self.dtype = _TORCH_FLOAT8[str(obj.dtype)]
        self.shape, self.strides = tuple(obj.shape), tuple(obj.stride())
        self.data, self.on_host = obj.data_ptr(), obj.device.type == "cpu"
        self.device = int(obj.device.index or 0)

    def _from_cai(self, obj):
        cai = obj.__cuda_array_interface__
        typestr = cai["typestr"]
        if typestr not in _CAI_TYPES:
            raise TypeError(f"operand {self.name}: unsupported element type '{typestr}'; "
                            f"expected float16 or float32 (bfloat16 through __dlpack__)")
        self.dtype = _CAI_TYPES[typestr]
        self.shape = tuple(cai["shape"])
        itemsize = int(typestr[2:])
        strides = cai.get("strides")
        self.strides = (tuple(s // itemsize for s in strides) if strides
                        else _row_major(self.shape))
        self.data = cai["data"][0]
        self.on_host = False
        device = getattr(obj, "device", None)
        self.device = int(getattr(device, "id", getattr(device, "index", 0)) or 0)

    def as_matrix(self, allow_transpose):
        """(operand, transposed): a matrix whose columns are contiguous is given transposed,
        with contiguous rows, as mepi's tensor-core kernels read it."""
        if (allow_transpose and len(self.shape) >= 2 and self.strides[-1] != 1 and
                self.strides[-2] == 1):
            view = _View(self)
            view.shape = self.shape[:-2] + (self.shape[-1], self.shape[-2])
            view.strides = self.strides[:-2] + (self.strides[-1], self.strides[-2])
            return view, True
        return self, False

    def c_tensor(self):
        """The C API's MepiTensor (valid while this object lives)."""
        rank = len(self.shape)
        self._c_shape = (ctypes.c_int64 * max(rank, 1))(*self.shape)
        self._c_strides = (ctypes.c_int64 * max(rank, 1))(*self.strides)
        return _capi.Tensor(self.data, self.device, self.dtype, rank, self._c_shape,
                            self._c_strides)


class _View(Operand):
    """Another shape and strides over an operand's memory."""

    def __init__(self, base):  # noqa: D107 - shares everything but shape and strides
        self.__dict__.update(base.__dict__)


def _row_major(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


class DeviceArray:
    """A result in mepi's memory (D, an aux output), owned by `owner` (a Matmul), exposed
    through DLPack and __cuda_array_interface__ so that torch and cupy take it without a copy.
    A later execute() rewrites it."""

    def __init__(self, tensor, owner):
        self.data, self.device, self.dtype = tensor.data or 0, tensor.device, tensor.dtype
        self.shape = tuple(tensor.shape[i] for i in range(tensor.rank))
        self.strides = tuple(tensor.strides[i] for i in range(tensor.rank))
        self._owner = owner

    def __repr__(self):
        return (f"mepi.DeviceArray(shape={self.shape}, dtype={_DTYPE_NAMES[self.dtype]}, "
                f"device={self.device})")

    @property
    def __cuda_array_interface__(self):
        typestr = {F16: "<f2", F32: "<f4", U8: "|u1"}.get(self.dtype)
        if typestr is None:
            raise AttributeError("bfloat16 has no __cuda_array_interface__ type: use __dlpack__")
        size = int(typestr[2:])
        return {"shape": self.shape, "typestr": typestr, "data": (self.data, False),
                "strides": tuple(s * size for s in self.strides), "version": 3}

    def __dlpack_device__(self):
        return (_KDL_CUDA, self.device)

    def __dlpack__(self, stream=None, **kwargs):
        return _export_dlpack(self)


_exported = {}  # address of a DLManagedTensor -> what keeps it and its memory alive


@_DELETER
def _dlpack_deleter(address, exported=_exported):
    # The dict is bound here: a consumer may free its tensor while the interpreter shuts down,
    # after this module's globals are gone.
    exported.pop(address, None)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    # An unconsumed capsule ("dltensor" still) frees its tensor itself (the DLPack protocol).
    obj = ctypes.cast(capsule, ctypes.py_object)
    if _api.PyCapsule_IsValid(obj, b"dltensor"):
        _dlpack_deleter(_api.PyCapsule_GetPointer(obj, b"dltensor"))


def _export_dlpack(array):
    rank = len(array.shape)
    shape = (ctypes.c_int64 * max(rank, 1))(*array.shape)
    strides = (ctypes.c_int64 * max(rank, 1))(*array.strides)
    code, bits = {F16: (2, 16), BF16: (4, 16), F32: (2, 32), U8: (1, 8), F8E4M3FN: (10, 8),
                  F8E5M2: (12, 8)}[array.dtype]
    managed = _DLManagedTensor()
    managed.dl_tensor = _DLTensor(array.data, _DLDevice(_KDL_CUDA, array.device), rank,
                                  _DLDataType(code, bits, 1), shape, strides, 0)
    managed.deleter = _dlpack_deleter
    address = ctypes.addressof(managed)
    _exported[address] = (managed, shape, strides, array)
    return _api.PyCapsule_New(address, b"dltensor",
                              ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def to_package(array, package):
    """`array` as the caller's package type, sharing its memory."""
    if package == "torch":
        import torch
        if array.dtype in (F8E4M3FN, F8E5M2):  # as bytes, then viewed as torch's 8-bit float
            raw = copy.copy(array)
            raw.dtype = U8
            return torch.from_dlpack(raw).view(
                torch.float8_e4m3fn if array.dtype == F8E4M3FN else torch.float8_e5m2)
        return torch.from_dlpack(array)
    if package == "cupy":
        import cupy
        return cupy.from_dlpack(array)
    return array
