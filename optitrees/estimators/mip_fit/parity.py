"""A fit held to a parity notion (:class:`optitrees.fairness.GroupParity`): every start and every candidate the
fit may return is checked on the training rows, and one that does not keep the bound is repaired (a tree's leaves
relabelled, a score card's intercept moved: :meth:`~optitrees.fairness.GroupParity.repair`), so no fit returns a
model over the bound."""

from __future__ import annotations

from dataclasses import replace

__all__ = ["keeps", "kept", "keeps_on", "fair_starts", "fair_candidates", "fair_exact"]


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


def fair_starts(parity, hooks, problem, starts: dict, deadline, found=None) -> dict:
    """``starts`` (the problem's units), each repaired where it does not keep ``parity``, the model of the parity
    constraint's exact search where it did not prove it (``found``, :func:`fair_exact`), and the starts the family
    finds for it (``hooks.parity_starts``, by ``deadline``); ``starts`` as they are without a constraint."""
    if parity is None:
        return starts
    starts = {name: kept(parity, model, problem.data.X) for name, model in starts.items()}
    if found is not None:
        starts[found.engine] = kept(parity, found.model, problem.data.X)
    starts.update(hooks.parity_starts(problem, parity, deadline))
    return starts


def fair_exact(fit, problem):
    """The family's exact search for the fit's parity constraint (``hooks.parity_exact``, e.g. OCT's fair search
    of depth 2), where nothing else the fit holds (a feature budget, monotonicity, a user's rows) is beyond it:
    its :class:`~optitrees.estimators._report.ExactSearch`, proven only where its model keeps the constraint in
    the user's units; ``None`` where it does not apply."""
    settings = fit.settings
    if settings.parity is None or settings.feature_budget is not None or settings.monotone is not None \
            or settings.constraints is not None:
        return None
    found = fit.hooks.parity_exact(problem, settings.parity, fit.budget, fit.log)
    if found is None:
        return None
    fit.budget.lap("fair exact search")
    if found.proven and not keeps_on(settings.parity, fit.family.finalize(problem, found.model), problem):
        fit.log.note(f"the {found.engine}'s tree does not keep the parity constraint once finalized; it is a start")
        return replace(found, proven=False)
    return found
