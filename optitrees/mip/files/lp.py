"""CPLEX LP from a formulation's arrays.

``Minimize`` (linear terms, a quadratic part as ``+ [ 2q x ^2 ... ] / 2``, the
constant last), ``Subject To`` (a ranged row written as two, ``name lo`` with
``>=`` and ``name up`` with ``<=``, since the format has no ranges; a row with no
coefficient as ``+ 0 x`` of the first column), ``Bounds`` (a column in no row
and not in the objective is named there too, so that it is declared),
``General`` and ``Binary``. Expressions break their line every
:data:`TERMS_PER_LINE` terms, within every reader's line limit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .coefficients import coefficient_blocks
from .numbers import Numbers
from .pieces import SLACK, Pool, Writer, copy_piece, lines

__all__ = ["write_lp", "TERMS_PER_LINE"]

TERMS_PER_LINE = 8


@njit(cache=True, nogil=True)
def _rows(buffer, offsets, longest, digits, digit_offsets, digit_ids, base, out, e, stop, rows, name_suffix,
          sense, side, row_first, col_first, indptr, indices, data, pieces):
    """``Subject To`` lines from written row ``e`` on: ``" name[suffix]: + a x - b y ... >= rhs"``.

    Row ``e`` of the file is matrix row ``rows[e]``. Names and keywords are pieces of the pool (``buffer``,
    ``offsets``); the digits of coefficient ``k`` (``|data[k]|``) of row ``e`` are string
    ``u = base[e] + k - indptr[rows[e]]`` of (``digits``, ``digit_offsets``), through ``digit_ids[u]`` unless
    ``digit_ids`` is empty; ``longest``: the longest string of either. ``pieces``: the ids of ``":"``, the line
    break, ``" + 0"``, ``"\\n"``, ``" + "`` and ``" - "``. Writes rows up to ``stop``, stopping before one that
    might not fit in ``out``; returns the next row, the bytes written and, when that is nothing, the bytes the
    row may need.
    """
    colon, line_break, zero, nl, plus, minus = pieces[0], pieces[1], pieces[2], pieces[3], pieces[4], pieces[5]
    by_id = digit_ids.shape[0] > 0
    pos = 0
    while e < stop:
        r = rows[e]
        need = (4 * (indptr[r + 1] - indptr[r]) + 9) * longest     # each term at most four strings
        if pos + need + SLACK > out.shape[0]:
            return e, pos, need
        pos = copy_piece(buffer, offsets, row_first + r, out, pos)
        pos = copy_piece(buffer, offsets, name_suffix[e], out, pos)
        pos = copy_piece(buffer, offsets, colon, out, pos)
        for k in range(indptr[r], indptr[r + 1]):
            if k > indptr[r] and (k - indptr[r]) % TERMS_PER_LINE == 0:
                pos = copy_piece(buffer, offsets, line_break, out, pos)
            pos = copy_piece(buffer, offsets, minus if data[k] < 0 else plus, out, pos)
            u = base[e] + k - indptr[r]
            pos = copy_piece(digits, digit_offsets, digit_ids[u] if by_id else u, out, pos)
            pos = copy_piece(buffer, offsets, col_first + indices[k], out, pos)
        if indptr[r + 1] == indptr[r]:
            pos = copy_piece(buffer, offsets, zero, out, pos)
            pos = copy_piece(buffer, offsets, col_first, out, pos)
        pos = copy_piece(buffer, offsets, sense[e], out, pos)
        pos = copy_piece(buffer, offsets, side[e], out, pos)
        pos = copy_piece(buffer, offsets, nl, out, pos)
        e += 1
    return e, pos, 0


def _written_rows(lower, upper):
    """The rows as written: (matrix row, sense 0 ``=`` 1 ``>=`` 2 ``<=``, right-hand side, suffix 0 none 1 ``lo``
    2 ``up``); a ranged row twice, ``>=`` its lower bound then ``<=`` its upper one. A free row is ``>= -inf``."""
    equal = lower == upper
    has_lo, has_up = np.isfinite(lower), np.isfinite(upper)
    ranged = has_lo & has_up & ~equal
    row = np.arange(len(lower))
    sense = np.where(equal, 0, np.where(has_lo | ~has_up, 1, 2))
    side = np.where(sense == 2, upper, lower)
    twice = np.flatnonzero(ranged)
    order = np.argsort(np.concatenate([row, twice]), kind="stable")
    return (np.concatenate([row, twice])[order], np.concatenate([sense, np.full(len(twice), 2)])[order],
            np.concatenate([side, upper[twice]])[order],
            np.concatenate([ranged.astype(np.int64), np.full(len(twice), 2)])[order])


def write_lp(model, pool: Pool, out: Writer) -> None:
    """Write ``model`` (a :class:`~optitrees.mip.files.FileModel`, its names in ``pool``) to ``out``."""
    f, A = model.f, model.A
    lo, up, integer, q = model.col_lower, model.col_upper, model.integer, model.quadratic
    row, sense, side, suffix = _written_rows(model.row_lower, model.row_upper)
    tables = coefficient_blocks(A.data, A.indptr[row], A.indptr[row + 1], absolute=True)   # begun now, by a thread
    cost_cols, q_cols = np.flatnonzero(model.cost), np.flatnonzero(q)
    finite_lo, finite_up = np.isfinite(lo), np.isfinite(up)
    binary = integer & (lo == 0) & (up == 1)
    fixed = finite_lo & (lo == up) & ~binary
    in_use = (np.bincount(A.indices, minlength=model.n_cols) > 0) | (model.cost != 0) | (q != 0)

    terms, values = Numbers(terms=True), Numbers()
    for v in (model.cost[cost_cols], 2.0 * q[q_cols], [f.objective_offset]):
        terms.add(v)
    for v in (np.where(np.isfinite(side), side, 0.0), np.where(finite_lo, lo, 0.0), np.where(finite_up, up, 0.0)):
        values.add(v)
    # "x ^2": SCIP's reader rejects "x ^ 2" (HiGHS, Gurobi, CPLEX read both)
    lit = {k: pool.literal(v) for k, v in {
        "nl": "\n", "empty": "", "colon": ":", "break": "\n ", "zero": " + 0", "neg_inf": " -inf",
        "head": f"\\ {f.name}, written by optitrees\nMinimize\n obj:", "quad_open": " + [", "quad_close": " ] / 2",
        "square": " ^2", "subject_to": "Subject To\n", "bounds": "Bounds\n", "general": "General\n",
        "binary": "Binary\n", "end": "End\n", "plus": " + ", "minus": " - ", "le": " <=", "ge": " >=", "eq": " =",
        "free": " free"}.items()}
    senses = pool.add_strings([" =", " >=", " <="])
    suffixes = pool.add_strings(["", "lo", "up"])
    cost_ids, q_ids, offset_id = terms.finish(pool)
    side_ids, lo_ids, up_ids = values.finish(pool)
    out.pool = pool.finish()
    col_name = model.col_first + np.arange(model.n_cols)
    side_ids = np.where(np.isfinite(side), side_ids, lit["neg_inf"])

    def expression(cols, term_ids, after=None):
        """``term name [after]`` per column, a line break before every 8th."""
        position = np.arange(len(cols))
        breaks = np.where((position % TERMS_PER_LINE == 0) & (position > 0), lit["break"], lit["empty"])
        return lines(len(cols), breaks, term_ids, col_name[cols], lit["empty"] if after is None else after)

    out.emit([lit["head"]])
    out.emit(expression(cost_cols, cost_ids))
    if len(q_cols):
        out.emit([lit["quad_open"]])
        out.emit(expression(q_cols, q_ids, lit["square"]))
        out.emit([lit["quad_close"]])
    if f.objective_offset:
        out.emit(offset_id)
    out.emit([lit["nl"], lit["subject_to"]])
    pieces = np.array([lit["colon"], lit["break"], lit["zero"], lit["nl"], lit["plus"], lit["minus"]], np.int64)
    for a, b, base, table in tables:
        longest = max(pool.longest, table.longest)
        out.run(lambda buffer, e, stop: _rows(pool.buffer, pool.offsets, longest, table.buffer, table.offsets,
                                              table.kernel_ids, base, buffer, e, stop, row, suffixes + suffix,
                                              senses + sense, side_ids, model.row_first, model.col_first, A.indptr,
                                              A.indices, A.data, pieces), a, b)

    # Bounds: " [lower <=] name (= | >= | <=) value" or " name free", in column order
    empty = lit["empty"]
    parts = [(fixed, empty, empty, lit["eq"], lo_ids),
             (~finite_lo & ~finite_up, empty, empty, lit["free"], empty),
             (~finite_lo & finite_up, lit["neg_inf"], lit["le"], lit["le"], up_ids),
             (finite_lo & finite_up & ~fixed & ~binary, lo_ids, lit["le"], lit["le"], up_ids),
             (finite_lo & ~finite_up & ((lo != 0) | ~in_use), empty, empty, lit["ge"], lo_ids)]

    def at(value, cols):
        return value[cols] if isinstance(value, np.ndarray) else value

    cols = [np.flatnonzero(mask) for mask, *_ in parts]
    bounds = np.concatenate([lines(len(c), at(first, c), relation, col_name[c], at(last_relation, c), at(value, c),
                                   lit["nl"])
                             for c, (_, first, relation, last_relation, value) in zip(cols, parts)])
    out.emit([lit["bounds"]])
    out.emit(bounds[np.argsort(np.concatenate(cols), kind="stable")])
    for section, mask in ((lit["general"], integer & ~binary), (lit["binary"], binary)):
        if mask.any():
            out.emit([section])
            out.emit(lines(int(mask.sum()), col_name[mask], lit["nl"]))
    out.emit([lit["end"]])
