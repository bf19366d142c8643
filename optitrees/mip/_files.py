"""Write a :class:`~optitrees.mip.Formulation` to ``.mps`` (free MPS) or ``.lp`` (CPLEX LP) straight from its arrays.

Every line of a section is laid out in fixed-width fields (names and numbers
padded with spaces, which both formats read as one separator), so a whole
section is a byte matrix gathered from small tables by numpy indexing: the
names of the rows and columns, and each distinct coefficient written once
(Python's shortest round-trip ``repr``, so the file holds the model's exact
values). No Python loop runs over the nonzeros.

The files are the ones HiGHS writes, in content: in ``.lp`` a row with two
finite, different bounds becomes two rows ``name_lo`` / ``name_up`` (the LP
format has no ranges; HiGHS's writer does the same), in ``.mps`` it is one row
with a ``RANGES`` entry; the objective's constant is written (``RHS`` of the
objective row in ``.mps``, a constant term in ``.lp``), and a diagonal
quadratic objective ``sum q_k x_k**2`` as ``QUADOBJ`` / ``[ 2 q_k x_k ^ 2 ] / 2``.
A row with no finite bound is written as ``>= -1e+30`` (read back as free).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["write", "write_mps", "write_lp"]

#: Rows of a section gathered and written at a time (bounds the buffer: about 80 bytes a line).
_CHUNK = 1 << 20
_INFINITY = b"1e+30"
_SPACE, _NEWLINE = 32, 10


def _table(strings) -> np.ndarray:
    """Byte strings as a ``(n, width)`` ``uint8`` table padded with spaces."""
    a = np.array(list(strings), dtype=np.bytes_)
    if a.size == 0:
        return np.zeros((0, 1), np.uint8)
    t = a.view(np.uint8).reshape(len(a), a.dtype.itemsize).copy()
    t[t == 0] = _SPACE
    return t


def _names(names) -> np.ndarray:
    return _table(n.encode() for n in names)


def _numbers(values) -> tuple[np.ndarray, np.ndarray]:
    """``(table, index)``: each distinct value's shortest round-trip text once, and each value's row in it."""
    values = np.asarray(values, float)
    distinct, index = np.unique(values, return_inverse=True)
    return _table(repr(v).encode() for v in distinct.tolist()), index.ravel()


def _constant(text: bytes) -> np.ndarray:
    return np.frombuffer(text, np.uint8).reshape(1, -1)


def _write_lines(out, count: int, fields) -> None:
    """Write ``count`` lines, each the fields side by side and a newline. A field is a constant ``bytes`` or
    ``(table, index)``: the table's row ``index[k]`` in line ``k``."""
    parts = [(_constant(f), None) if isinstance(f, bytes) else f for f in fields]
    width = sum(t.shape[1] for t, _ in parts) + 1
    for lo in range(0, count, _CHUNK):
        hi = min(count, lo + _CHUNK)
        buf = np.empty((hi - lo, width), np.uint8)
        col = 0
        for table, index in parts:
            w = table.shape[1]
            buf[:, col:col + w] = table if index is None else table[index[lo:hi]]
            col += w
        buf[:, -1] = _NEWLINE
        out.write(buf.tobytes())


def _row_senses(lower, upper):
    """Per row: ``(equal, has_lower, has_upper)`` masks."""
    has_lo, has_up = np.isfinite(lower), np.isfinite(upper)
    equal = has_lo & has_up & (lower == upper)
    return equal, has_lo & ~equal, has_up & ~equal


