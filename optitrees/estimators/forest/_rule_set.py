"""Rule sets drawn from a random forest, with personalized rule correctness (seed 004)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, StrOptions

from ...algorithms.forest import grow_forest
from ...algorithms.rules.lasso_selection import correctness_model, lasso_select
from ...algorithms.rules.rule_extraction import forest_rules, rule_matrix
from ...readable import round_linear_model
from ...rule_set import RuleSet
from ...scaling import power_of_two_scale
from ...trees import from_sklearn
from .._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier
from .._docs import CLASS_WEIGHT_DOC
from .._input import feature_names
from .._views import _Printed

__all__ = ["RuleSetClassifier"]


#: Shares of ``time_limit`` at which the forest (its growth in the first half, reading its rules in the rest) and
#: the LASSO path stop (counted from their start).
FOREST_SHARE, LASSO_SHARE = 0.4, 0.3


class RuleSetClassifier(_Printed, OptitreesClassifier):
    """M decision rules of a random forest, weighted per point by predicted correctness (seed 004).

    1. A random forest of ``n_estimators`` trees of depth at most ``max_depth``
       is grown; every root-to-leaf path is a rule "IF conditions THEN class
       (ELSE the other class)"; duplicates are removed (II-A, II-B). Thresholds are shortened to
       the shortest numbers that route every training row the same way.
    2. LASSO (L1 logistic regression, ``cv``-fold) on the binary matrix of
       "rule fires" keeps the ``n_rules`` rules of largest absolute coefficient (II-B).
    3. Per kept rule, an L1 logistic model on the K features the kept rules
       use predicts whether the rule is right for a point (II-C); its
       weights are rounded to the fewest digits that change no training
       point's trusted / not trusted.
    4. ``P(class 1)`` is the average of the rules' votes weighted
       ``correct_weight`` where the rule is trusted, ``incorrect_weight``
       elsewhere, eq. (2); equal weights give the plain average of eq. (1).
       ``predict`` gives ``classes_[1]`` when ``P > 0.5``.

    Binary classification only (the seed's setting).

    Parameters
    ----------
    n_rules : int, default=10
        M, the rules kept (the seed: 3, 5, 10, 15, 20).
    n_estimators : int, default=100
    max_depth : int, default=3
        Depth of the forest's trees, so a rule has at most this many conditions per path.
    correct_weight, incorrect_weight : float, default=2.0, 1.0
        Weights of eq. (2).
    cv : int, default=3
        Folds of the cross-validated LASSO models (fewer when a class has fewer
        distinct rows; identical rows count once, with their summed weight).
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Of the forest (scikit-learn's meaning).
    random_state : int, optional
    time_limit : float, optional
        Seconds for the whole ``fit``: the forest may use 40% (fewer trees), the
        LASSO path up to 70% (fewer rules), the rest fits correctness models
        (a rule left without one is always trusted); see ``truncated_``.
{class_weight}

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    forest_ : RandomForestClassifier
        Fitted on ``X / forest_scale_``.
    forest_scale_ : ndarray of shape (n_features,)
        Powers of two (:func:`optitrees.scaling.power_of_two_scale`).
    feature_importances_ : ndarray of shape (n_features,)
        ``|LASSO coefficient| * std(fires)`` of each kept rule, shared by the
        features it tests, normalized (:meth:`RuleSet.feature_importances`).
    rule_set_ : RuleSet
        The kept rules and their correctness models; the fitted model.
    n_candidate_rules_ : int
        P, distinct rules of the forest.
    lasso_coef_ : ndarray of shape (M,)
        LASSO coefficient of each kept rule.
    truncated_ : bool
        ``time_limit`` cut the fit short: a smaller forest, fewer rules, or
        rules without a correctness model (always trusted).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = RuleSetClassifier(n_rules=5, random_state=0).fit(X, y)
    >>> clf.rule_set_.n_rules, bool(clf.score(X, y) > 0.85)
    (5, True)
    """

    _model_shapes = (frozenset({"rule_set_"}),)

    _parameter_constraints = {
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "correct_weight": [Interval(Real, 0, None, closed="neither")],
        "incorrect_weight": [Interval(Real, 0, None, closed="neither")],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0, 1, closed="right"),
                         StrOptions({"sqrt", "log2"}), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
    }
    _binary = True
    _multiclass_hint = "the rule sets of seed 004 vote for one class or the other"

    def __init__(self, n_rules=10, *, n_estimators=100, max_depth=3, correct_weight=2.0, incorrect_weight=1.0, cv=3,
                 max_features="sqrt", random_state=None, time_limit=None, class_weight=None):
        self.n_rules = n_rules
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.correct_weight = correct_weight
        self.incorrect_weight = incorrect_weight
        self.cv = cv
        self.max_features = max_features
        self.random_state = random_state
        self.time_limit = time_limit
        self.class_weight = class_weight

    def _fit(self, X, y, sample_weight, budget):
        """Grow the forest, pool and select its rules, fit one correctness model per rule (``sample_weight``:
        each row's weight in the forest, the LASSO and the correctness models)."""
        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        X, v = training.X, training.weight
        y01 = (training.y > 0).astype(np.int64)
        # folds are drawn from the distinct rows (a repeated row is one row of larger weight)
        folds = min(self.cv, int(np.bincount(y01).min()))
        if folds < 2:
            raise ValueError("each class needs at least 2 distinct rows for the cross-validated LASSO")
        # the forest learns on X / forest_scale_ (powers of two: the same splits, and features in tiny units are
        # not taken for constants); its rules are read back in the units of X
        self.forest_scale_ = power_of_two_scale(X)
        # the forest's share covers growing it and reading its rules, which takes about as long per tree
        rules_deadline = budget.until(FOREST_SHARE)
        self.forest_ = grow_forest(X / self.forest_scale_, y01, self.n_estimators, budget.until(FOREST_SHARE / 2),
                                   max_depth=self.max_depth, max_features=self.max_features,
                                   random_state=self.random_state, n_jobs=1, sample_weight=v)
        candidates = forest_rules([from_sklearn(e, self.forest_scale_) for e in self.forest_.estimators_], X,
                                  deadline=rules_deadline)
        budget.lap("forest")
        self.n_candidate_rules_ = len(candidates)
        keep, self.lasso_coef_ = lasso_select(rule_matrix(candidates, X), y01, self.n_rules, folds, self.random_state,
                                              deadline=budget.until(LASSO_SHARE), sample_weight=v)
        budget.lap("lasso")
        rules = [candidates[k] for k in keep]
        used = sorted({j for r in rules for j in r.features})
        W = np.zeros((len(rules), X.shape[1]))
        b = np.ones(len(rules))                  # a rule whose model the budget left unfitted is always trusted
        for m, rule in enumerate(rules):
            if budget.expired:
                break
            w, b0 = correctness_model(X[:, used], rule.predict(X) == y01, folds, self.random_state,
                                      deadline=budget.deadline, sample_weight=v)
            W[m, used], b[m] = round_linear_model(w, b0, X[:, used])
        self.truncated_ = budget.expired
        budget.lap("correctness models")
        self.rule_set_ = RuleSet(rules, W, b, float(self.correct_weight), float(self.incorrect_weight))
        self.feature_importances_ = self.rule_set_.feature_importances(X, self.lasso_coef_, X.shape[1])
        self._write_report(budget, training, "rule set", truncated=self.truncated_)
        return self

    def predict_proba(self, X):
        """``[1 - P, P]`` with P of eq. (2)."""
        X = self._X(X)
        p = self.rule_set_.proba(X)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X):
        """P(``classes_[1]``) of eq. (2) minus 0.5 (positive: ``classes_[1]``)."""
        X = self._X(X)
        return self.rule_set_.proba(X) - 0.5

    def predict(self, X):
        """``classes_[1]`` where eq. (2) gives more than 0.5, else ``classes_[0]``."""
        X = self._X(X)
        return self.classes_[(self.rule_set_.proba(X) > 0.5).astype(int)]

    def explain(self, X) -> pd.DataFrame:
        """Per point and rule: does it fire, what it predicts, is it trusted, its weight (the personalization of II-C).

        One row per (sample, rule), columns ``sample, rule, condition,
        fires, predicts, trusted, weight``; the predicted probability of
        ``classes_[1]`` is ``sum(weight * (predicts == classes_[1])) / sum(weight)`` per sample.
        """
        X = self._X(X)
        rs, names = self.rule_set_, feature_names(self)
        n, M = len(X), rs.n_rules
        text = [" AND ".join(r.conditions(names)) or "true" for r in rs.rules]
        return pd.DataFrame({"sample": np.repeat(np.arange(n), M), "rule": np.tile(np.arange(1, M + 1), n),
                             "condition": np.tile(text, n), "fires": rs.fires(X).ravel(),
                             "predicts": self.classes_[rs.outputs(X).ravel()], "trusted": rs.trusted(X).ravel(),
                             "weight": rs.weights(X).ravel()})


RuleSetClassifier.__doc__ = RuleSetClassifier.__doc__.replace("{class_weight}", CLASS_WEIGHT_DOC)
