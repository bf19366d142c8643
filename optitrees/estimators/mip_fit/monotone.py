"""A fit held to ``monotonic_cst`` (:class:`~optitrees.monotonicity.MonotoneConstraint`): every start and candidate
checked and, where it is not proved monotone, repaired or left out."""

from __future__ import annotations

import numpy as np

__all__ = ["monotone_models", "monotone_keeps", "monotone_report"]


def _y01(data) -> np.ndarray:
    return (np.asarray(data.y) > 0).astype(np.int64)          # class index 1, or +1 of {-1, +1}


def monotone_models(monotone, family, problem, models: dict, finals: dict | None, log, what="start",
                    X=None) -> tuple[dict, dict | None]:
    """``(models, finals)`` each monotone: a model that is not is repaired (``monotone.repair`` on the rows ``X``,
    the problem's rows by default) and its final form remade, or left out when it cannot be; ``finals`` ``None``:
    the models are final (the user's units) already. A repair or a model left out is noted in ``log``."""
    if monotone is None:
        return models, finals
    data = problem.data
    if X is None:                 # the problem's units: its columns may be candidate rules rather than features
        X = data.X
        if family.column_features is not None:
            monotone = monotone.on_columns(family.column_features(problem))
    kept, kept_finals = {}, {} if finals is not None else None
    for name, model in models.items():
        fixed = monotone.repair(model, X, _y01(data), data.fit_weight)
        if fixed is None:
            log.note(f"the {name} {what} is not monotone and cannot be repaired: it is not returned")
            continue
        kept[name] = fixed
        if fixed is not model:
            log.note(f"the {name} {what} was not monotone; it was repaired (monotone leaf labels or weights)")
        if finals is not None:
            kept_finals[name] = finals[name] if fixed is model else family.finalize(problem, fixed)
    return kept, kept_finals


def monotone_keeps(monotone, final, problem) -> bool:
    """Whether ``final`` (the user's units) keeps ``monotone`` on the training rows' range (``True`` without one)."""
    return monotone is None or monotone.keeps(final, problem.data.X_original)


def monotone_report(monotone, model, problem) -> dict | None:
    """The report's ``monotonicity`` of ``model`` (the user's units), ``None`` without a constraint."""
    return None if monotone is None else monotone.report(model, problem.data.X_original)