def write(f, path) -> Path:
    """Write ``f`` to ``.lp`` or ``.mps`` (by extension) with readable names (module docstring).

    Quadratic objectives are written too, so the file can be solved by an MIQP solver.

    Raises
    ------
    ValueError
        The extension is neither ``.lp`` nor ``.mps``.
    OSError
        The file cannot be created (missing directory, a directory, no permission).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".lp", ".mps"):
        raise ValueError(f"unsupported file type {path.suffix!r} for {path}; use .lp or .mps")
    _check_writable(path)
    with open(path, "wb") as out:
        (write_lp if suffix == ".lp" else write_mps)(f, out)
    return path


def _check_writable(path: Path) -> None:
    """Raise an ``OSError`` naming ``path`` unless a file can be created there."""
    if path.is_dir():
        raise IsADirectoryError(f"cannot write the model to {path}: it is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot write the model to {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"cannot write the model to {path}: directory {parent} is not writable")


# ------------------------------------------------------------------ MPS
def write_mps(f, out) -> None:
    """Write ``f`` as free MPS to the binary stream ``out``."""
    A = f.matrix
    n_rows, n_cols = A.shape
    rl, ru, cost = f.row_lower, f.row_upper, f.cost
    rows, cols = _names(f.row_names()), _names(f.column_names())
    objective = _names(["obj"])
    out.write(f"NAME {f.name}\nROWS\n N  obj\n".encode())
    equal, has_lo, has_up = _row_senses(rl, ru)
    kind = np.where(equal, 0, np.where(has_lo, 1, np.where(has_up, 2, 1)))    # E, G (or free), L
    _write_lines(out, n_rows, [b" ", (_table([b"E", b"G", b"L"]), kind), b"  ", (rows, np.arange(n_rows))])

    # COLUMNS: the objective as row -1 of each column, then the column's rows, column by column
    out.write(b"COLUMNS\n")
    M = _with_objective_row(A, cost)
    entry_col = np.repeat(np.arange(n_cols), np.diff(M.indptr))
    names = _pad_pair(objective, rows)
    values, index = _numbers(M.data)
    integer = f.integrality
    # runs of columns with the same integrality, integer runs between MARKER lines
    change = np.flatnonzero(np.diff(integer.astype(np.int8))) + 1
    bounds = np.r_[0, change, n_cols]
    marker = 0
    for a, b in zip(bounds[:-1], bounds[1:]):
        lo, hi = M.indptr[a], M.indptr[b]
        if integer[a]:
            out.write(f"    MARKER{marker:04d} 'MARKER' 'INTORG'\n".encode())
        _write_lines(out, hi - lo, [b"    ", (cols, entry_col[lo:hi]), b" ", (names, M.indices[lo:hi]), b" ",
                                    (values, index[lo:hi])])
        if integer[a]:
            out.write(f"    MARKER{marker:04d} 'MARKER' 'INTEND'\n".encode())
            marker += 1

    # RHS: E and G rows their lower bound, L rows their upper, free rows -1e30; the objective's constant
    out.write(b"RHS\n")
    rhs = np.where(equal | has_lo, rl, np.where(has_up, ru, -1e30))
    nz = np.flatnonzero(rhs != 0)
    values, index = _numbers(rhs[nz])
    _write_lines(out, len(nz), [b"    RHS ", (rows, nz), b" ", (values, index)])
    if f.objective_offset != 0:
        out.write(f"    RHS obj {-float(f.objective_offset)!r}\n".encode())
    ranged = np.flatnonzero(has_lo & np.isfinite(ru))
    if ranged.size:
        out.write(b"RANGES\n")
        values, index = _numbers(ru[ranged] - rl[ranged])
        _write_lines(out, len(ranged), [b"    RNG ", (rows, ranged), b" ", (values, index)])
    _write_mps_bounds(out, f, cols, integer)
    q = f.quadratic
    qz = np.flatnonzero(q)
    if qz.size:                                     # 1/2 x'Qx with Q_kk = 2 q_k
        out.write(b"QUADOBJ\n")
        values, index = _numbers(2.0 * q[qz])
        _write_lines(out, len(qz), [b"    ", (cols, qz), b" ", (cols, qz), b" ", (values, index)])
    out.write(b"ENDATA\n")


def _with_objective_row(A, cost):
    """``[cost; A]`` as CSC with sorted rows, the objective entry kept as an explicit ``0`` in a column with no
    other entry (a column MPS would otherwise not declare)."""
    C = A.tocsc()
    C.sort_indices()
    counts = np.diff(C.indptr)
    head = (cost != 0) | (counts == 0)                              # columns with an objective entry
    new_counts = counts + head
    indptr = np.r_[0, np.cumsum(new_counts)]
    data = np.empty(indptr[-1])
    indices = np.empty(indptr[-1], np.int64)
    first = indptr[:-1][head]                                       # the objective entry leads its column
    data[first], indices[first] = cost[head], 0
    rest = np.ones(indptr[-1], bool)
    rest[first] = False
    data[rest], indices[rest] = C.data, C.indices + 1
    return sp.csc_matrix((data, indices, indptr), shape=(A.shape[0] + 1, A.shape[1]))


def _pad_to(table, width):
    return np.pad(table, ((0, 0), (0, max(0, width - table.shape[1]))), constant_values=_SPACE)


def _pad_pair(first, rest):
    """``first`` stacked on ``rest``, both padded to the wider one."""
    width = max(first.shape[1], rest.shape[1])
    return np.vstack([_pad_to(first, width), _pad_to(rest, width)])


def _write_mps_bounds(out, f, cols, integer):
    """``BOUNDS``: binaries ``BV``, fixed ``FX``, free ``FR``; otherwise ``LO`` / ``MI`` and ``UP`` / ``PL``,
    written explicitly unless they are MPS's default ``[0, inf)`` for a continuous column."""
    lo, up = f.col_lower, f.col_upper
    binary = integer & (lo == 0) & (up == 1)
    fixed = ~binary & (lo == up)
    free = ~binary & ~fixed & np.isneginf(lo) & np.isposinf(up)
    default = ~integer & (lo == 0) & np.isposinf(up)
    rest = ~(binary | fixed | free | default)
    out.write(b"BOUNDS\n")
    for mask, key in ((binary, b" BV BND "), (free, b" FR BND ")):
        k = np.flatnonzero(mask)
        _write_lines(out, len(k), [key, (cols, k)])
    k = np.flatnonzero(fixed)
    values, index = _numbers(lo[k])
    _write_lines(out, len(k), [b" FX BND ", (cols, k), b" ", (values, index)])
    k = np.flatnonzero(rest)
    lower_finite = np.isfinite(lo[k])
    a = k[lower_finite]
    values, index = _numbers(lo[a])
    _write_lines(out, len(a), [b" LO BND ", (cols, a), b" ", (values, index)])
    _write_lines(out, int((~lower_finite).sum()), [b" MI BND ", (cols, k[~lower_finite])])
    upper_finite = np.isfinite(up[k])
    a = k[upper_finite]
    values, index = _numbers(up[a])
    _write_lines(out, len(a), [b" UP BND ", (cols, a), b" ", (values, index)])
    _write_lines(out, int((~upper_finite).sum()), [b" PL BND ", (cols, k[~upper_finite])])


