"""What a saved value may be: the field types a model file is read against.

Every field of a saved class has a :class:`Spec`; :meth:`Spec.read` takes the JSON value, checks its type, shape
and size, and returns the Python value, or raises :class:`ModelFormatError` naming the field. Nothing is built
before its spec has passed it: an array's dtype and element count are checked before numpy allocates it, a class
is looked up in the allow-list (:mod:`optitrees.persistence._allowed`) by its exact saved name, never by walking
module attributes.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

__all__ = ["ModelFormatError", "Limits", "Spec", "INT", "FLOAT", "STR", "BOOL", "Optional", "Array", "ListOf",
           "TupleOf", "DictOf", "PLAIN", "GENERATOR", "Reader"]


class ModelFormatError(ValueError):
    """A file is not a saved optitrees model, is malformed, or was written by a newer format than this library
    reads."""


@dataclass(frozen=True)
class Limits:
    """Bounds a file must keep: they hold loading, ``predict``, ``export_text`` and ``export_sql`` to time and
    memory linear in the file's size (a model of 30,000 rows is a few MB). ``load_model(file, Limits(...))``
    raises them for a larger model from a source one trusts.

    The promise, checked before anything is built and measured by ``bench/load_bombs.py``: the JSON values of a
    file of ``s`` bytes are estimated from its text before it is parsed (every ``{`` and ``[`` a container, every
    pair of quotes a string, every comma an item, at CPython's sizes of each), and a file whose estimate exceeds
    ``memory_per_byte * s + memory_fixed`` is refused; the arrays built from it count their own bytes against the
    same budget (a text array by its declared width times its items).
    """

    #: nesting of JSON values below the document
    depth: int = 48
    #: characters of one string (a feature name, a note, a formulation summary)
    string: int = 1 << 20
    #: characters of one entry of a saved string array (numpy's ``<U`` item size)
    array_string: int = 1 << 12
    #: elements of all arrays and lists of one file together
    elements: int = 50_000_000
    #: bytes of a file
    file_bytes: int = 256 << 20
    #: peak memory of loading, per byte of the file, beyond :attr:`memory_fixed`
    memory_per_byte: int = 24
    #: memory of loading any file may take beyond its share per byte
    memory_fixed: int = 64 << 20
    #: depth of a saved tree (a deeper one is a chain no model fit makes; it would cost every predict its depth)
    tree_depth: int = 512

    def memory_budget(self, file_size: int) -> int:
        """The bytes loading a file of ``file_size`` bytes may take."""
        return self.memory_per_byte * file_size + self.memory_fixed


class Reader:
    """One file's reading: the limits, the elements counted so far, and where the reader is (for messages)."""

    def __init__(self, source: str, limits: Limits = Limits(), file_size: int | None = None):
        self.source, self.limits, self.elements = source, limits, 0
        #: bytes the arrays built so far take, and what the file may take
        self.allocated = 0
        self.budget = limits.memory_budget(limits.file_bytes if file_size is None else file_size)

    def fail(self, where: str, message: str):
        raise ModelFormatError(f"{self.source}: {where}: {message}")

    def count(self, where: str, n: int) -> None:
        self.elements += n
        if self.elements > self.limits.elements:
            self.fail(where, f"more than {self.limits.elements:,} array and list elements in one file")

    def allocate(self, where: str, n_bytes: int) -> None:
        """Count ``n_bytes`` an array is about to take against the file's memory budget."""
        self.allocated += n_bytes
        if self.allocated > self.budget:
            self.fail(where, f"its arrays would take {self.allocated:,} bytes, more than the {self.budget:,} a file "
                             f"of its size may take to load (Limits.memory_per_byte)")

    def enter(self, where: str, depth: int) -> int:
        if depth >= self.limits.depth:
            self.fail(where, f"values nested deeper than {self.limits.depth} levels")
        return depth + 1


def _kind(value) -> str:
    if isinstance(value, dict):
        tags = [k for k in value if isinstance(k, str) and k.startswith("__")]
        return f"an object tagged {tags[0]}" if tags else "a JSON object"
    return {list: "a list", str: "a string", bool: "a boolean", int: "an integer", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)


class Spec(ABC):
    """The type of one saved field."""

    #: what the field must be, for messages
    expected = "a value"

    @abstractmethod
    def read(self, value, reader: Reader, where: str, depth: int):
        """The Python value of the JSON ``value`` at ``where``, ``depth`` levels down; raises
        :class:`ModelFormatError` when it is not of this type."""


class _Scalar(Spec):
    def __init__(self, expected, accept):
        self.expected, self._accept = expected, accept

    def read(self, value, reader, where, depth):
        ok, out = self._accept(value, reader)
        if not ok:
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        return out


def _int(value, reader):
    ok = isinstance(value, int) and not isinstance(value, bool) and -(1 << 63) <= value < (1 << 63)
    return ok, value


_NON_FINITE = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


def _float(value, reader):
    if isinstance(value, float):
        return True, value
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) < (1 << 1023), float(value) if abs(value) < (1 << 1023) else None
    if isinstance(value, dict) and set(value) == {"__float__"} and value["__float__"] in ("nan", "inf", "-inf"):
        return True, _NON_FINITE[value["__float__"]]
    return False, None


def _str(value, reader):
    return isinstance(value, str) and len(value) <= reader.limits.string, value


INT = _Scalar("an integer of 64 bits", _int)
FLOAT = _Scalar("a number", _float)
STR = _Scalar("a string", _str)
BOOL = _Scalar("a boolean", lambda value, reader: (isinstance(value, bool), value))


class Optional(Spec):
    """``None`` or a value of ``spec``."""

    def __init__(self, spec: Spec):
        self.spec, self.expected = spec, f"null or {spec.expected}"

    def read(self, value, reader, where, depth):
        return None if value is None else self.spec.read(value, reader, where, depth)


# numeric dtypes a file may name: little- or big-endian bool, int, uint and float of a standard size
_NUMERIC_DTYPE = re.compile(r"^[<>|=]?(b1|[iu][1248]|f[248])$")
_STRING_DTYPE = re.compile(r"^[<>|=]?U(\d{1,9})$")


class Array(Spec):
    """A numpy array whose dtype kind is one of ``kinds`` (``"b"`` bool, ``"i"`` / ``"u"`` integer, ``"f"`` float,
    ``"U"`` text, ``"O"`` objects of plain scalars) with ``ndim`` dimensions (any when None)."""

    def __init__(self, kinds: str, ndim: int | None = None):
        self.kinds, self.ndim = kinds, ndim
        self.expected = f"an array of kind {kinds!r}" + (f" and {ndim} dimension(s)" if ndim is not None else "")

    def read(self, value, reader, where, depth):
        if not (isinstance(value, dict) and "__ndarray__" in value):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        extra = set(value) - {"__ndarray__", "dtype", "shape", "nan", "inf", "-inf"}
        if extra:
            reader.fail(where, f"unknown array entries {sorted(extra)}")
        items, dtype, shape = value["__ndarray__"], value.get("dtype"), value.get("shape")
        if not isinstance(items, list):
            reader.fail(where, "an array's items must be a list")
        if not (isinstance(shape, list) and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s
                                                  for s in shape) and len(shape) <= 32):
            reader.fail(where, f"an array's shape must be a list of non-negative integers, found {shape!r}")
        if self.ndim is not None and len(shape) != self.ndim:
            reader.fail(where, f"expected {self.ndim} dimension(s), found shape {shape}")
        size = int(np.prod(shape, dtype=object))
        if size != len(items):
            reader.fail(where, f"shape {shape} holds {size} items, the file lists {len(items)}")
        reader.count(where, size)
        if not isinstance(dtype, str):
            reader.fail(where, f"an array's dtype must be a string, found {_kind(dtype)}")
        if dtype == "object":
            kind = "O"
        elif _NUMERIC_DTYPE.fullmatch(dtype):
            kind = np.dtype(dtype).kind
        elif (m := _STRING_DTYPE.fullmatch(dtype)) and int(m.group(1)) <= reader.limits.array_string:
            kind = "U"
        else:
            reader.fail(where, f"dtype {dtype!r} is not one a saved model uses")
        # numpy sizes a text array by its declared width, not by its items
        reader.allocate(where, size * (8 if kind == "O" else np.dtype(dtype).itemsize))
        if kind not in self.kinds:
            reader.fail(where, f"expected {self.expected}, found dtype {dtype!r}")
        if kind == "O":
            out = np.empty(size, dtype=object)
            out[:] = [_plain_scalar(v, reader, f"{where}[{i}]") for i, v in enumerate(items)]
            return out.reshape(shape)
        scalar = {"b": bool, "i": int, "u": int, "f": (int, float), "U": str}[kind]
        if not all(type(v) is scalar or (isinstance(scalar, tuple) and type(v) in scalar) for v in items):
            reader.fail(where, f"the items of a {dtype!r} array must all be {_SCALAR_NAMES[kind]}")
        try:
            out = np.array(items, dtype=np.dtype(dtype)).reshape(shape)
        except (ValueError, OverflowError) as exc:
            reader.fail(where, f"the items do not fit dtype {dtype!r} ({exc})")
        non_finite = [k for k in ("nan", "inf", "-inf") if k in value]
        if non_finite and kind != "f":
            reader.fail(where, f"only float arrays list non-finite positions, not {dtype!r}")
        flat = out.reshape(-1)
        for k in non_finite:
            at = value[k]
            if not (isinstance(at, list) and all(type(i) is int and 0 <= i < size for i in at)):
                reader.fail(where, f"the {k!r} positions must be integers in [0, {size})")
            flat[np.asarray(at, dtype=np.int64)] = _NON_FINITE[k]
        return out


_SCALAR_NAMES = {"b": "booleans", "i": "integers", "u": "integers", "f": "numbers", "U": "strings"}


def _plain_scalar(value, reader, where, int_bits: int = 64):
    if value is None or isinstance(value, (bool, float)):
        return value
    if isinstance(value, int):
        if not -(1 << (int_bits - 1)) <= value < (1 << int_bits):
            reader.fail(where, f"an integer beyond {int_bits} bits")
        return value
    if isinstance(value, str):
        return STR.read(value, reader, where, 0)
    if isinstance(value, dict) and "__float__" in value:
        return FLOAT.read(value, reader, where, 0)
    reader.fail(where, f"expected a number, string, boolean or null, found {_kind(value)}")


class ListOf(Spec):
    """A list of values of ``spec``."""

    def __init__(self, spec: Spec):
        self.spec, self.expected = spec, f"a list of {spec.expected}"

    def read(self, value, reader, where, depth):
        if not isinstance(value, list):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        reader.count(where, len(value))
        depth = reader.enter(where, depth)
        return [self.spec.read(v, reader, f"{where}[{i}]", depth) for i, v in enumerate(value)]


class TupleOf(Spec):
    """A tuple of values of ``spec`` (saved as ``{"__tuple__": [...]}``)."""

    def __init__(self, spec: Spec):
        self.spec, self.expected = spec, f"a tuple of {spec.expected}"

    def read(self, value, reader, where, depth):
        if not (isinstance(value, dict) and set(value) == {"__tuple__"}):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        return tuple(ListOf(self.spec).read(value["__tuple__"], reader, where, depth))


class DictOf(Spec):
    """A dict of ``key`` to ``value`` (a JSON object, or ``{"__dict__": [[key, value], ...]}`` for keys that are
    not plain strings)."""

    def __init__(self, key: Spec, value: Spec):
        self.key, self.value = key, value
        self.expected = f"a dict of {key.expected} to {value.expected}"

    def read(self, value, reader, where, depth):
        if not isinstance(value, dict):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        depth = reader.enter(where, depth)
        if "__dict__" in value:
            pairs = value["__dict__"]
            if set(value) != {"__dict__"} or not isinstance(pairs, list) or not all(
                    isinstance(p, list) and len(p) == 2 for p in pairs):
                reader.fail(where, "a '__dict__' entry must be a list of [key, value] pairs, and alone")
            reader.count(where, len(pairs))
            out = {}
            for i, (k, v) in enumerate(pairs):
                key = self.key.read(k, reader, f"{where} key {i}", depth)
                try:
                    hash(key)
                except TypeError:
                    reader.fail(where, f"key {i} is not hashable")
                out[key] = self.value.read(v, reader, f"{where}[{key!r}]", depth)
            return out
        if any(k.startswith("__") for k in value):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        reader.count(where, len(value))
        return {self.key.read(k, reader, where, depth): self.value.read(v, reader, f"{where}[{k!r}]", depth)
                for k, v in value.items()}


class _Plain(Spec):
    """Plain data: numbers, strings, booleans, null, lists, tuples, dicts of plain data, arrays of numbers or text,
    and members of the library's saved enums (the reports' and results' checks, timings, stages, parameters)."""

    expected = "plain data"

    def __init__(self, int_bits: int = 64):
        self.int_bits = int_bits

    def read(self, value, reader, where, depth):
        if value is None or isinstance(value, (bool, int, float, str)):
            return _plain_scalar(value, reader, where, self.int_bits)
        if isinstance(value, list):
            return ListOf(self).read(value, reader, where, depth)
        if not isinstance(value, dict):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        if "__float__" in value:
            return FLOAT.read(value, reader, where, depth)
        if "__ndarray__" in value:
            return Array("biufUO").read(value, reader, where, depth)
        if "__tuple__" in value:
            return TupleOf(self).read(value, reader, where, depth)
        if "__enum__" in value:
            from ._allowed import ENUMS, Member

            return Member(*ENUMS.values()).read(value, reader, where, depth)
        return DictOf(self, self).read(value, reader, where, depth)


PLAIN = _Plain()


class _Generator(Spec):
    """A numpy random generator of a standard bit generator, at its saved state."""

    expected = "a random generator"
    _BIT_GENERATORS = {cls.__name__: cls for cls in (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937,
                                                     np.random.Philox, np.random.SFC64)}

    def read(self, value, reader, where, depth):
        if not (isinstance(value, dict) and set(value) == {"__generator__", "state"}):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        cls = self._BIT_GENERATORS.get(value["__generator__"]) if isinstance(value["__generator__"], str) else None
        if cls is None:
            reader.fail(where, f"unknown random bit generator {value['__generator__']!r}")
        bit_generator = cls()
        state = _Plain(int_bits=256).read(value["state"], reader, where, depth)
        problem = _state_problem(cls, state)
        if problem is not None:                # numpy does not range-check every field: one crashed on use
            reader.fail(where, f"not a state of {cls.__name__}: {problem}")
        try:
            bit_generator.state = state
        except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
            reader.fail(where, f"not a state of {cls.__name__} ({exc})")
        return np.random.Generator(bit_generator)


def _in_range(value, bits: int) -> bool:
    return type(value) is int and 0 <= value < (1 << bits)


def _words(value, n: int, bits: int) -> bool:
    """An array of ``n`` unsigned integers of ``bits`` bits."""
    return isinstance(value, np.ndarray) and value.shape == (n,) and value.dtype.kind in "iu" and bool(
        np.all(value >= 0)) and all(int(v) < (1 << bits) for v in value.tolist())


def _state_problem(cls, state) -> str | None:
    """What is wrong with the saved ``state`` of bit generator ``cls`` (every field's type and range), or None."""
    if not (isinstance(state, dict) and state.get("bit_generator") == cls.__name__ and isinstance(state.get("state"),
                                                                                                  dict)):
        return "expected the state dict numpy writes for it"
    inner = state["state"]
    buffered = {"has_uint32", "uinteger"}
    if cls in (np.random.PCG64, np.random.PCG64DXSM):
        ok = (set(state) == {"bit_generator", "state"} | buffered and set(inner) == {"state", "inc"}
              and _in_range(inner["state"], 128) and _in_range(inner["inc"], 128))
    elif cls is np.random.MT19937:
        ok = (set(state) == {"bit_generator", "state"} and set(inner) == {"key", "pos"}
              and _words(inner["key"], 624, 32) and type(inner["pos"]) is int and 0 <= inner["pos"] <= 624)
        buffered = set()
    elif cls is np.random.Philox:
        ok = (set(state) == {"bit_generator", "state", "buffer", "buffer_pos"} | buffered
              and set(inner) == {"counter", "key"} and _words(inner["counter"], 4, 64) and _words(inner["key"], 2, 64)
              and _words(state["buffer"], 4, 64) and type(state["buffer_pos"]) is int and 0 <= state["buffer_pos"] <= 4)
    else:                                      # SFC64
        ok = set(state) == {"bit_generator", "state"} | buffered and set(inner) == {"state"} and _words(
            inner["state"], 4, 64)
    ok = ok and all(state.get(k) in (0, 1) if k == "has_uint32" else _in_range(state.get(k), 32) for k in buffered)
    return None if ok else "a field is missing, unknown or out of its range"


GENERATOR = _Generator()
