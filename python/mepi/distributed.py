"""mepi.distributed: nvmath.distributed's Matmul over mepi's distributed matmul.

One process per GPU, started by MPI (mpirun); each passes its part of A and B:

    import mepi.distributed as md
    from mpi4py import MPI
    md.initialize(device_id, MPI.COMM_WORLD)
    x = ...  # this rank's rows of X [T, H]:     md.Slab.X.shape(rank, (T, H))
    w = ...  # this rank's rows of W [F, H]:     md.Slab.X.shape(rank, (F, H))
    with md.Matmul(x, w.T, distributions=[md.Slab.X, md.Slab.Y, md.Slab.Y]) as mm:
        mm.plan(epilog=mepi.MatmulEpilog.GELU)   # all-gather of X overlapped with the GEMMs
        y = mm.execute()                         # this rank's columns of Y [T, F]

Distributions refer to the arrays as given (nvmath's semantics): Slab.X splits their first
dimension, Slab.Y their second; a column-major part (e.g. `w.T`, or a Fortran-ordered array)
is read as its row-major transpose with the other slab axis. Replicated as D's distribution
asks for every rank to receive all of D (GEMM + all-reduce).
"""

import ctypes

from . import _capi
from ._epilog import Epilog, element_type_name
from ._matmul import (_INPUT_FIELDS, _RESULT_TYPES, MatmulEpilog, MatmulOptions, MepiError,
                      TracedEpilogCall, _check, _on_device, _stream_handle, read_aux_outputs)
from ._operands import DeviceArray, to_package

__all__ = ["initialize", "finalize", "get_context", "Slab", "BlockCyclic", "ProcessGrid",
           "Replicated", "Matmul", "matmul"]

_P = ctypes.POINTER


class _UniqueId(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_char * 128)]


class _Distribution(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("gridRows", ctypes.c_int), ("gridCols", ctypes.c_int),
                ("blockRows", ctypes.c_int64), ("blockCols", ctypes.c_int64)]


for _name, (_restype, _argtypes) in {
    "mepiDistMakeUniqueId": (_capi.LogicalResult, [_P(_UniqueId), _P(_capi.Error)]),
    "mepiDistInitialize": (_capi.LogicalResult, [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                                 _P(_UniqueId), _P(_capi.Error)]),
    "mepiDistFinalize": (None, []),
    "mepiDistLocalShape": (_capi.LogicalResult, [_P(_Distribution), ctypes.c_int, ctypes.c_int,
                                                 ctypes.c_int64, ctypes.c_int64,
                                                 _P(ctypes.c_int64), _P(ctypes.c_int64),
                                                 _P(_capi.Error)]),
    "mepiDistMatmulCreate": (_capi.Handle, [_P(_capi.Tensor), _P(_capi.Tensor), _P(_capi.Tensor),
                                            _P(_Distribution), ctypes.c_float, _P(ctypes.c_float),
                                            ctypes.c_bool, ctypes.c_bool,
                                            _P(_capi.MatmulOptions), ctypes.c_int,
                                            _P(_capi.Error)]),
    "mepiDistMatmulPlan": (_capi.LogicalResult, [_capi.Handle, ctypes.c_int,
                                                 _P(_capi.EpilogInputs), _P(_capi.Error)]),
    "mepiDistMatmulPlanUserEpilog": (_capi.LogicalResult, [
        _capi.Handle, _capi.StringRef, _capi.StringRef, _P(_capi.Tensor), _P(ctypes.c_int),
        ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, _P(_capi.Error)]),
    "mepiDistMatmulExecute": (_capi.LogicalResult, [_capi.Handle, ctypes.c_void_p,
                                                    _P(_capi.Tensor), _P(_capi.Error)]),
    "mepiDistMatmulGetNumAuxOutputs": (ctypes.c_int, [_capi.Handle]),
    "mepiDistMatmulGetAuxOutput": (_capi.LogicalResult, [_capi.Handle, ctypes.c_int,
                                                         _P(_capi.StringRef), _P(_capi.Tensor),
                                                         _P(_capi.Error)]),
    "mepiDistMatmulGetAlgorithm": (_capi.LogicalResult, [_capi.Handle, _P(ctypes.c_int),
                                                         _P(_capi.Error)]),
    "mepiDistMatmulGetSchedule": (_capi.LogicalResult, [_capi.Handle, _P(_capi.StringRef),
                                                        _P(_capi.Error)]),
    "mepiDistMatmulDestroy": (None, [_capi.Handle]),
}.items():
    _fn = getattr(_capi.lib, _name)
    _fn.restype, _fn.argtypes = _restype, _argtypes

