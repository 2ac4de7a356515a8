"""ctypes declarations of mepi's C API (include/mepi-c/), loaded from libmepi."""

import ctypes
import ctypes.util
import os
import pathlib

API_VERSION = 7  # MEPI_C_API_VERSION this package speaks


class StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]

    @staticmethod
    def of(text):
        raw = text.encode() if isinstance(text, str) else (text or b"")
        return StringRef(raw, len(raw))

    def text(self):
        return ctypes.string_at(self.data, self.length).decode() if self.data else ""


class LogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


class Error(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", ctypes.c_int),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_int),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
    ]


class EpilogInputs(ctypes.Structure):
    _fields_ = [
        ("bias", ctypes.POINTER(Tensor)),
        ("reluAux", ctypes.POINTER(Tensor)),
        ("geluAux", ctypes.POINTER(Tensor)),
        ("auxQuantizationScale", ctypes.POINTER(Tensor)),
    ]


class MatmulOptions(ctypes.Structure):
    _fields_ = [
        ("resultAmax", ctypes.c_bool),
        ("kernelConfig", StringRef),
        ("allowTF32", ctypes.c_bool),
        ("hasResultType", ctypes.c_bool),
        ("resultType", ctypes.c_int),
        ("arch", StringRef),
        ("fastAccumulation", ctypes.c_bool),
        ("aScale", ctypes.POINTER(Tensor)),
        ("bScale", ctypes.POINTER(Tensor)),
        ("dScale", ctypes.POINTER(Tensor)),
        ("blockScaling", ctypes.c_bool),
        ("hasAuxType", ctypes.c_bool),
        ("auxType", ctypes.c_int),
        ("auxAmax", ctypes.c_bool),
        ("cScale", ctypes.POINTER(Tensor)),
    ]


class Handle(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


def _candidates():
    """Where libmepi may be: $MEPI_LIBRARY, the install tree (<prefix>/lib beside
    <prefix>/lib/python/mepi), the source tree's build/ directory, then the loader's path."""
    if os.environ.get("MEPI_LIBRARY"):
        yield os.environ["MEPI_LIBRARY"]
    here = pathlib.Path(__file__).resolve().parent
    yield str(here.parent.parent / "libmepi.so.0")
    yield str(here.parent.parent / "build" / "lib" / "libmepi.so.0")
    found = ctypes.util.find_library("mepi")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError("mepi: cannot load libmepi (set MEPI_LIBRARY to its path); tried:\n  " +
                      "\n  ".join(tried))


lib = _load()

_P = ctypes.POINTER
_signatures = {
    "mepiGetApiVersion": (ctypes.c_uint, []),
    "mepiErrorGetMessage": (StringRef, [Error]),
    "mepiErrorGetStatus": (ctypes.c_int, [Error]),
    "mepiErrorDestroy": (None, [Error]),
    "mepiMatmulCreateWithOptions": (Handle, [_P(Tensor), _P(Tensor), _P(Tensor), ctypes.c_float,
                                             _P(ctypes.c_float), ctypes.c_bool, ctypes.c_bool,
                                             _P(MatmulOptions), _P(Error)]),
    "mepiMatmulPlanWithInputs": (LogicalResult, [Handle, ctypes.c_int, _P(EpilogInputs),
                                                 _P(Error)]),
    "mepiMatmulPlanUserEpilog": (LogicalResult, [Handle, StringRef, StringRef, _P(Tensor),
                                                 _P(ctypes.c_int), ctypes.c_int, ctypes.c_void_p,
                                                 ctypes.c_int, _P(Error)]),
    "mepiMatmulExecute": (LogicalResult, [Handle, ctypes.c_void_p, _P(Tensor), _P(Error)]),
    "mepiMatmulGetNumAuxOutputs": (ctypes.c_int, [Handle]),
    "mepiMatmulGetAuxOutput": (LogicalResult, [Handle, ctypes.c_int, _P(StringRef), _P(Tensor),
                                               _P(Error)]),
    "mepiMatmulGetKernelConfiguration": (LogicalResult, [Handle, _P(StringRef), _P(Error)]),
    "mepiMatmulAutotune": (LogicalResult, [Handle, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                           _P(Error)]),
    "mepiMatmulResetOperandsWithInputs": (LogicalResult, [Handle, _P(Tensor), _P(Tensor),
                                                          _P(Tensor), _P(EpilogInputs),
                                                          _P(Error)]),
    "mepiMatmulReleaseOperands": (None, [Handle]),
    "mepiMatmulDestroy": (None, [Handle]),
}
for _name, (_restype, _argtypes) in _signatures.items():
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _restype, _argtypes

if lib.mepiGetApiVersion() != API_VERSION:
    raise ImportError(f"mepi: libmepi speaks C API version {lib.mepiGetApiVersion()}, this "
                      f"package version {API_VERSION}")
