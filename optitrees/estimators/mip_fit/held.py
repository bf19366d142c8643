"""Whether a model keeps every constraint a MIP fit holds it to: a parity notion (:mod:`.parity`), a feature
budget (:mod:`.feature_costs`) and ``monotonic_cst`` (:mod:`.monotone`)."""

from __future__ import annotations

from .feature_costs import keeps
from .monotone import monotone_keeps
from .parity import keeps_on

__all__ = ["keeps_every_constraint"]


def keeps_every_constraint(settings, final, problem) -> bool:
    """Whether ``final`` (a model in the user's units) keeps the parity constraint, the feature budget and the
    monotonicity of ``settings`` (a :class:`~.settings.FitSettings`) on the training rows of ``problem``."""
    return (keeps_on(settings.parity, final, problem) and keeps(settings.feature_budget, final)
            and monotone_keeps(settings.monotone, final, problem))
