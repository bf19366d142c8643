r"""The generalized risk score (4.16) over candidate thresholds, as an ORS master with one rule per feature.

A rule ``x_j >= b`` only matters through the training points it holds, so on
features scaled to ``[0, 1]`` the thresholds worth trying are the distinct
training values ``v_2 < ... < v_m`` of each feature (``b = v_k``: the smallest
value that passes). Each candidate becomes a 0/1 column ``1{x_j >= b}``, the
columns of one feature form a group (at most one rule per feature, as in
4.16, Corollary 4.2), and the score over these columns is ORS (4.5) solved by
the aggregate-loss cutting planes of :mod:`optitrees.formulations.risk_scores.ors_master`.
With every distinct value a candidate this is OGRS itself, with a
certified gap; a feature with more than ``max_thresholds`` candidates keeps
the values nearest to evenly spaced quantiles (the gap is then certified over
those candidates). The card maps back to rules ``x_j >= b`` / ``x_j < b`` in
the user's units exactly as the 4.16 model's cards do (:func:`ogrs.finalize`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...scaling import ScaledData
from ...scorecard import ScoreCard
from ..family import MIPFamily
from ..feature_budget import FeatureUse
from . import ogrs, ors
from .ogrs import OGRSProblem, OGRSSpec
from .ors import ORSProblem, ORSSpec

__all__ = ["CandidateRules", "OGRSCandidateProblem", "OGRS_CANDIDATES_FAMILY"]


@dataclass(frozen=True)
class CandidateRules:
    """Candidate rules ``x_j >= threshold`` on the ``[0, 1]`` scale, one column each."""

    features: np.ndarray
    thresholds: np.ndarray

    @classmethod
    def from_data(cls, X01, max_thresholds: int, allowed=None) -> "CandidateRules":
        """Every distinct value above a feature's minimum (0.5 on 0/1 features), thinned to the
        ``max_thresholds`` nearest to evenly spaced quantiles of the data when there are more."""
        X01 = np.asarray(X01, float)
        features, thresholds = [], []
        for j in range(X01.shape[1]):
            if allowed is not None and not allowed[j]:
                continue
            values = np.unique(X01[:, j])[1:]
            if values.size > max_thresholds:
                q = np.quantile(X01[:, j], np.linspace(0, 1, max_thresholds + 2)[1:-1])
                values = np.unique(values[np.abs(values[:, None] - q[None, :]).argmin(axis=0)])
            features += [j] * len(values)
            thresholds += list(values)
        return cls(np.asarray(features, int), np.asarray(thresholds, float))

    def smallest_passing(self, X01, X) -> np.ndarray:
        """Per rule, the smallest value of ``X`` (the original units of ``X01``) among the rows that pass it."""
        out = np.empty(len(self.features))
        for j in np.unique(self.features):
            rules = np.flatnonzero(self.features == j)
            order = np.argsort(X01[:, j], kind="stable")
            # the smallest original value from each sorted position on: a rule passes a suffix of the order
            suffix_min = np.minimum.accumulate(X[order, j][::-1])[::-1]
            out[rules] = suffix_min[np.searchsorted(X01[order, j], self.thresholds[rules], side="left")]
        return out

    def transform(self, X01) -> np.ndarray:
        return (np.asarray(X01, float)[:, self.features] >= self.thresholds[None, :]).astype(float)

    def groups(self) -> tuple:
        return tuple(tuple(np.flatnonzero(self.features == j).tolist()) for j in np.unique(self.features))


@dataclass(frozen=True)
class OGRSCandidateProblem(ORSProblem):
    """An ORS problem on the candidate columns, with the rules and the OGRS problem on the original
    ``[0, 1]`` features (for the card in the user's units and its exact loss)."""

    rules: CandidateRules = None
    source: OGRSProblem = None

    @classmethod
    def from_ogrs(cls, spec: OGRSSpec, data: ScaledData, max_thresholds: int) -> "OGRSCandidateProblem":
        source = OGRSProblem.create(spec, data)
        allowed = np.ones(data.n_features, bool)
        allowed[list(spec.forbidden)] = False
        rules = CandidateRules.from_data(data.X, max_thresholds, allowed)
        if rules.features.size == 0:
            raise ValueError("no usable feature takes two values: there is no rule to score")
        # each column is named by its rule's smallest passing value in the user's units
        labels = data.labels
        names = [f"{labels[j]}>={v:.6g}" for j, v in zip(rules.features, rules.smallest_passing(data.X,
                                                                                                data.X_original))]
        columns = ScaledData.create(rules.transform(data.X), data.y, None, names, data.weight)
        ors_spec = ORSSpec.create(spec.n_rules, range(-spec.max_score, spec.max_score + 1), spec.tangents,
                                  groups=rules.groups(), multiplier=1.0, method="cutting_planes")
        base = ORSProblem.create(ors_spec, columns)
        fields = {k: getattr(base, k) for k in base.__dataclass_fields__}
        return cls(**fields, rules=rules, source=source)


def unit_card(problem: OGRSCandidateProblem, card: ScoreCard) -> ScoreCard:
    """The card of candidate columns as rules ``x_j >= b`` / ``x_j < b`` on the ``[0, 1]`` features."""
    cols = card.features
    return ScoreCard(problem.rules.features[cols], problem.rules.thresholds[cols], card.greater, card.points,
                     card.intercept, problem.source.binary[problem.rules.features[cols]])


def finalize(problem: OGRSCandidateProblem, card: ScoreCard) -> ScoreCard:
    """The card in the user's units (:func:`optitrees.formulations.risk_scores.ogrs.finalize`)."""
    return ogrs.finalize(problem.source, unit_card(problem, card))


def objective(problem: OGRSCandidateProblem, card: ScoreCard) -> float:
    """Exact training logistic loss of a finalized card."""
    return ogrs.objective(problem.source, card)


def feature_use(f) -> list[FeatureUse]:
    """A candidate column ``k`` (a rule on feature ``rules.features[k]``) is read when ``a[k] = 1``."""
    return [FeatureUse(f.variables["a"], features=f.problem.rules.features)]


def narrow(problem: OGRSCandidateProblem, kept) -> OGRSCandidateProblem:
    """``problem`` with every candidate column on a feature outside the mask ``kept`` forbidden (the columns stay,
    so a card of the narrowed problem is a card of ``problem``)."""
    off = np.flatnonzero(~np.asarray(kept, bool)[problem.rules.features])
    forbidden = tuple(sorted(set(problem.spec.forbidden) | set(off.tolist())))
    return replace(problem, spec=replace(problem.spec, forbidden=forbidden))


OGRS_CANDIDATES_FAMILY = MIPFamily("ogrs_candidates", build=ors.build, start=ors.start, decode=ors.decode,
                                   finalize=finalize, objective=objective, feature_use=feature_use, narrow=narrow,
                                   monotone=lambda f, signs: ors.monotone(f, signs, f.problem.rules.features),
                                   column_features=lambda problem: problem.rules.features)
