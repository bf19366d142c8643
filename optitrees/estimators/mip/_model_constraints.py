"""The constraints a MIP estimator's model keeps beyond its family's own: a budget on what the features it reads
cost (``feature_costs=``, ``max_feature_cost=``) and ``monotonic_cst``, read from the parameters on the features of
the fitted data (a mixin of the MIP classifiers and of the regressor)."""

from __future__ import annotations

from numbers import Real

from sklearn.utils._param_validation import Interval

from ...formulations.feature_budget import FeatureBudget
from ...monotonicity import MonotoneConstraint, monotonic_signs

__all__ = ["ModelConstraints"]


class ModelConstraints:
    """``_feature_budget()``, ``_monotone()`` and ``_monotone_signs()`` of an estimator with the parameters
    ``feature_costs``, ``max_feature_cost`` and ``monotonic_cst`` (declared in :attr:`PARAMETERS`)."""

    #: The parameters' validation (``_parameter_constraints`` entries).
    PARAMETERS = {
        "feature_costs": ["array-like", dict, None],
        "max_feature_cost": [Interval(Real, 0, None, closed="left"), None],
        "monotonic_cst": ["array-like", dict, None],
    }

    def _feature_budget(self) -> FeatureBudget | None:
        """The costs of ``feature_costs`` (``None``: a unit cost each) and the budget ``max_feature_cost`` on the
        features of the fitted data (``None`` when neither is given; the fit's features must be known)."""
        costs, budget = getattr(self, "feature_costs", None), getattr(self, "max_feature_cost", None)
        if costs is None and budget is None:
            return None
        return FeatureBudget.create(costs, budget, self._feature_names())

    def _monotone(self) -> MonotoneConstraint | None:
        """``monotonic_cst`` on the features of the fitted data (``None`` when nothing is constrained)."""
        cst = getattr(self, "monotonic_cst", None)
        if cst is None:
            return None
        names = self._feature_names()
        signs = monotonic_signs(cst, names)
        return None if signs is None else MonotoneConstraint(signs, tuple(str(n) for n in names))

    def _monotone_signs(self) -> tuple:
        """``monotonic_cst``'s sign per feature (empty without one): for a spec that holds it."""
        monotone = self._monotone()
        return () if monotone is None else tuple(int(s) for s in monotone.signs)