_SLAB_X, _SLAB_Y, _BLOCK_CYCLIC, _REPLICATED = 0, 1, 2, 3
ALGORITHMS = ("AllGatherA", "AllGatherB", "ReduceScatterRows", "ReduceScatterCols", "AllReduce",
              "Summa")


class Context:
    """What initialize() set up: this process's device, rank and the group's size."""

    def __init__(self, device_id, rank, nranks, communicator):
        self.device_id, self.rank, self.nranks = device_id, rank, nranks
        self.communicator = communicator


_context = None


def initialize(device_id, communicator=None):
    """Joins the group (collective over `communicator`, an mpi4py communicator; default
    MPI.COMM_WORLD): rank 0 makes NCCL's unique id, MPI broadcasts it."""
    global _context
    if communicator is None:
        from mpi4py import MPI
        communicator = MPI.COMM_WORLD
    rank, nranks = communicator.Get_rank(), communicator.Get_size()
    uid, error = _UniqueId(), _capi.Error()
    if rank == 0:
        _check(_capi.lib.mepiDistMakeUniqueId(ctypes.byref(uid), ctypes.byref(error)), error)
    # All 128 bytes: the field's .bytes would stop at the first zero byte.
    size = ctypes.sizeof(uid)
    raw = communicator.bcast(ctypes.string_at(ctypes.addressof(uid), size) if rank == 0
                             else None, root=0)
    if len(raw) != size:
        raise MepiError(f"initialize: the unique id broadcast from rank 0 has {len(raw)} bytes, "
                        f"expected {size}")
    ctypes.memmove(ctypes.addressof(uid), raw, size)
    _check(_capi.lib.mepiDistInitialize(int(device_id), rank, nranks, ctypes.byref(uid),
                                        ctypes.byref(error)), error)
    _context = Context(int(device_id), rank, nranks, communicator)


def finalize():
    """Leaves the group (collective)."""
    global _context
    _capi.lib.mepiDistFinalize()
    _context = None


def get_context():
    if _context is None:
        raise MepiError("mepi.distributed: not initialized: call "
                        "mepi.distributed.initialize(device_id, communicator) first")
    return _context


class _Dist:
    """A distribution: kind, and for BlockCyclic its grid and block sizes."""

    def __init__(self, kind, name, grid=(0, 0), blocks=(0, 0)):
        self.kind, self.name, self.grid, self.blocks = kind, name, tuple(grid), tuple(blocks)

    def _c(self, transposed=False):
        kind = self.kind
        if transposed and kind in (_SLAB_X, _SLAB_Y):
            kind = _SLAB_Y if kind == _SLAB_X else _SLAB_X
        if transposed and kind == _BLOCK_CYCLIC:
            # The stored matrix of a column-major part is on the transposed grid, its ranks in
            # column-major order: the same order only when the grid is one row or column.
            if min(self.grid) > 1:
                raise MepiError(f"{self.name}: a column-major part of a matrix dealt over a "
                                f"{self.grid[0]}x{self.grid[1]} process grid is not supported; "
                                f"pass this rank's blocks row-major (contiguous)")
            return _Distribution(kind, self.grid[1], self.grid[0], self.blocks[1], self.blocks[0])
        return _Distribution(kind, self.grid[0], self.grid[1], self.blocks[0], self.blocks[1])

    def shape(self, rank, shape, nranks=None):
        """This rank's part of a matrix of global `shape` (nranks: the group's by default)."""
        nranks = get_context().nranks if nranks is None else nranks
        rows, cols, error = ctypes.c_int64(), ctypes.c_int64(), _capi.Error()
        dist = self._c()
        _check(_capi.lib.mepiDistLocalShape(ctypes.byref(dist), rank, nranks, shape[0], shape[1],
                                            ctypes.byref(rows), ctypes.byref(cols),
                                            ctypes.byref(error)), error)
        return (rows.value, cols.value)

    def __repr__(self):
        return self.name


