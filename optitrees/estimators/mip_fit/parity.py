"""A fit held to a parity notion (:class:`optitrees.fairness.GroupParity`): every start and every candidate the
fit may return is checked on the training rows, and one that does not keep the bound is repaired (a tree's leaves
relabelled, a score card's intercept moved: :meth:`~optitrees.fairness.GroupParity.repair`), so no fit returns a
model over the bound."""

from __future__ import annotations

__all__ = ["keeps", "kept", "keeps_on", "fair_starts", "fair_candidates"]


def keeps(parity, model, X) -> bool:
    """Whether ``model`` (routing the rows ``X``) keeps ``parity`` (``None``: no constraint, ``True``)."""
    return parity is None or parity.keeps(model, X)


def kept(parity, model, X, log=None, name="candidate"):
    """``model``, repaired where it does not keep ``parity``; ``log`` (a candidate's, not a start's) takes a note
    naming it when it was (a solver's tree may route a row otherwise than its MIP solution, within the solver's
    tolerances; a refinement relabels leaves by their majority or refits a card's intercept)."""
    if keeps(parity, model, X):
        return model
    if log is not None:
        log.note(f"the {name} model's disparity {parity.disparity(model, X):.4g} was over the bound {parity.bound:g} "
                 f"on the training rows; {parity.repair_text(model)} to keep it")
    return parity.repair(model, X)


def keeps_on(parity, final, problem) -> bool:
    """Whether a model in the user's units keeps ``parity`` on the training rows of ``problem`` (``True`` without
    a constraint: a refined start is then kept as it is)."""
    return parity is None or parity.keeps(final, problem.data.X_original)


def fair_candidates(parity, candidates: dict, problem, log) -> dict:
    """The fit's candidates (the user's units), each but the start (repaired already) repaired where it does not
    keep ``parity`` on the training rows, with a note in ``log``."""
    if parity is None:
        return candidates
    return {name: model if name == "start" else kept(parity, model, problem.data.X_original, log, name)
            for name, model in candidates.items()}


def fair_starts(parity, hooks, problem, starts: dict, deadline) -> dict:
    """``starts`` (the problem's units), each repaired where it does not keep ``parity``, and the starts the
    family finds for it (``hooks.parity_starts``, by ``deadline``); ``starts`` as they are without a constraint."""
    if parity is None:
        return starts
    starts = {name: kept(parity, model, problem.data.X) for name, model in starts.items()}
    starts.update(hooks.parity_starts(problem, parity, deadline))
    return starts
