"""Numbers as a file writes them: shortest round-trip text, each distinct value formatted once.

Polars formats the doubles (:func:`shortest_digits`: each reads back as the same
double; 4x Arrow's speed here), pandas finds the distinct ones
(:func:`distinct_values`), and both run on slices in threads (:func:`in_slices`).
:class:`Numbers` holds the numbers outside the matrix (costs, bounds, right-hand
sides) as pieces of a :class:`~optitrees.mip.files.pieces.Pool`.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa

from .pieces import Pool, lines

__all__ = ["Numbers", "distinct_values", "shortest_digits", "in_slices"]

_THREADS = min(4, os.cpu_count() or 1)
_PER_THREAD = 1 << 19              # numbers a formatting thread is worth starting for


def distinct_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value's code into the distinct doubles, and those doubles (bit patterns: -0.0 stays apart from
    0.0, and hashing int64 is faster than float64)."""
    codes, distinct = pd.factorize(np.ascontiguousarray(values, np.float64).view(np.int64), sort=False)
    return codes.astype(np.int64), distinct.view(np.float64)


def shortest_digits(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def in_slices(fn, values: np.ndarray) -> list:
    """``fn`` on up to ``_THREADS`` slices of ``values`` at once (pandas' hashing and polars' formatting
    release the GIL)."""
    slices = np.array_split(values, min(_THREADS, max(1, len(values) // _PER_THREAD)))
    if len(slices) == 1:
        return [fn(slices[0])]
    with ThreadPoolExecutor(len(slices)) as threads:
        return list(threads.map(fn, slices))


class Numbers:
    """The numbers a file prints outside the matrix (costs, bounds, right-hand sides), formatted once each.

    Arrays are registered with :meth:`add`; :meth:`finish` formats their distinct values (:func:`shortest_digits`)
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
        ids = [codes + pool.add(buffer, lengths) for codes, buffer, lengths in in_slices(self._format, values)]
        return np.split(np.concatenate(ids), np.cumsum(sizes)[:-1])

    def _format(self, values: np.ndarray):
        """(codes into the distinct values, their text with its prefix: buffer, lengths)."""
        codes, distinct = distinct_values(values)
        characters, offsets = shortest_digits(np.abs(distinct) if self.terms else distinct)
        text = Pool()
        prefix = text.add_strings([" + ", " - "] if self.terms else [" "])
        first_digits = text.add(characters, np.diff(offsets))
        text.finish()
        rows = lines(len(distinct), prefix + (np.signbit(distinct) if self.terms else 0),
                     first_digits + np.arange(len(distinct)))
        return codes, *text.joined(rows)
