"""Readable numbers that are exactly the model's numbers.

A printed model must be the model: every number a tree or a score card prints
is the number it predicts with. So models are made readable by *changing them*
to short decimals where that changes no training prediction (thresholds moved
to a short number strictly between neighbouring training values, weights
rounded to a few significant digits), and numbers are printed with the shortest
text that reads back as the same float (:func:`format_number`).

>>> readable_between(65.0, 75.0), readable_between(70.0, 72.0), readable_between(70.0, 70.0055)
(70.0, 71.0, 70.003)
>>> format_number(70.0), format_number(3.2e-09), format_number(-0.25)
('70', '3.2e-09', '-0.25')
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["printable", "format_number", "format_count", "round_significant", "significant_neighbours",
           "readable_between", "round_into", "round_linear_model"]

#: A training point counts as off a linear model's boundary when its score is
#: at least this fraction of the score's scale away from 0.
_OFF_BOUNDARY = 1e-9


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(name, keep_newlines: bool = False) -> str:
    r"""``name`` as text a terminal or a printed model shows as it is: every character that is not printable
    (C0 and C1 controls, ``ESC`` included, so no ANSI sequence; line and paragraph separators; format characters
    such as the bidirectional overrides) is written as its escape (``age\x0a`` for a newline), so a name read
    from a file cannot fake a line of a printed tree or restyle the terminal. ``keep_newlines`` keeps ``\n``
    (a whole printout's own lines).

    >>> printable("age\n|--- class: yes"), printable("\x1b[31mred"), printable("a\nb", keep_newlines=True)
    ('age\\x0a|--- class: yes', '\\x1b[31mred', 'a\nb')
    """
    text = str(name)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or (keep_newlines and char == "\n") else _escape(char)
                   for char in text)


def format_number(v) -> str:
    """The shortest text that reads back as the same float (``70``, ``0.53``, ``3.2e-09``)."""
    v = float(v)
    if v == 0:
        return "0"
    text = repr(v)
    return text[:-2] if text.endswith(".0") else text


def format_count(n) -> str:
    """A training count: ``12`` when whole, else 4 significant digits (fractional C4.5 weights, ``3.333``)."""
    n = float(n)
    return str(int(round(n))) if abs(n - round(n)) < 1e-9 else f"{n:.4g}"


def round_significant(values, digits: int):
    """``values`` rounded to ``digits`` significant digits (the float nearest each short decimal)."""
    values = np.asarray(values, dtype=float)
    flat = [float(f"{v:.{digits}g}") if np.isfinite(v) else v for v in values.ravel()]
    return np.array(flat, dtype=float).reshape(values.shape)


def significant_neighbours(value: float, digits: int) -> list:
    """The numbers of ``digits`` significant digits just below and just above ``value > 0`` (only ``value``
    when it has that many digits).

    >>> significant_neighbours(1.7534, 3), significant_neighbours(9.996, 3), significant_neighbours(2.0, 3)
    ([1.75, 1.76], [9.99, 10.0], [2.0])
    """
    e = math.floor(math.log10(value)) - digits + 1
    k = math.floor(value / 10.0 ** e + 1e-9)
    if abs(k * 10.0 ** e - value) <= 1e-12 * value:
        return [_decimal(k, e)]
    return [_decimal(k, e), _decimal(k + 1, e)]


def _decimal(k: int, e: int) -> float:
    """The float nearest ``k * 10**e``, computed from its decimal text (no accumulated rounding)."""
    return float(f"{k}e{e}")


def readable_between(lo: float, hi: float) -> float:
    """The shortest decimal strictly between ``lo`` and ``hi`` (either may be infinite), nearest their middle.

    Tries multiples of ``10**e`` for ``e`` from the order of the interval's width
    downwards and returns, among the first that fall strictly inside, the one
    closest to the midpoint.
    """
    lo, hi = float(lo), float(hi)
    if not lo < hi:
        raise ValueError(f"empty interval ({lo}, {hi})")
    if math.isinf(lo) and math.isinf(hi):
        return 0.0
    if math.isinf(lo) or math.isinf(hi):
        edge = hi if math.isinf(lo) else lo
        step = 10.0 ** math.floor(math.log10(abs(edge))) if edge != 0 else 1.0
        lo, hi = (edge - 2 * step, edge) if math.isinf(lo) else (edge, edge + 2 * step)
    middle = (lo + hi) / 2
    top = math.floor(math.log10(hi - lo)) + 1 if hi > lo else 0
    for e in range(top, top - 40, -1):
        first, last = math.floor(lo / 10.0**e) + 1, math.ceil(hi / 10.0**e) - 1
        if first > last:
            continue
        k = min(max(round(middle / 10.0**e), first), last)
        for cand in sorted({k, first, last}, key=lambda c: abs(c - middle / 10.0**e)):
            v = _decimal(cand, e)
            if lo < v < hi:
                return v
    return middle


def round_into(value: float, lo: float, hi: float, min_digits: int = 3) -> float:
    """``value`` rounded to the fewest significant digits (at least ``min_digits``) that stay strictly in ``(lo, hi)``.

    When even the unrounded ``value`` is not strictly inside, the readable
    number between ``lo`` and ``hi`` is returned instead.
    """
    value = float(value)
    for digits in range(min_digits, 18):
        v = float(f"{value:.{digits}g}")
        if lo < v < hi:
            return v
    return readable_between(lo, hi)


def round_linear_model(w, b, X, min_digits: int = 3):
    """Fewest significant digits (at least ``max(min_digits, 3)``) of ``(w, b)`` that keep the sign of
    ``X @ w + b`` on every row of ``X``, with no row on the boundary if possible; ``(w, b)`` unchanged otherwise.

    >>> X = np.array([[1.0, 2.0], [3.0, -1.0]])
    >>> round_linear_model(np.array([0.123456789, -0.98765]), 0.3333333, X)
    (array([ 0.123, -0.988]), 0.333)
    """
    w = np.asarray(w, dtype=float)
    X = np.asarray(X, dtype=float)
    positive = X @ w + b > 0
    fallback = None
    for digits in range(max(min_digits, 3), 18):
        wr, br = round_significant(w, digits), float(round_significant(b, digits))
        s = X @ wr + br
        if not np.array_equal(s > 0, positive):
            continue
        scale = np.abs(X) @ np.abs(wr) + abs(br)
        if np.all(np.abs(s) > _OFF_BOUNDARY * np.maximum(scale, 1e-300)):
            return wr, br
        fallback = fallback or (wr, br)
    return fallback or (w, float(b))