class Slab:
    X = _Dist(_SLAB_X, "Slab.X")
    Y = _Dist(_SLAB_Y, "Slab.Y")


Replicated = _Dist(_REPLICATED, "Replicated")


class ProcessGrid:
    def __init__(self, shape):
        self.shape = tuple(shape)


def BlockCyclic(process_grid, block_sizes):  # noqa: N802 - nvmath's spelling
    grid = process_grid.shape if isinstance(process_grid, ProcessGrid) else tuple(process_grid)
    return _Dist(_BLOCK_CYCLIC, f"BlockCyclic({grid}, {tuple(block_sizes)})", grid, block_sizes)


def _transposes(qualifiers):
    if qualifiers is None:
        return False, False
    return bool(qualifiers[0]["is_transpose"]), bool(qualifiers[1]["is_transpose"])


class Matmul:
    """alpha * A @ B over the group, each rank passing its parts (nvmath.distributed's Matmul).
    `distributions`: A's, B's and D's. Collective: every rank constructs, plans, executes and
    frees in the same order."""

    def __init__(self, a, b, c=None, *, distributions, alpha=1.0, beta=None, qualifiers=None,
                 options=None, stream=None, pieces=0):
        get_context()
        if len(distributions) != 3:
            raise ValueError(f"distributions: expected 3 (A, B, D), got {len(distributions)}")
        if isinstance(options, dict):
            options = MatmulOptions(**options)
        self.options = options or MatmulOptions()
        self._stream = stream
        self._a, self._b = _on_device(a, "a"), _on_device(b, "b")
        self._c = _on_device(c, "c") if c is not None else None
        self._package = self._a.package
        transpose_a, transpose_b = _transposes(qualifiers)
        # A column-major part is its row-major transpose split along the other axis.
        a_matrix, flip_a = self._a.as_matrix(True)
        b_matrix, flip_b = self._b.as_matrix(True)
        self._views = (a_matrix, b_matrix)
        dists = (_Distribution * 3)(distributions[0]._c(flip_a), distributions[1]._c(flip_b),
                                    distributions[2]._c())
        beta_value = ctypes.c_float(beta) if beta is not None else None
        c_options, error = self.options.c_options(), _capi.Error()
        self._handle = _capi.lib.mepiDistMatmulCreate(
            ctypes.byref(a_matrix.c_tensor()), ctypes.byref(b_matrix.c_tensor()),
            ctypes.byref(self._c.c_tensor()) if self._c else None, dists, float(alpha),
            ctypes.byref(beta_value) if beta_value is not None else None,
            transpose_a != flip_a, transpose_b != flip_b, ctypes.byref(c_options), int(pieces),
            ctypes.byref(error))
        if not self._handle.ptr:
            _check(None, error)
        self._inputs = {}

    def _live(self):
        if not self._handle.ptr:
            raise MepiError("the Matmul was freed")
        return self._handle

    def plan(self, epilog=MatmulEpilog.DEFAULT, epilog_inputs=None):
        """Plans the local GEMMs with `epilog` (any MatmulEpilog); "bias" holds this rank's rows of D when D is split by rows, all of them
        otherwise; "relu_aux" / "gelu_aux" (DRELU, DGELU and their _BGRAD forms) this rank's,
        as the forward epilog returned it. Bias gradients ("drelu_bgrad", "dgelu_bgrad",
        "bgrada": this rank's rows of D; "bgradb": its columns) are those of the global
        product. Or a @mepi.epilog function:
        it sees this rank's D as a single GPU's (mepi.row() and mepi.col() index this rank's
        part; its inputs are this rank's rows, columns or block of D). Collective: an error in
        one rank's arguments raises on every rank."""
        try:
            call = self._plan_call(epilog, epilog_inputs or {})
            failed = None
        except Exception as e:  # noqa: BLE001 - re-raised below, on every rank alike
            call, failed = None, e
        # The Python side's checks first agree over MPI: a rank that raised alone would leave
        # its peers waiting in the plan's first exchange.
        from mpi4py import MPI
        if get_context().communicator.allreduce(1 if failed else 0, op=MPI.MAX):
            if failed:
                raise failed
            raise MepiError("plan: another rank's epilog or epilog_inputs were refused (its "
                            "own error says why), so every rank refuses")
        call()

    def _plan_call(self, epilog, epilog_inputs):
        """plan()'s local preparation; returns the collective C call to make."""
        error = _capi.Error()
        if isinstance(epilog, Epilog):
            d_type = self.options.result_type and _RESULT_TYPES[self.options.result_type]
            d_type = element_type_name(self._a.dtype if d_type is None else d_type)
            traced = TracedEpilogCall(epilog, epilog_inputs, d_type)

            def call():
                self._inputs = traced.operands
                _check(_capi.lib.mepiDistMatmulPlanUserEpilog(
                    self._live(), _capi.StringRef.of(traced.text),
                    _capi.StringRef.of(epilog.name), traced.tensors, traced.kinds,
                    len(traced.operands), None, 0, None, ctypes.byref(error)), error)
                self.epilog_mlir = traced.text
            return call
        inputs, operands = _capi.EpilogInputs(), {}
        for key, tensor in epilog_inputs.items():
            if key not in _INPUT_FIELDS:
                raise ValueError(f"epilog_inputs: unknown key {key!r}; expected one of "
                                 f"{sorted(_INPUT_FIELDS)}")
            operands[key] = _on_device(tensor, key)
            setattr(inputs, _INPUT_FIELDS[key], ctypes.pointer(operands[key].c_tensor()))
        code = int(MatmulEpilog(epilog))

        def call():
            self._inputs = operands
            _check(_capi.lib.mepiDistMatmulPlan(self._live(), code, ctypes.byref(inputs),
                                                ctypes.byref(error)), error)
        return call

    @property
    def algorithm(self):
        value, error = ctypes.c_int(), _capi.Error()
        _check(_capi.lib.mepiDistMatmulGetAlgorithm(self._live(), ctypes.byref(value),
                                                    ctypes.byref(error)), error)
        return ALGORITHMS[value.value]

    @property
    def schedule(self):
        text, error = _capi.StringRef(), _capi.Error()
        _check(_capi.lib.mepiDistMatmulGetSchedule(self._live(), ctypes.byref(text),
                                                   ctypes.byref(error)), error)
        return text.text()

    def execute(self, stream=None):
        """Runs the whole product; returns this rank's part of D in the operands' package
        (mepi's memory, rewritten by the next execute), or (D, aux) for an epilog with aux
        outputs ({"relu_aux": ...}, {"gelu_aux": ...} or a bias gradient such as
        {"drelu_bgrad": ...}, this rank's part, as nvmath gives)."""
        error, result = _capi.Error(), _capi.Tensor()
        handle = self._live()
        _check(_capi.lib.mepiDistMatmulExecute(handle, _stream_handle(stream or self._stream),
                                               ctypes.byref(result), ctypes.byref(error)), error)
        d = self._handed_out(None, result)
        aux = read_aux_outputs(handle, _capi.lib.mepiDistMatmulGetNumAuxOutputs,
                               _capi.lib.mepiDistMatmulGetAuxOutput, self._handed_out)
        return (d, aux) if aux else d

    def _handed_out(self, key, tensor):
        array = DeviceArray(tensor, self)
        if self._package == "numpy":
            return to_package(array, "torch").cpu().numpy()
        return to_package(array, self._package)

    def free(self):
        if self._handle.ptr:
            _capi.lib.mepiDistMatmulDestroy(self._handle)
            self._handle = _capi.Handle()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


def matmul(a, b, c=None, *, distributions, alpha=1.0, beta=None, epilog=MatmulEpilog.DEFAULT,
           epilog_inputs=None, qualifiers=None, options=None, stream=None):
    """Function form: plan and execute once; returns this rank's part of D, or (D, aux) (copies)."""
    def copy(x):
        return x.clone() if hasattr(x, "clone") else x.copy()

    with Matmul(a, b, c, distributions=distributions, alpha=alpha, beta=beta,
                qualifiers=qualifiers, options=options, stream=stream) as mm:
        mm.plan(epilog, epilog_inputs)
        out = mm.execute(stream)
        if isinstance(out, tuple):
            return copy(out[0]), {key: copy(value) for key, value in out[1].items()}
        return copy(out)
