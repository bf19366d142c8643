"""Column and row names as a file writes them: ``" group(label,label)"``, with their leading space.

Each index set's labels are made safe for ``.lp`` / ``.mps`` names once
(:func:`file_labels`), and every group's names are copied from them by one
compiled pass (:func:`_group_names`), never made one Python string at a time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .labels import file_labels
from .pieces import SLACK, Pool, copy_piece

__all__ = ["file_labels", "names"]


@njit(cache=True, nogil=True)
def _next_index(index, shape):
    """Advance the multi-index ``index`` over ``shape`` in row-major order (back to zeros after the last)."""
    d = index.shape[0] - 1
    while d >= 0:
        index[d] += 1
        if index[d] < shape[d]:
            return
        index[d] = 0
        d -= 1


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
        _next_index(index, shape)
    out = np.empty(lengths.sum() + SLACK, np.uint8)
    pos = 0
    for i in range(n):
        pos = copy_piece(buffer, offsets, prefix, out, pos)
        for d in range(ndim):
            pos = copy_piece(buffer, offsets, firsts[d] + index[d], out, pos)
            pos = copy_piece(buffer, offsets, close if d == ndim - 1 else comma, out, pos)
        if ndim == 0:
            pos = copy_piece(buffer, offsets, close, out, pos)
        _next_index(index, shape)
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
