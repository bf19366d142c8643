"""The pieces a model file is made of, the compiled copy that puts them out, and the writer.

A file is a sequence of *pieces*: byte strings held once in a :class:`Pool`
(keywords, the column and row names of :mod:`~optitrees.mip.files.names`, the
numbers of :mod:`~optitrees.mip.files.numbers`) and addressed by integer id.
Sections are arrays of piece ids made with numpy (:func:`lines`), or, for the two
sections with one entry per nonzero, walked by a compiled pass over the sparse
matrix (:mod:`~optitrees.mip.files.mps`, :mod:`~optitrees.mip.files.lp`) that
reads the coefficients' digits from :mod:`~optitrees.mip.files.coefficients`.
Pieces are copied in unaligned moves of 16 bytes (:func:`copy_piece`). A
:class:`Writer` fills one buffer while a second thread writes the other. Names
and the numbers of the pool carry their leading space, so a line is a few pieces.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["SLACK", "Pool", "Writer", "lines", "copy_piece"]

_BUFFER_BYTES = 1 << 23
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
