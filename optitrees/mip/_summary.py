"""A formulation in a few lines: its size, the terms of its objective, its groups with their equations, and a
group's first rows as mathematics."""

from __future__ import annotations

import numpy as np

from ._labels import safe_labels

__all__ = ["summary", "objective_terms", "rows_text"]


def summary(f) -> str:
    """The model's size, the objective's terms (:func:`objective_terms`), and one line per group: name, index sets,
    size, equation (a model whose matrix was not assembled counts its
    coefficients as given, duplicates not summed: the summary does not assemble it)."""
    entries = f"{f.matrix.nnz} nonzeros" if "A" in f._cache else \
        f"{sum(len(g.vals) for g in f.constraints.values())} coefficients (matrix not assembled)"
    lines = [f"{f.name}: {f.n_cols} variables "
             f"({int(f.integrality.sum())} integer), {f.n_rows} rows, {entries}"]
    lines.append(f"  obj minimize {objective_terms(f)}")
    for g in f.variables.values():
        lines.append(f"  var {g.name}[{', '.join(g.dims)}] {g.domain} x{g.size}")
    for g in f.constraints.values():
        eq = f"  ({g.equation})" if g.equation else ""
        lines.append(f"  con {g.name}[{', '.join(g.dims)}] x{g.size}{eq}")
    return "\n".join(lines)


def objective_terms(f) -> str:
    """The objective's terms by variable group: ``c * group`` (linear), ``q * group^2`` (quadratic) and the
    constant, each coefficient shown once when it is the same on every entry it is nonzero on, as a range
    otherwise, with the number of entries (MARGOT: ``1 * zeta x20 + 1 * w^2 x6``)."""
    def coefficient(values):
        lo, hi = float(values.min()), float(values.max())
        return f"{lo:.6g}" if lo == hi else f"[{lo:.6g}, {hi:.6g}]"

    terms = []
    for vector, power in ((f.cost, ""), (f.quadratic, "^2")):
        for g in f.variables.values():
            part = vector[g.start:g.start + g.size]
            nonzero = part[part != 0]
            if nonzero.size:
                terms.append(f"{coefficient(nonzero)} * {g.name}{power} x{nonzero.size}")
    if f.objective_offset:
        terms.append(f"{f.objective_offset:.6g}")
    return " + ".join(terms) or "0 (a feasibility model)"


def rows_text(f, group, max_rows: int = 5) -> str:
    """The first ``max_rows`` rows of ``group`` as mathematics: ``name[labels]: +1 w[1,age] -10 u[age] <= 0``."""
    labels = {d: safe_labels(f.sets[d]) for d in set(group.dims) | {d for g in f.variables.values()
                                                                        for d in g.dims}}
    starts = np.array([g.start for g in f.variables.values()])
    groups = list(f.variables.values())
    n = int(np.prod(group.shape, dtype=np.int64))
    lines = []
    for r in range(min(n, max_rows)):
        at = np.flatnonzero(group.rows == r)
        words = []
        for col, val in zip(group.cols[at], group.vals[at]):
            g = groups[int(np.searchsorted(starts, col, side="right")) - 1]
            index = np.unravel_index(int(col) - g.start, g.shape)
            name = f"{g.name}[{','.join(str(labels[d][i]) for d, i in zip(g.dims, index))}]" if g.dims else g.name
            words.append(f"{val:+g} {name}")
        index = np.unravel_index(r, group.shape)
        head = f"{group.name}[{','.join(str(labels[d][i]) for d, i in zip(group.dims, index))}]"
        lo, up = group.lower[r], group.upper[r]
        body = " ".join(words) or "0"
        if lo == up:
            lines.append(f"{head}: {body} = {lo:g}")
        elif np.isfinite(lo) and np.isfinite(up):
            lines.append(f"{head}: {lo:g} <= {body} <= {up:g}")
        else:
            lines.append(f"{head}: {body} " + (f"<= {up:g}" if np.isfinite(up) else f">= {lo:g}"))
    if n > max_rows:
        lines.append(f"... {n - max_rows} more rows")
    return "\n".join(lines)
