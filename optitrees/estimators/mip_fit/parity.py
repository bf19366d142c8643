"""A fit held to a parity notion (:class:`optitrees.fairness.GroupParity`): every start and every candidate the
fit may return is checked on the training rows, and one that does not keep the bound has its leaves relabelled
(:meth:`~optitrees.fairness.GroupParity.repair`), so no fit returns a model over the bound."""

from __future__ import annotations

__all__ = ["keeps", "kept"]


def keeps(parity, model, X) -> bool:
    """Whether ``model`` (routing the rows ``X``) keeps ``parity`` (``None``: no constraint, ``True``)."""
    return parity is None or parity.keeps(model, X)


def kept(parity, model, X, log=None):
    """``model``, its leaves relabelled where it does not keep ``parity``; ``log`` (a candidate's, not a start's)
    takes a note when it was."""
    if keeps(parity, model, X):
        return model
    if log is not None:
        log.note(f"a candidate's disparity {parity.disparity(model, X):.4g} was over the bound {parity.bound:g} "
                 "on the training rows (the MIP's routing, within its tolerances, differs from the tree's); its leaves were "
                 "relabelled to keep it")
    return parity.repair(model, X)
