"""A formulation in a few lines: its size, the terms of its objective, and its groups with their equations."""

from __future__ import annotations

__all__ = ["summary", "objective_terms"]


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
