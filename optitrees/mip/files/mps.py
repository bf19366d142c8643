"""Free-format MPS from a formulation's arrays.

Sections: ``ROWS`` (the objective row ``obj`` first), ``COLUMNS`` (two entries a
line, a column's objective entry first, integer columns between ``INTORG`` /
``INTEND`` markers; a column in no row and not in the objective gets a zero
objective entry so that it is declared), ``RHS`` (the objective row's right-hand
side is ``-offset``), ``RANGES``, ``BOUNDS`` (every integer column's bounds
explicit, ``BV`` for binaries, ``LI`` / ``UI`` otherwise), ``QUADOBJ`` (``2 q``:
the objective's quadratic part is read as ``1/2 x'Qx``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .coefficients import coefficient_blocks
from .numbers import Numbers
from .pieces import SLACK, Pool, Writer, copy_piece, lines

__all__ = ["write_mps"]


@njit(cache=True, nogil=True)
def _columns(buffer, offsets, longest, digits, digit_offsets, digit_ids, base, out, j, stop, col_name,
             objective_value, integer, indptr, indices, row_first, pieces):
    """``COLUMNS`` lines from column ``j`` on: ``" col row value[ row value]"``; ``objective_value[j] >= 0``
    is the piece of column ``j``'s objective entry, written first.

    Names and keywords are pieces of the pool (``buffer``, ``offsets``); the digits of coefficient ``k`` of
    column ``j`` are string ``u = base[j] + k - indptr[j]`` of (``digits``, ``digit_offsets``), through
    ``digit_ids[u]`` unless ``digit_ids`` is empty (see :func:`~optitrees.mip.files.coefficients.coefficient_blocks`);
    ``longest``: the longest string of either. Writes columns up to ``stop``.
    ``pieces``: the ids of ``"\\n"``, ``" obj"``, ``" "`` and the two marker lines. Stops before a column that
    might not fit in ``out``; returns the next column, the bytes written and, when that is nothing, the bytes
    the column may need.
    """
    nl, objective, space, start_marker, end_marker = pieces[0], pieces[1], pieces[2], pieces[3], pieces[4]
    by_id = digit_ids.shape[0] > 0
    pos = 0
    while j < stop:
        has_objective = objective_value[j] >= 0
        n_entries = indptr[j + 1] - indptr[j] + (1 if has_objective else 0)
        need = (3 * n_entries + 2) * longest            # each entry three strings, each half-line one more
        if pos + need + SLACK > out.shape[0]:
            return j, pos, need
        if integer[j] and (j == 0 or not integer[j - 1]):
            pos = copy_piece(buffer, offsets, start_marker, out, pos)
        elif not integer[j] and j > 0 and integer[j - 1]:
            pos = copy_piece(buffer, offsets, end_marker, out, pos)
        for t in range(n_entries):
            if t % 2 == 0:
                pos = copy_piece(buffer, offsets, col_name[j], out, pos)
            if has_objective and t == 0:
                pos = copy_piece(buffer, offsets, objective, out, pos)
                pos = copy_piece(buffer, offsets, objective_value[j], out, pos)
            else:
                k = indptr[j] + t - (1 if has_objective else 0)
                pos = copy_piece(buffer, offsets, row_first + indices[k], out, pos)
                pos = copy_piece(buffer, offsets, space, out, pos)
                u = base[j] + k - indptr[j]
                pos = copy_piece(digits, digit_offsets, digit_ids[u] if by_id else u, out, pos)
            if t % 2 == 1 or t == n_entries - 1:
                pos = copy_piece(buffer, offsets, nl, out, pos)
        j += 1
    return j, pos, 0


def _row_kinds(lower, upper):
    """Each row's MPS type (0 E, 1 L, 2 G, 3 N), right-hand side and range (``upper - lower`` for ranged rows).

    A ranged row is written G at its lower bound, unless ``lower + range`` misses ``upper`` in floating point
    and ``upper - range`` hits ``lower`` exactly: then L at its upper bound, so the bounds read back exactly."""
    equal = lower == upper
    has_lo, has_up = np.isfinite(lower), np.isfinite(upper)
    ranged = has_lo & has_up & ~equal
    width = np.where(ranged, upper - lower, 0.0)
    as_less = ranged & (lower + width != upper) & (upper - width == lower)
    kind = np.where(equal, 0, np.where(has_lo & ~as_less, 2, np.where(has_up, 1, 3)))
    rhs = np.where(kind == 1, upper, np.where(kind == 3, 0.0, lower))
    return kind, rhs, ranged, width


def write_mps(model, pool: Pool, out: Writer) -> None:
    """Write ``model`` (a :class:`~optitrees.mip.files.FileModel`, its names in ``pool``) to ``out``."""
    f = model.f
    lo, up, integer, q = model.col_lower, model.col_upper, model.integer, model.quadratic
    kind, rhs, ranged, width = _row_kinds(model.row_lower, model.row_upper)
    csc = model.A.tocsc()
    csc.sort_indices()
    tables = coefficient_blocks(csc.data, csc.indptr[:-1], csc.indptr[1:])     # begun now, by another thread
    objective_entry = (model.cost != 0) | (np.diff(csc.indptr) == 0)
    with_rhs = (rhs != 0) & (kind != 3)
    finite_lo, finite_up = np.isfinite(lo), np.isfinite(up)

    numbers = Numbers()
    for values in (model.cost[objective_entry], rhs[with_rhs], [-f.objective_offset], width[ranged],
                   lo[finite_lo], up[finite_up], 2.0 * q[q != 0]):
        numbers.add(values)
    lit = {k: pool.literal(v) for k, v in {
        "nl": "\n", "empty": "", "space": " ", "obj": " obj", "rhs": " RHS", "rng": " RNG",
        "head": f"NAME {f.name}\nROWS\n N obj\n", "columns": "COLUMNS\n", "rhs_section": "RHS\n",
        "ranges": "RANGES\n", "bounds": "BOUNDS\n", "quadobj": "QUADOBJ\n", "endata": "ENDATA\n",
        "org": " MARKER 'MARKER' 'INTORG'\n", "end": " MARKER 'MARKER' 'INTEND'\n"}.items()}
    row_type = pool.add_strings([" E", " L", " G", " N"])
    bound_type = pool.add_strings([f" {t} BND" for t in ("FX", "FR", "MI", "LO", "UP", "LI", "UI", "BV")])
    cost_ids, rhs_ids, offset_id, range_ids, lo_ids, up_ids, q_ids = numbers.finish(pool)
    out.pool = pool.finish()
    nl, empty = lit["nl"], lit["empty"]
    col_name = model.col_first + np.arange(model.n_cols)
    row_name = model.row_first + np.arange(model.n_rows)

    out.emit([lit["head"]])
    out.emit(lines(model.n_rows, row_type + kind, row_name, nl))
    out.emit([lit["columns"]])
    cost_at = np.full(model.n_cols, -1, np.int64)
    cost_at[objective_entry] = cost_ids
    pieces = np.array([nl, lit["obj"], lit["space"], lit["org"], lit["end"]], np.int64)
    for a, b, base, table in tables:
        longest = max(pool.longest, table.longest)
        out.run(lambda buffer, j, stop: _columns(pool.buffer, pool.offsets, longest, table.buffer, table.offsets,
                                                 table.kernel_ids, base, buffer, j, stop, col_name, cost_at,
                                                 integer, csc.indptr, csc.indices, model.row_first, pieces), a, b)
    if model.n_cols and integer[-1]:
        out.emit([lit["end"]])

    out.emit([lit["rhs_section"]])
    if f.objective_offset:
        out.emit([lit["rhs"], lit["obj"], offset_id[0], nl])
    out.emit(lines(int(with_rhs.sum()), lit["rhs"], row_name[with_rhs], rhs_ids, nl))
    if ranged.any():
        out.emit([lit["ranges"]])
        out.emit(lines(int(ranged.sum()), lit["rng"], row_name[ranged], range_ids, nl))

    lo_at = np.full(model.n_cols, empty, np.int64)
    lo_at[finite_lo] = lo_ids
    up_at = np.full(model.n_cols, empty, np.int64)
    up_at[finite_up] = up_ids
    no_value = np.full(model.n_cols, empty, np.int64)
    fx, fr, mi, lo_t, up_t, li, ui, bv = range(8)
    fixed = finite_lo & (lo == up)
    binary = integer & (lo == 0) & (up == 1) & ~fixed
    free = ~finite_lo & ~finite_up
    rest = ~fixed & ~binary & ~free
    # (columns, 0 for a lower-side line 1 for an upper-side one, bound type, value piece per column)
    parts = [(fixed, 0, fx, lo_at), (binary, 0, bv, no_value), (free, 0, fr, no_value),
             (rest & ~finite_lo, 0, mi, no_value), (rest & finite_lo & integer, 0, li, lo_at),
             (rest & finite_lo & ~integer & ((lo != 0) | (finite_up & (up < 0))), 0, lo_t, lo_at),
             (rest & finite_up & integer, 1, ui, up_at), (rest & finite_up & ~integer, 1, up_t, up_at)]
    cols = [np.flatnonzero(mask) for mask, *_ in parts]
    order = np.argsort(np.concatenate([2 * c + side for c, (_, side, _, _) in zip(cols, parts)]), kind="stable")
    bounds = np.concatenate([lines(len(c), bound_type + t, col_name[c], value[c], nl)
                             for c, (_, _, t, value) in zip(cols, parts)])
    out.emit([lit["bounds"]])
    out.emit(bounds[order])
    if len(q_ids):
        out.emit([lit["quadobj"]])
        cols = np.flatnonzero(q != 0)
        out.emit(lines(len(cols), col_name[cols], col_name[cols], q_ids, nl))
    out.emit([lit["endata"]])
