"""The matrix's coefficients as text, for the compiled passes that write the matrix.

:func:`coefficient_blocks` gives :class:`CoefficientTable` s: columns (rows) with
the same coefficients bit for bit share one text, found by a compiled hash of
each item's coefficients (:func:`_segment_hashes`) checked entry by entry
(:func:`_representatives`); otherwise the items go in blocks, each formatted
while the one before is written.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from numba import njit

from .numbers import distinct_values, in_slices, shortest_digits
from .pieces import SLACK

__all__ = ["CoefficientTable", "coefficient_blocks"]

_PER_BLOCK = 1 << 20               # coefficients formatted and written at a time
_SHARED = 0.5                      # one table when items of distinct coefficients hold at most this share


class CoefficientTable:
    """The matrix's coefficients as text for the compiled passes: ``buffer`` / ``offsets`` hold the digits
    (no prefix: the passes write the separator or sign), ``ids`` each coefficient's string, or ``None`` when
    string ``k`` is coefficient ``k``.

    Each distinct double is formatted once (:func:`shortest_digits`) unless a sample of the coefficients is mostly
    distinct (margins written inline: ``y_i x_ij`` times a tangent's slope), where hashing costs more than
    it saves (39M such coefficients: 17.6 s to hash and format the distinct ones, 10.6 s to format all).
    """

    SAMPLE = 1 << 16

    def __init__(self, values: np.ndarray):
        values = np.ascontiguousarray(values, np.float64)
        sample = values[::max(1, len(values) // self.SAMPLE)]
        distinct_only = len(pd.unique(sample.view(np.int64))) <= len(sample) // 2

        def text(v):
            if not distinct_only:
                return None, *shortest_digits(v)
            codes, distinct = distinct_values(v)
            return codes, *shortest_digits(distinct)

        parts = in_slices(text, values)
        self.buffer = np.concatenate([characters for _, characters, _ in parts] + [np.zeros(SLACK, np.uint8)])
        bases = np.cumsum([0] + [len(characters) for _, characters, _ in parts])
        self.offsets = np.concatenate([np.zeros(1, np.int64)] + [offsets[1:] + base
                                                                 for (_, _, offsets), base in zip(parts, bases)])
        if distinct_only:
            firsts = np.cumsum([0] + [len(offsets) - 1 for _, _, offsets in parts])
            self.ids = np.concatenate([codes + first for (codes, _, _), first in zip(parts, firsts)])
        else:
            self.ids = None
        self.longest = int(np.diff(self.offsets).max(initial=0))

    @property
    def kernel_ids(self) -> np.ndarray:
        """``ids``, or an empty array standing for "coefficient ``k`` is string ``k``"."""
        return self.ids if self.ids is not None else np.zeros(0, np.int64)


_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _segment_hashes(bits, first, stop, mask):
    """A 64-bit hash of each item's coefficients ``bits[first[i]:stop[i]] & mask`` (bit patterns; ``mask`` clears
    the sign bit when the text holds absolute values) and of its length."""
    out = np.empty(first.shape[0], np.uint64)
    shift = np.uint64(29)
    for i in range(first.shape[0]):
        h = np.uint64(stop[i] - first[i]) * _MIX
        for k in range(first[i], stop[i]):
            h = (h ^ (bits[k] & mask)) * _MIX
            h ^= h >> shift
        out[i] = h
    return out


@njit(cache=True, nogil=True)
def _representatives(bits, first, stop, mask, codes, n_codes):
    """Each item's representative: the first item of its hash code whose coefficients equal its own bit for
    bit (after ``mask``), or itself (a collision only costs a repeat)."""
    first_of_code = np.full(n_codes, -1, np.int64)
    out = np.empty(first.shape[0], np.int64)
    for i in range(first.shape[0]):
        r = first_of_code[codes[i]]
        if r < 0:
            first_of_code[codes[i]] = i
            out[i] = i
            continue
        n = stop[i] - first[i]
        same = n == stop[r] - first[r]
        t = 0
        while same and t < n:
            same = (bits[first[i] + t] & mask) == (bits[first[r] + t] & mask)
            t += 1
        out[i] = r if same else i
    return out


@njit(cache=True, nogil=True)
def _gather_segments(values, first, stop, items, total, absolute):
    """The coefficients of ``items``, end to end (``|values|`` with ``absolute``)."""
    out = np.empty(total, np.float64)
    pos = 0
    for i in items:
        for k in range(first[i], stop[i]):
            out[pos] = abs(values[k]) if absolute else values[k]
            pos += 1
    return out


def coefficient_blocks(values: np.ndarray, first: np.ndarray, stop: np.ndarray, absolute: bool = False):
    """The text of the coefficients of items (columns or rows), as tables for the compiled passes: yields
    (first item, stop item, ``base``, :class:`CoefficientTable`), where coefficient ``k`` of item ``i`` is
    the table's string ``base[i] + k - first[i]`` (through its ``ids`` when it has them).

    Item ``i`` holds coefficients ``values[first[i]:stop[i]]`` (``|values|`` with ``absolute``), in item
    order. Items with the same coefficients bit for bit share their text: in a model of score variables
    every node's weight column holds the same feature column (and every node's score row the same data
    row), so the values are formatted once per item class. When that leaves at most ``_SHARED`` of the
    coefficients to format, one table holds them all (digits, offsets and ids: at most about 40 bytes a
    formatted coefficient, so 20 a nonzero, against the matrix's 12). Otherwise items are split into blocks
    of about ``_PER_BLOCK`` coefficients, of which only two are held at once (a table of the whole matrix took
    5x its memory).

    Tables are made by another thread: the first is begun at once, while the caller writes the sections
    before the matrix, and each next one while the caller writes the current one.
    """
    first, stop = np.ascontiguousarray(first, np.int64), np.ascontiguousarray(stop, np.int64)
    values = np.ascontiguousarray(values, np.float64)
    ahead = ThreadPoolExecutor(1)
    return _tables(ahead, ahead.submit(_first_table, values, first, stop, absolute), values, first, stop, absolute)


def _first_table(values, first, stop, absolute):
    """(the blocks after the first, ``base``, the first block as :func:`coefficient_blocks` yields it);
    no blocks and ``None`` when there are no items."""
    counts = stop - first
    if not len(counts):
        return [], None, None
    bits = values.view(np.uint64)
    mask = np.uint64(0x7FFFFFFFFFFFFFFF if absolute else 0xFFFFFFFFFFFFFFFF)
    codes, classes = pd.factorize(_segment_hashes(bits, first, stop, mask).view(np.int64), sort=False)
    representative = _representatives(bits, first, stop, mask, codes.astype(np.int64), len(classes))
    kept = np.flatnonzero(representative == np.arange(len(counts)))
    total = int(counts[kept].sum())
    if total <= _SHARED * counts.sum():
        base = np.zeros(len(counts), np.int64)
        base[kept] = np.cumsum(counts[kept]) - counts[kept]
        base = base[representative]
        return [], base, (0, len(counts), base, CoefficientTable(
            _gather_segments(values, first, stop, kept, total, absolute)))

    cumulative = np.cumsum(counts)
    bounds, start = [], 0
    while start < len(counts):
        end = max(int(np.searchsorted(cumulative, (cumulative[start - 1] if start else 0) + _PER_BLOCK,
                                      side="right")), start + 1)
        bounds.append((start, min(end, len(counts))))
        start = end
    base = first - np.repeat([first[a] for a, _ in bounds], [b - a for a, b in bounds])
    return bounds[1:], base, _block_table(values, first, stop, absolute, base, bounds[0])


def _block_table(values, first, stop, absolute, base, block):
    """Items ``block = (a, b)`` as :func:`coefficient_blocks` yields them: their coefficients formatted in full."""
    a, b = block
    k0, k1 = int(first[a]), int(stop[b - 1])
    block_values = values[k0:max(k0, k1)]
    return a, b, base, CoefficientTable(np.abs(block_values) if absolute else block_values)


def _tables(ahead, pending, values, first, stop, absolute):
    """The tables of :func:`coefficient_blocks`, each next one made by ``ahead`` while the current one is used."""
    try:
        rest, base, current = pending.result()
        if current is None:
            return
        for block in rest:
            pending = ahead.submit(_block_table, values, first, stop, absolute, base, block)
            yield current
            current = pending.result()
        yield current
    finally:
        ahead.shutdown()
