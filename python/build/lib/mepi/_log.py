"""The runtime's messages (plans, kernel cache hits and compiles, autotune's candidates,
warnings) forwarded to Python's logging, to the logger "mepi", through the C API's log
callback."""

import atexit
import ctypes
import logging

from . import _capi

_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, _capi.StringRef, ctypes.c_void_p)
_LOGGER = logging.getLogger("mepi")


def _forward(level, message, _user_data):
    try:
        _LOGGER.log(level, "%s", message.text())
    except Exception:  # noqa: BLE001 - nothing may unwind into the library
        pass


_forwarder = _CALLBACK(_forward)  # kept alive for the library's sake
_capi.lib.mepiSetLogCallback.restype = None
_capi.lib.mepiSetLogCallback.argtypes = [_CALLBACK, ctypes.c_void_p]
_capi.lib.mepiSetLogCallback(_forwarder, None)
# Back to the default before the interpreter goes, so that no message calls into it after.
atexit.register(lambda: _capi.lib.mepiSetLogCallback(_CALLBACK(), None))
