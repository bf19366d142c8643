"""The pieces a model file is made of, and the compiled pass that copies them out.

A file is a sequence of *pieces*: byte strings held once in a :class:`Pool`
(keywords, the column and row names, the numbers outside the matrix) and
addressed by integer id. Sections are arrays of piece ids made with numpy
(:func:`lines`), or, for the two sections with one entry per nonzero, walked by
a compiled pass over the sparse matrix (:mod:`~optitrees.mip.files.mps`,
:mod:`~optitrees.mip.files.lp`) that reads the coefficients' digits from a
:class:`CoefficientTable` (:func:`coefficient_blocks`: one table shared by
columns or rows with equal coefficients, or one per block). Pieces are copied in
unaligned moves of 16 bytes (:func:`copy_piece`). A :class:`Writer` fills one
buffer while a second thread writes the other.

Numbers are polars' shortest round-trip text (each reads back as the same
double), each distinct value formatted once unless nearly all are distinct; a
name is made once however many rows hold it. Names and the numbers of the pool
carry their leading space, so a line is a few pieces.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["SLACK", "Pool", "Numbers", "CoefficientTable", "coefficient_blocks", "Writer", "lines", "names",
           "file_labels", "copy_piece"]

_BUFFER_BYTES = 1 << 23
_THREADS = min(4, os.cpu_count() or 1)
_PER_THREAD = 1 << 19              # numbers a formatting thread is worth starting for
_PER_BLOCK = 1 << 20               # coefficients formatted and written at a time
_SHARED = 0.5                      # one table when items of distinct coefficients hold at most this share
_SAFE = re.compile(r"[A-Za-z0-9_.]*")
SLACK = 16                         # bytes a copy may touch past a string's end, in its source and in ``out``


@intrinsic
def _move16(typingctx, out, pos, source, start):
    """Copy the 16 bytes ``source[start:start + 16]`` to ``out[pos:pos + 16]`` as one unaligned move (what a
    byte loop over short strings cannot be compiled to: ``out`` and ``source`` might overlap)."""
    if not all(isinstance(a, types.Array) and a.dtype == types.uint8 for a in (out, source)):
        return None                                 # typing fails: byte arrays only
    signature = types.void(out, types.intp, source, types.intp)

    def codegen(context, builder, sig, args):
        destination = context.make_array(sig.args[0])(context, builder, args[0])
        origin = context.make_array(sig.args[2])(context, builder, args[2])
        cgutils.raw_memcpy(builder, builder.gep(destination.data, [args[1]]), builder.gep(origin.data, [args[3]]),
                           context.get_constant(types.intp, SLACK), 1)
        return context.get_dummy_value()

    return signature, codegen


@njit(cache=True, nogil=True)
def copy_piece(buffer, offsets, piece, out, pos):
    """Copy piece ``piece`` of the pool (``buffer``, ``offsets``) to ``out[pos:]``; returns the new position.

    Copies in moves of 16 bytes (six times a byte loop's speed on names and numbers), so ``buffer`` holds
    :data:`SLACK` bytes past its last string (pools and tables are made so) and ``out`` has ``SLACK`` bytes to
    spare past the piece: the bytes past it are garbage until the next piece overwrites them."""
    start = offsets[piece]
    length = offsets[piece + 1] - start
    done = 0
    while done < length:
        _move16(out, pos + done, buffer, start + done)
        done += SLACK
    return pos + length


@njit(cache=True, nogil=True)
def _gather(buffer, offsets, pieces, out):
    """Copy the ``pieces`` to ``out`` until the next one would not fit (with :data:`SLACK` to spare): how many
    were copied, and their bytes."""
    pos = 0
    capacity = out.shape[0] - SLACK
    for k in range(pieces.shape[0]):
        p = pieces[k]
        if pos + offsets[p + 1] - offsets[p] > capacity:
            return k, pos
        pos = copy_piece(buffer, offsets, p, out, pos)
    return pieces.shape[0], pos


class Pool:
    """Byte strings addressed by id: blocks are added (each returns its first id), then :meth:`finish` joins
    them into ``buffer`` and ``offsets`` (string ``i`` is ``buffer[offsets[i]:offsets[i + 1]]``)."""

    def __init__(self):
        self._buffers, self._lengths, self.size = [], [], 0
        self.buffer = self.offsets = None
        self.longest = 0

    def add(self, buffer: np.ndarray, lengths: np.ndarray) -> int:
        """Add ``len(lengths)`` strings stored end to end in ``buffer``; returns the first one's id."""
        first = self.size
        self._buffers.append(np.asarray(buffer, np.uint8))
        self._lengths.append(np.asarray(lengths, np.int64))
        self.size += len(lengths)
        return first

    def add_strings(self, strings) -> int:
        encoded = [s.encode() for s in strings]
        return self.add(np.frombuffer(b"".join(encoded), np.uint8), np.array([len(e) for e in encoded], np.int64))

    def literal(self, text: str) -> int:
        return self.add_strings([text])

    def finish(self) -> "Pool":
        self.buffer = np.concatenate(self._buffers + [np.zeros(SLACK, np.uint8)])
        lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        self.longest = int(lengths.max(initial=0))
        return self

    def lengths(self, ids) -> np.ndarray:
        ids = np.asarray(ids)
        return self.offsets[ids + 1] - self.offsets[ids]

    def joined(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row of the piece-id array ``rows`` as one string: (buffer, lengths) for :meth:`add`."""
        lengths = self.lengths(rows).sum(axis=1)
        out = np.empty(int(lengths.sum()) + SLACK, np.uint8)
        _gather(self.buffer, self.offsets, np.ascontiguousarray(rows, np.int64).ravel(), out)
        return out[:-SLACK], lengths


def lines(n: int, *columns) -> np.ndarray:
    """An ``(n, len(columns))`` array of piece ids (one line a row): each column a constant id or ``n`` ids."""
    out = np.empty((n, len(columns)), np.int64)
    for k, c in enumerate(columns):
        out[:, k] = c
    return out


def file_labels(labels) -> np.ndarray:
    """An index set's labels as a file writes them: as given when they are safe for ``.lp`` / ``.mps`` names
    (integers always are), else through :func:`~optitrees.mip.safe_labels`."""
    from .._formulation import safe_labels

    labels = np.asarray(labels)
    text = labels.astype(str)
    if labels.dtype.kind in "iub":
        return text
    values = text.tolist()
    if len(set(values)) == len(values) and all(_SAFE.fullmatch(s) for s in values):
        return text
    return safe_labels(values)


@njit(cache=True, nogil=True)
def _group_names(buffer, offsets, prefix, comma, close, firsts, shape):
    """The names of one group's entries in row-major order, ``prefix label,label close`` (label ``i`` of
    dimension ``d`` is piece ``firsts[d] + i`` of the pool ``buffer``, ``offsets``): their bytes end to end
    and their lengths."""
    ndim = shape.shape[0]
    n = 1
    for d in range(ndim):
        n *= shape[d]
    index = np.zeros(ndim, np.int64)
    lengths = np.empty(n, np.int64)
    fixed = offsets[prefix + 1] - offsets[prefix] + offsets[close + 1] - offsets[close]
    fixed += max(ndim - 1, 0) * (offsets[comma + 1] - offsets[comma])
    for i in range(n):                              # lengths, then the bytes: the index walks row-major twice
        length = fixed
        for d in range(ndim):
            length += offsets[firsts[d] + index[d] + 1] - offsets[firsts[d] + index[d]]
        lengths[i] = length
        d = ndim - 1
        while d >= 0:
            index[d] += 1
            if index[d] < shape[d]:
                break
            index[d] = 0
            d -= 1
    out = np.empty(lengths.sum() + SLACK, np.uint8)
    pos = 0
    for i in range(n):
        pos = copy_piece(buffer, offsets, prefix, out, pos)
        for d in range(ndim):
            pos = copy_piece(buffer, offsets, firsts[d] + index[d], out, pos)
            pos = copy_piece(buffer, offsets, close if d == ndim - 1 else comma, out, pos)
        if ndim == 0:
            pos = copy_piece(buffer, offsets, close, out, pos)
        d = ndim - 1
        while d >= 0:
            index[d] += 1
            if index[d] < shape[d]:
                break
            index[d] = 0
            d -= 1
    return out[:pos], lengths


def names(f, *group_lists) -> list[tuple[np.ndarray, np.ndarray]]:
    """``" group(label,label)"`` (with its leading space) for every entry of each list of groups (variable or
    constraint groups of ``f``, in order), copied from the file labels of their index sets by a compiled pass
    (:func:`_group_names`): a (buffer, lengths) per list. Each set's labels are made safe once.

    The same names as :meth:`~optitrees.mip.Formulation.column_names` / ``row_names`` when the labels are safe.
    """
    labels = Pool()
    set_first = {name: labels.add_strings(file_labels(values).tolist()) for name, values in f.sets.items()}
    comma, close = labels.literal(","), labels.literal(")")
    prefix = {g.name: labels.literal(f" {g.name}(") for groups in group_lists for g in groups}
    labels.finish()
    out = []
    for groups in group_lists:
        parts = [_group_names(labels.buffer, labels.offsets, prefix[g.name], comma, close,
                              np.array([set_first[d] for d in g.dims], np.int64), np.array(g.shape, np.int64))
                 for g in groups]
        out.append((np.concatenate([np.zeros(0, np.uint8)] + [b for b, _ in parts]),
                    np.concatenate([np.zeros(0, np.int64)] + [n for _, n in parts])))
    return out


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value's code into the distinct doubles, and those doubles (bit patterns: -0.0 stays apart from
    0.0, and hashing int64 is faster than float64)."""
    codes, distinct = pd.factorize(np.ascontiguousarray(values, np.float64).view(np.int64), sort=False)
    return codes.astype(np.int64), distinct.view(np.float64)


def _digits(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shortest round-trip text of ``values`` (polars' formatter, 4x Arrow's speed here: each reads back as
    the same double): the strings' bytes and offsets."""
    if len(values) == 0:
        return np.zeros(0, np.uint8), np.zeros(1, np.int64)
    text = pl.Series(values).cast(pl.String).to_arrow(compat_level=pl.CompatLevel.oldest())
    if isinstance(text, pa.ChunkedArray):
        text = text.combine_chunks()
    text = text.cast(pa.large_string())
    _, offsets, characters = text.buffers()
    offsets = np.frombuffer(offsets, np.int64, len(values) + 1, offset=text.offset * 8)
    return np.frombuffer(characters, np.uint8, offsets[-1] - offsets[0], offset=offsets[0]), offsets - offsets[0]


def _in_slices(fn, values: np.ndarray) -> list:
    """``fn`` on up to ``_THREADS`` slices of ``values`` at once (pandas' hashing and polars' formatting
    release the GIL)."""
    slices = np.array_split(values, min(_THREADS, max(1, len(values) // _PER_THREAD)))
    if len(slices) == 1:
        return [fn(slices[0])]
    with ThreadPoolExecutor(len(slices)) as threads:
        return list(threads.map(fn, slices))


class Numbers:
    """The numbers a file prints outside the matrix (costs, bounds, right-hand sides), formatted once each.

    Arrays are registered with :meth:`add`; :meth:`finish` formats their distinct values (:func:`_digits`)
    into the pool and returns each array's piece ids. With ``terms=True`` a number is written as an ``.lp``
    term's coefficient, ``" + 0.5"`` / ``" - 0.5"``; otherwise as ``" -0.5"``.
    """

    def __init__(self, terms: bool = False):
        self.terms = terms
        self._arrays = []

    def add(self, values) -> None:
        self._arrays.append(np.asarray(values, float).ravel())

    def finish(self, pool: Pool) -> list[np.ndarray]:
        sizes = [len(a) for a in self._arrays]
        values = np.concatenate(self._arrays) if self._arrays else np.zeros(0)
        self._arrays = []
        # a value met in two slices is formatted twice, which costs a few bytes of pool
        ids = [codes + pool.add(buffer, lengths) for codes, buffer, lengths in _in_slices(self._format, values)]
        return np.split(np.concatenate(ids), np.cumsum(sizes)[:-1])

    def _format(self, values: np.ndarray):
        """(codes into the distinct values, their text with its prefix: buffer, lengths)."""
        codes, distinct = _distinct(values)
        characters, offsets = _digits(np.abs(distinct) if self.terms else distinct)
        text = Pool()
        prefix = text.add_strings([" + ", " - "] if self.terms else [" "])
        first_digits = text.add(characters, np.diff(offsets))
        text.finish()
        rows = lines(len(distinct), prefix + (np.signbit(distinct) if self.terms else 0),
                     first_digits + np.arange(len(distinct)))
        return codes, *text.joined(rows)


class CoefficientTable:
    """The matrix's coefficients as text for the compiled passes: ``buffer`` / ``offsets`` hold the digits
    (no prefix: the passes write the separator or sign), ``ids`` each coefficient's string, or ``None`` when
    string ``k`` is coefficient ``k``.

    Each distinct double is formatted once (:func:`_digits`) unless a sample of the coefficients is mostly
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
                return None, *_digits(v)
            codes, distinct = _distinct(v)
            return codes, *_digits(distinct)

        parts = _in_slices(text, values)
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


class Writer:
    """Writes pieces to ``handle``: fills one of two buffers while a second thread writes the other (the
    compiled passes release the GIL, so filling and writing overlap). A context manager: leaving it waits for
    the last write."""

    def __init__(self, handle):
        self.handle = handle
        self.pool: Pool | None = None           # set by the section writer once its pool is finished
        self._buffers = [np.empty(_BUFFER_BYTES, np.uint8), np.empty(_BUFFER_BYTES, np.uint8)]
        self._executor = ThreadPoolExecutor(1)
        self._pending = None

    def _flush(self, used: int) -> None:
        if self._pending is not None:
            self._pending.result()
        self._pending = self._executor.submit(self.handle.write, memoryview(self._buffers[0][:used]))
        self._buffers.reverse()

    def _grow(self, need: int) -> None:
        if self._pending is not None:
            self._pending.result()
            self._pending = None
        size = max(2 * len(self._buffers[0]), need + SLACK)
        self._buffers = [np.empty(size, np.uint8), np.empty(size, np.uint8)]

    def emit(self, pieces) -> None:
        """Write ``pieces`` (piece ids; a 2-D array is read line by line)."""
        pieces = np.ascontiguousarray(pieces, np.int64).ravel()
        k = 0
        while k < len(pieces):
            done, used = _gather(self.pool.buffer, self.pool.offsets, pieces[k:], self._buffers[0])
            if done == 0:
                self._grow(int(self.pool.lengths([pieces[k]])[0]))
                continue
            self._flush(used)
            k += done

    def run(self, step, start: int, stop: int) -> None:
        """Write items ``start`` to ``stop`` with a compiled pass ``step(out, item, stop) -> (next item, bytes,
        need)`` that stops before an item that might not fit (``need``: the bytes that item may take)."""
        while start < stop:
            start, used, need = step(self._buffers[0], start, stop)
            if used == 0 and need:
                self._grow(need)
                continue
            self._flush(used)

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        try:
            if self._pending is not None:
                self._pending.result()
        finally:
            self._executor.shutdown()