# ------------------------------------------------------------------- LP
def write_lp(f, out) -> None:
    """Write ``f`` in CPLEX LP format to the binary stream ``out``."""
    A = f.matrix
    n_rows, n_cols = A.shape
    rl, ru = f.row_lower, f.row_upper
    cols = _names(f.column_names())
    row_names = np.array(f.row_names(), dtype=object)
    out.write(f"\\ {f.name}\nminimize\n obj:\n".encode())
    cost = f.cost
    nz = np.flatnonzero((cost != 0) | (np.diff(A.tocsc().indptr) == 0))  # a column in no row: named with 0 here
    _write_terms(out, cols, nz, cost[nz])
    if f.objective_offset != 0 or nz.size == 0:
        out.write(f" {_signed(float(f.objective_offset))}\n".encode())
    q = f.quadratic
    qz = np.flatnonzero(q)
    if qz.size:
        out.write(b" + [\n")
        _write_terms(out, cols, qz, 2.0 * q[qz], suffix=b" ^ 2")
        out.write(b" ] / 2\n")
    out.write(b"subject to\n")
    equal, has_lo, has_up = _row_senses(rl, ru)
    ranged = has_lo & has_up
    # each row once per sense it is written with: a ranged row twice, as name_lo (>=) and name_up (<=)
    select = [(equal, b"=", rl, ""), (has_lo & ~has_up, b">=", rl, ""), (has_up & ~has_lo, b"<=", ru, ""),
              (~(equal | has_lo | has_up), b">=", np.full(n_rows, -1e30), ""),
              (ranged, b">=", rl, "_lo"), (ranged, b"<=", ru, "_up")]
    for mask, sense, rhs, suffix in select:
        r = np.flatnonzero(mask)
        if r.size:
            _write_rows(out, A, cols, r, [n + suffix for n in row_names[r].tolist()], sense, rhs[r])
    _write_lp_bounds(out, f, cols)
    out.write(b"end\n")


def _signed(v: float) -> str:
    return repr(v) if v < 0 else "+" + repr(v)


def _write_terms(out, cols, index, coefs, suffix=b""):
    """One line ``+c name`` per term."""
    values, which = _signed_numbers(coefs)
    _write_lines(out, len(index), [b" ", (values, which), b" ", (cols, index)] + ([suffix] if suffix else []))


def _signed_numbers(values):
    """``(table, index)`` of ``+c`` / ``-c`` texts."""
    distinct, index = np.unique(np.asarray(values, float), return_inverse=True)
    return _table(_signed(v).encode() for v in distinct.tolist()), index.ravel()


