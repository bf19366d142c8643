"""What a certificate proves when the fit narrowed the problem itself.

A fit may restrict the problem the user posed before its MIP (or exact search) runs: a tree-wide feature budget
keeps the first features of the l1-logistic path and forbids the others (``max_total_features``, a number or
``"auto"``), a per-split budget is chosen on held-out folds (``max_features="auto"``). A proof is then a proof
among the trees of the narrowed problem only: a tree on other features may be better. :func:`restriction_of` says
in words what was narrowed; the report's outcome is then
:attr:`~optitrees.estimators.FitOutcome.PROVEN_RESTRICTED`, its ``certified_by`` and its text name the restricted
problem, and an unqualified "proven optimal" is kept for the problem the user posed.
"""

from __future__ import annotations

import numpy as np

from .._report import FitOutcome

__all__ = ["restriction_of", "claimed_outcome", "certificate"]


def _names(problem) -> list[str]:
    names = getattr(problem.data, "feature_names", None)
    return [str(n) for n in names] if names is not None else [f"x{j}" for j in range(problem.data.n_features)]


def restriction_of(posed, solved) -> str | None:
    """The restriction ``solved`` (the problem the fit's MIP or exact search solves) puts on ``posed`` (the
    problem of the user's parameters), in words, or ``None`` when it is the same problem: ``"trees on features
    {a, b}"`` when the fit forbade features beyond the user's ``forbidden_features``, ``"at most 2 features per
    split"`` when it chose a per-split budget."""
    parts = []
    before, after = set(getattr(posed.spec, "forbidden", ())), set(getattr(solved.spec, "forbidden", ()))
    if after - before:
        kept = [name for j, name in enumerate(_names(solved)) if j not in after]
        parts.append("trees on features {" + ", ".join(kept) + "}")
    for name in ("budget", "max_features"):
        chosen, asked = getattr(solved.spec, name, None), getattr(posed.spec, name, None)
        if chosen is not None and (asked is None or not np.array_equal(np.asarray(asked), np.asarray(chosen))):
            values = sorted({int(v) for v in np.atleast_1d(chosen)})
            parts.append(f"at most {'/'.join(map(str, values))} features per split (chosen in the fit)")
    return "; ".join(parts) or None


def claimed_outcome(proven: bool, restriction: str | None) -> FitOutcome:
    """What a fit may claim: proven optimal (the user's problem), proven in the restricted problem, or not proven."""
    if not proven:
        return FitOutcome.NOT_PROVEN
    return FitOutcome.PROVEN_OPTIMAL if restriction is None else FitOutcome.PROVEN_RESTRICTED


def certificate(source: str | None, restriction: str | None) -> str | None:
    """``certified_by`` naming the restricted problem: ``"highs, among trees on features {a, b}"``."""
    if source is None or restriction is None:
        return source
    return f"{source}, among {restriction}"
