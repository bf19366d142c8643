"""A fit held to ``monotonic_cst`` (:class:`~optitrees.monotonicity.MonotoneConstraint`): every start and candidate
checked and, where it is not proved monotone, repaired or left out."""

from __future__ import annotations

import numpy as np

__all__ = ["monotone_models", "monotone_keeps", "monotone_report"]


def _y01(data) -> np.ndarray:
    return (np.asarray(data.y) > 0).astype(np.int64)          # class index 1, or +1 of {-1, +1}


def _repaired(monotone, model, X, data, log, name, what):
    fixed = monotone.repair(model, X, _y01(data), data.fit_weight)
    if fixed is None:
        log.note(f"the {name} {what} is not monotone and cannot be repaired: it is not returned")
    elif fixed is not model:
        log.note(f"the {name} {what} was not monotone; it was repaired (monotone leaf labels or weights)")
    return fixed


def monotone_models(monotone, family, problem, models: dict, finals: dict | None, log,
                    what="start") -> tuple[dict, dict | None]:
    """``(models, finals)`` each monotone, or left out where it cannot be repaired (``monotone.repair``), each
    repair noted in ``log``. With ``finals`` (starts: ``models`` in the problem's units, ``finals`` the user's),
    the model is repaired on the problem's rows (so the solver gets a start its bounds allow) and its final form,
    remade from it, on the user's (finalizing may move a threshold or relabel an empty leaf); without
    (candidates), ``models`` are final and repaired on the user's rows."""
    if monotone is None:
        return models, finals
    data = problem.data
    kept, kept_finals = {}, {} if finals is not None else None
    on_columns = monotone if family.column_features is None else monotone.on_columns(family.column_features(problem))
    for name, model in models.items():
        if finals is None:
            final = _repaired(monotone, model, data.X_original, data, log, name, what)
            if final is not None:
                kept[name] = final
            continue
        fixed = _repaired(on_columns, model, data.X, data, log, name, what)
        if fixed is None:
            continue
        final = finals[name] if fixed is model else family.finalize(problem, fixed)
        final = _repaired(monotone, final, data.X_original, data, log, name, f"{what} as returned")
        if final is not None:
            kept[name], kept_finals[name] = fixed, final
    return kept, kept_finals


def monotone_keeps(monotone, final, problem) -> bool:
    """Whether ``final`` (the user's units) keeps ``monotone`` on the training rows' range (``True`` without one)."""
    return monotone is None or monotone.keeps(final, problem.data.X_original)


def monotone_report(monotone, model, problem) -> dict | None:
    """The report's ``monotonicity`` of ``model`` (the user's units), ``None`` without a constraint."""
    return None if monotone is None else monotone.report(model, problem.data.X_original)