def _write_rows(out, A, cols, r, names, sense, rhs):
    """Rows ``r`` of ``A``: for each, a line ``name:``, a line per term and a line ``sense rhs``, all gathered
    into one fixed-width line matrix (the three kinds padded to one width)."""
    sub = A[r]
    counts = np.diff(sub.indptr)
    if (counts == 0).any():                         # an empty row: one term 0 x_0, since LP needs an expression
        sub = _with_zero_terms(sub, counts)
        counts = np.diff(sub.indptr)
    heads = _table(f" {n}:".encode() for n in names)
    terms_values, terms_index = _signed_numbers(sub.data)
    rhs_values, rhs_index = _signed_numbers(rhs)
    sense_table = _constant(b" " + sense + b" ")
    term_width = terms_values.shape[1] + cols.shape[1] + 2
    tail_width = sense_table.shape[1] + rhs_values.shape[1]
    width = max(heads.shape[1], term_width, tail_width)
    # line numbers: row k's head at start[k], its terms after it, its sense line after them
    start = np.r_[0, np.cumsum(counts + 2)[:-1]]
    total = int(counts.sum()) + 2 * len(r)
    kind = np.ones(total, np.int8)                      # 0 head, 1 term, 2 sense
    kind[start] = 0
    kind[start + counts + 1] = 2
    term_line = np.flatnonzero(kind == 1)
    for lo in range(0, total, _CHUNK):
        hi = min(total, lo + _CHUNK)
        buf = np.full((hi - lo, width + 1), _SPACE, np.uint8)
        buf[:, -1] = _NEWLINE
        k = kind[lo:hi]
        rows_here = np.flatnonzero(k == 0)
        head_of = np.searchsorted(start, lo + rows_here)
        buf[rows_here, :heads.shape[1]] = heads[head_of]
        tails = np.flatnonzero(k == 2)
        tail_of = np.searchsorted(start, lo + tails, side="right") - 1
        w = sense_table.shape[1]
        buf[tails, :w] = sense_table
        buf[tails, w:w + rhs_values.shape[1]] = rhs_values[rhs_index[tail_of]]
        # terms: the j-th term line overall is nonzero j of the sub-matrix
        t_lo, t_hi = np.searchsorted(term_line, [lo, hi])
        lines = term_line[t_lo:t_hi] - lo
        entries = np.arange(t_lo, t_hi)
        buf[lines, 1:1 + terms_values.shape[1]] = terms_values[terms_index[entries]]
        c0 = 2 + terms_values.shape[1]
        buf[lines, c0:c0 + cols.shape[1]] = cols[sub.indices[entries]]
        out.write(buf.tobytes())


def _with_zero_terms(sub, counts):
    """``sub`` with an explicit ``0`` at column 0 in each empty row (kept: built from the arrays directly)."""
    empty = counts == 0
    data, indices = np.split(sub.data, sub.indptr[1:-1]), np.split(sub.indices, sub.indptr[1:-1])
    for k in np.flatnonzero(empty):
        data[k], indices[k] = np.zeros(1), np.zeros(1, sub.indices.dtype)
    indptr = np.r_[0, np.cumsum(np.maximum(counts, 1))]
    return sp.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr), shape=sub.shape)


def _write_lp_bounds(out, f, cols):
    """``bounds`` (every column not at LP's default ``[0, inf)``: ``free``, ``= v``, ``lo <= x <= up``,
    ``-inf <= x <= up``, ``x >= lo``), then ``general`` and ``binary``."""
    lo, up, integer = f.col_lower, f.col_upper, f.integrality
    binary = integer & (lo == 0) & (up == 1)
    out.write(b"bounds\n")
    free = np.isneginf(lo) & np.isposinf(up)
    k = np.flatnonzero(free)
    _write_lines(out, len(k), [b" ", (cols, k), b" free"])
    fixed = ~binary & (lo == up)
    k = np.flatnonzero(fixed)
    values, index = _numbers(lo[k])
    _write_lines(out, len(k), [b" ", (cols, k), b" = ", (values, index)])
    both = ~binary & ~fixed & ~free & np.isfinite(up)
    k = np.flatnonzero(both)
    lv, li = _numbers(lo[k])                                     # repr(-inf) is "-inf", which LP reads
    uv, ui = _numbers(up[k])
    _write_lines(out, len(k), [b" ", (lv, li), b" <= ", (cols, k), b" <= ", (uv, ui)])
    only_lower = ~binary & ~fixed & ~free & ~both & (lo != 0)
    k = np.flatnonzero(only_lower)
    values, index = _numbers(lo[k])
    _write_lines(out, len(k), [b" ", (cols, k), b" >= ", (values, index)])
    for mask, head in ((integer & ~binary, b"general\n"), (binary, b"binary\n")):
        k = np.flatnonzero(mask)
        if k.size:
            out.write(head)
            _write_lines(out, len(k), [b" ", (cols, k)])
