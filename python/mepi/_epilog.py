"""Python epilogs: a decorated function traced into the MLIR text of a user epilog.

    @mepi.epilog(bias="row")
    def bias_gelu(acc, bias):
        return mepi.math.gelu(acc + bias)

    mm.plan(bias_gelu, epilog_inputs={"bias": bias})

The function is called once, at plan(), with symbolic values: `acc` (the f32 accumulator
alpha * A @ B (+ beta * C)) and one value per input named in the decorator (each of kind row,
col, scalar or matrix, read as f32). Arithmetic, comparisons, mepi.select, the mepi.math
functions, mepi.row() and mepi.col() (and in grouped matmuls mepi.group()) build the epilog's
f32 computation; its result is stored
as D's type. The text is mepi's user-epilog MLIR (README, "User epilogs"), shown by
`traced.mlir(...)`; tracing errors name the Python line.
"""

import inspect
import itertools
import math as _pymath
import os
import traceback

_KINDS = {"row": 0, "col": 1, "scalar": 2, "matrix": 3}
_ELEMENT_TYPES = {0: "f16", 1: "bf16", 2: "f32"}


class EpilogTraceError(TypeError):
    """An epilog that cannot be traced, with the user's line."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_line():
    """file:line: code of the innermost frame outside this package (the user's epilog)."""
    for frame in reversed(traceback.extract_stack()[:-1]):
        if os.path.dirname(os.path.abspath(frame.filename)) != _PACKAGE_DIR:
            return f"{frame.filename}:{frame.lineno}: {frame.line}"
    return "<unknown line>"


class _Trace:
    """The SSA lines being written (`grouped`: the function takes the group's index too)."""

    def __init__(self, grouped=False):
        self.lines, self.counter, self.grouped = [], itertools.count(), grouped

    def emit(self, op, type_, text):
        """`%vN = op text : type` (the form of arith/math operations on one type)."""
        return self.emit_line(f"{op} {text} : {type_}")

    def emit_cast(self, op, value, from_type, to_type):
        """`%vN = op value : from to to` (extf, truncf, index_cast, sitofp)."""
        return self.emit_line(f"{op} {value} : {from_type} to {to_type}")

    def emit_line(self, text):
        name = f"%v{next(self.counter)}"
        self.lines.append(f"    {name} = {text}")
        return name


_current = None  # the _Trace of the epilog being traced


class Value:
    """A symbolic f32 (or i1, for comparisons) value of the epilog."""

    def __init__(self, name, type_="f32"):
        self.name, self.type = name, type_

    # Arithmetic (constants are Python numbers).
    def _binary(self, op, other, reverse=False):
        other = _as_value(other)
        _expect_f32(self, op), _expect_f32(other, op)
        x, y = (other, self) if reverse else (self, other)
        return Value(_current.emit(op, "f32", f"{x.name}, {y.name}"))

    def __add__(self, o): return self._binary("arith.addf", o)
    def __radd__(self, o): return self._binary("arith.addf", o, True)
    def __sub__(self, o): return self._binary("arith.subf", o)
    def __rsub__(self, o): return self._binary("arith.subf", o, True)
    def __mul__(self, o): return self._binary("arith.mulf", o)
    def __rmul__(self, o): return self._binary("arith.mulf", o, True)
    def __truediv__(self, o): return self._binary("arith.divf", o)
    def __rtruediv__(self, o): return self._binary("arith.divf", o, True)

    def __neg__(self):
        _expect_f32(self, "negation")
        return Value(_current.emit("arith.negf", "f32", self.name))

    def _compare(self, predicate, other):
        other = _as_value(other)
        _expect_f32(self, "a comparison"), _expect_f32(other, "a comparison")
        return Value(_current.emit(f"arith.cmpf {predicate},", "f32",
                                   f"{self.name}, {other.name}"), "i1")

    def __lt__(self, o): return self._compare("olt", o)
    def __le__(self, o): return self._compare("ole", o)
    def __gt__(self, o): return self._compare("ogt", o)
    def __ge__(self, o): return self._compare("oge", o)
    def __eq__(self, o): return self._compare("oeq", o)
    def __ne__(self, o): return self._compare("une", o)
    __hash__ = None

    def __bool__(self):
        raise EpilogTraceError(
            f"mepi.epilog: a traced value has no truth value (Python control flow cannot "
            f"depend on it); use mepi.select(condition, a, b)\n  at {_user_line()}")

    def __float__(self):
        raise EpilogTraceError(f"mepi.epilog: a traced value is not a number here; use the "
                               f"mepi.math functions\n  at {_user_line()}")


def _as_value(x):
    if isinstance(x, Value):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise EpilogTraceError(f"mepi.epilog: expected a traced value or a number, got "
                               f"{type(x).__name__}\n  at {_user_line()}")
    return constant(float(x))


def _expect_f32(v, what):
    if v.type != "f32":
        raise EpilogTraceError(f"mepi.epilog: {what} takes numbers, got a comparison result "
                               f"(use mepi.select)\n  at {_user_line()}")


def _active():
    if _current is None:
        raise EpilogTraceError(f"mepi.epilog: this is only valid inside a traced epilog\n  at "
                               f"{_user_line()}")
    return _current


def constant(x):
    """An f32 constant."""
    if _pymath.isnan(x) or _pymath.isinf(x):
        bits = {"nan": "0x7FC00000", "inf": "0x7F800000", "-inf": "0xFF800000"}[repr(x)]
        return Value(_active().emit("arith.constant", "f32", bits))
    return Value(_active().emit("arith.constant", "f32", repr(float(x))))


def select(condition, a, b):
    """a where `condition` (a comparison) holds, else b."""
    if not isinstance(condition, Value) or condition.type != "i1":
        raise EpilogTraceError(f"mepi.select: expected a comparison as the condition\n  at "
                               f"{_user_line()}")
    a, b = _as_value(a), _as_value(b)
    return Value(_active().emit("arith.select", "f32", f"{condition.name}, {a.name}, {b.name}"))


def _index_value(argument):
    t = _active()
    i = t.emit_cast("arith.index_cast", argument, "index", "i64")
    return Value(t.emit_cast("arith.sitofp", i, "i64", "f32"))


def row():
    """The output element's row, as f32."""
    return _index_value("%row")


def col():
    """The output element's column, as f32."""
    return _index_value("%col")


def group():
    """The output element's group, as f32 (grouped matmuls only: its row's group, or D's
    matrix with groups along K)."""
    if not _active().grouped:
        raise EpilogTraceError(f"{_user_line()}: mepi.group() is only defined in the epilog of "
                               f"a grouped matmul")
    return _index_value("%group")


class math:  # noqa: N801 - used as the namespace mepi.math
    """Math functions of traced values (MLIR's math dialect; gelu and sigmoid composed)."""

    @staticmethod
    def _unary(op, x):
        x = _as_value(x)
        _expect_f32(x, op)
        return Value(_active().emit(op, "f32", x.name))

    exp = staticmethod(lambda x: math._unary("math.exp", x))
    log = staticmethod(lambda x: math._unary("math.log", x))
    tanh = staticmethod(lambda x: math._unary("math.tanh", x))
    sqrt = staticmethod(lambda x: math._unary("math.sqrt", x))
    erf = staticmethod(lambda x: math._unary("math.erf", x))
    abs = staticmethod(lambda x: math._unary("math.absf", x))

    @staticmethod
    def maximum(x, y):
        x, y = _as_value(x), _as_value(y)
        return Value(_active().emit("arith.maximumf", "f32", f"{x.name}, {y.name}"))

    @staticmethod
    def minimum(x, y):
        x, y = _as_value(x), _as_value(y)
        return Value(_active().emit("arith.minimumf", "f32", f"{x.name}, {y.name}"))

    @staticmethod
    def relu(x):
        return math.maximum(x, 0.0)

    @staticmethod
    def _approximate(op, *xs):
        """`op` with fastmath<afn>: one approximate instruction (ex2.approx, div.approx), as the
        built-in epilogs compute their exponentials and divisions."""
        xs = [_as_value(x) for x in xs]
        for x in xs:
            _expect_f32(x, op)
        operands = ", ".join(x.name for x in xs)
        return Value(_active().emit(op, "f32", f"{operands} fastmath<afn>"))

    @staticmethod
    def sigmoid(x):
        """1 / (1 + 2^(-x log2 e)), as the built-in SIGMOID: two approximate instructions."""
        e = math._approximate("math.exp2", _as_value(x) * -1.4426950408889634)
        return math._approximate("arith.divf", 1.0, 1.0 + e)

    @staticmethod
    def gelu(x):
        """The tanh approximation, as cuBLASLt's and nvmath's GELU, computed as the built-in
        GELU does: 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3),
        with -2u log2(e) = x (c1 + c2 x^2): no cancellation for negative x, and one ex2.approx
        and one div.approx an element (libdevice's tanhf is ~17 instructions)."""
        c1 = -2 * 0.7978845608028654 * 1.4426950408889634
        c2 = c1 * 0.044715
        x = _as_value(x)
        e = math._approximate("math.exp2", x * (c2 * x * x + c1))
        return math._approximate("arith.divf", x, 1.0 + e)


class Epilog:
    """A traced-on-demand epilog: `fn(acc, *inputs)` with the inputs' kinds by name."""

    def __init__(self, fn, kinds):
        self.fn, self.kinds = fn, dict(kinds)
        params = list(inspect.signature(fn).parameters)
        if not params:
            raise TypeError(f"mepi.epilog: {fn.__name__} must take the accumulator first")
        self.inputs = params[1:]
        for name in self.inputs:
            if name not in self.kinds:
                raise TypeError(f"mepi.epilog: input {name!r} of {fn.__name__} needs a kind: "
                                f"@mepi.epilog({name}='row' | 'col' | 'scalar' | 'matrix')")
        for name, kind in self.kinds.items():
            if name not in self.inputs:
                raise TypeError(f"mepi.epilog: {fn.__name__} takes no input {name!r}")
            if kind not in _KINDS:
                raise TypeError(f"mepi.epilog: input {name!r}: expected kind row, col, scalar "
                                f"or matrix, got {kind!r}")
        self.name = "py_" + "".join(c if c.isalnum() else "_" for c in fn.__name__)

    def kind_codes(self):
        return [_KINDS[self.kinds[name]] for name in self.inputs]

    def mlir(self, d_type="bf16", input_types=None, grouped=False):
        """The epilog's MLIR text for D of `d_type` ('f16', 'bf16', 'f32') and inputs of
        `input_types` (their element types, by input; f32 when not given); `grouped`: for a
        grouped matmul (the function takes the group's index after the column's)."""
        global _current
        input_types = input_types or {}
        trace = _Trace(grouped)
        arguments = ["%acc: f32"]
        values = []
        previous, _current = _current, trace
        try:
            for i, name in enumerate(self.inputs):
                t = input_types.get(name, "f32")
                arguments.append(f"%in{i}: {t}")
                values.append(Value(f"%in{i}") if t == "f32" else
                              Value(trace.emit_cast("arith.extf", f"%in{i}", t, "f32")))
            result = self.fn(Value("%acc"), *values)
            result = _as_value(result)
            _expect_f32(result, "the epilog's result")
            out = result.name
            if d_type != "f32":
                out = trace.emit_cast("arith.truncf", result.name, "f32", d_type)
        finally:
            _current = previous
        arguments += ["%row: index", "%col: index"] + (["%group: index"] if grouped else [])
        body = "\n".join(trace.lines)
        return (f"func.func @{self.name}({', '.join(arguments)}) -> {d_type} {{\n{body}\n"
                f"    return {out} : {d_type}\n}}\n")

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def epilog(fn=None, **kinds):
    """Decorates an epilog function `fn(acc, input...)`; the keywords give each input's kind
    ('row': one value per row of D, 'col': per column, 'scalar', 'matrix': one per element)."""
    if fn is None:
        return lambda f: Epilog(f, kinds)
    return Epilog(fn, kinds)


def element_type_name(dtype):
    return _ELEMENT_TYPES[dtype]
