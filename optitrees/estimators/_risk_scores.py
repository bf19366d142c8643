"""scikit-learn estimator for optimal risk scores on binary features (seed 002, model 4.5)."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ..formulations.risk_scores import check_score_set, ors
from ..formulations.tangents import TANGENT_SETS, logistic_loss
from ._base import MIPEstimatorMixin

__all__ = ["RiskScoreClassifier"]


def _loss(X, y, s, beta, loss=logistic_loss):
    return float(loss(y * (X @ s + beta)).sum())


def best_intercept(X, y, s, bound):
    """Intercept minimizing the exact logistic loss for fixed integer scores (a 1-D convex problem)."""
    res = minimize_scalar(lambda b: _loss(X, y, s, b), bounds=(-bound, bound), method="bounded",
                          options={"xatol": 1e-9})
    return float(res.x)


def rounded_logistic_start(X, y, n_rules, A, bound, random_state=None):
    """Warm start: sparse l1-logistic regression, scaled to the score range and rounded.

    The l1 weight is decreased until at most ``n_rules`` features are used
    (the ``n_rules`` largest weights are kept when the path jumps past it);
    the weights are scaled so the largest becomes ``max|A|`` (or
    ``min A`` for a negative one), rounded and clipped to ``A``, and the
    intercept is refitted exactly for the rounded scores.
    """
    from sklearn.linear_model import LogisticRegression

    p = X.shape[1]
    best = np.zeros(p)
    for C in np.geomspace(1e-3, 10.0, 25):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            lr = LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear", intercept_scaling=100.0,
                                    random_state=random_state).fit(X, y)
        w = lr.coef_.ravel()
        if np.count_nonzero(w) > n_rules:
            keep = np.argsort(-np.abs(w))[:n_rules]
            w = np.where(np.isin(np.arange(p), keep), w, 0.0)
        best = w
        if np.count_nonzero(w) >= n_rules:
            break
    top = np.abs(best).max()
    if top == 0:
        s = np.zeros(p)
    else:
        reach = np.where(best > 0, A.max(), -A.min())          # room on each side of 0
        scale = min(reach[np.argmax(np.abs(best))] / top, 1e9)
        s = np.clip(np.round(best * scale), A.min(), A.max())
    return s, best_intercept(X, y, s, bound)


class RiskScoreClassifier(MIPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Optimal Risk Score on binary features (seed 002, model 4.5): a score card learned by MILP.

    Chooses at most (or exactly) ``n_rules`` binary features and an integer
    number of points for each from ``min_score..max_score``; the total
    points plus an intercept is the log-odds of ``classes_[1]``. The logistic
    loss is modelled by Sato's tangent lines (4.4), V3 by default as in the
    seed's experiments. The warm start is a rounded sparse logistic
    regression; after the solve the intercept is refitted exactly for the
    chosen points (kept when the exact loss does not increase). A fit never
    returns a model with a higher exact training loss than its warm start.

    Parameters
    ----------
    n_rules : int, default=5
        ``T``.
    min_score, max_score : int, default=-5, 5
        The score set ``A = {min_score, ..., max_score}`` (must contain 0).
    exact_rules : bool, default=False
        Exactly ``n_rules`` features selected (4.2) instead of at most.
    tangents : {"V0", "V1", "V2", "V3"}, default="V3"
    warm_start : bool, default=True
    solver : str, default="highs"
    time_limit : float, default=60.0
    mip_gap : float, default=1e-4
    threads : int, optional
    random_state : int, optional
    verbose : bool, default=False
    solver_options : dict, optional

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : ndarray
        Only when ``X`` had string column names.
    scores_ : ndarray of int of shape (n_features_in_,)
        Points of each feature (0 for unused ones).
    intercept_ : float
    objective_ : float
        Exact training logistic loss of the returned model.
    warm_start_objective_ : float
    solver_result_ : SolverResult
    formulation_summary_ : str

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((200, 6)) < 0.4).astype(int)
    >>> y = (X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(0, 0.5, 200) > 0.5).astype(int)
    >>> clf = RiskScoreClassifier(n_rules=3, time_limit=20).fit(X, y)
    >>> int(np.count_nonzero(clf.scores_)) <= 3
    True
    """

    def __init__(self, n_rules=5, *, min_score=-5, max_score=5, exact_rules=False, tangents="V3", warm_start=True,
                 solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None):
        self.n_rules = n_rules
        self.min_score = min_score
        self.max_score = max_score
        self.exact_rules = exact_rules
        self.tangents = tangents
        self.warm_start = warm_start
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _validate_params(self):
        T = self.n_rules
        if not isinstance(T, numbers.Integral) or isinstance(T, bool) or T < 1:
            raise ValueError(f"n_rules must be an integer >= 1, got {T!r}")
        for name in ("min_score", "max_score"):
            v = getattr(self, name)
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise ValueError(f"{name} must be an integer, got {v!r}")
        A = check_score_set(range(self.min_score, self.max_score + 1))
        if isinstance(self.tangents, str) and self.tangents.upper() not in TANGENT_SETS:
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)}, got {self.tangents!r}")
        self._validate_solver_params()
        return A

    def fit(self, X, y):
        """Fit the score card by solving the ORS MILP (4.5).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Binary (0/1) features.
        y : array-like of shape (n_samples,)
            Exactly two class labels.

        Returns
        -------
        self
        """
        A = self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        if not np.all(np.isin(X, (0.0, 1.0))):
            raise ValueError("RiskScoreClassifier takes binary (0/1) features; for continuous features use the "
                             "generalized risk score (model 4.16), or binarize them first")
        self.classes_, y_pm = self._encode_binary(y)
        if self.exact_rules and self.n_rules > X.shape[1]:
            raise ValueError(f"exactly {self.n_rules} rules need at least that many features, got {X.shape[1]}")
        f = ors(X, y_pm, n_rules=int(self.n_rules), scores=A, tangents=self.tangents, exact_rules=self.exact_rules)
        bound = f.meta["intercept_bound"]
        s0, b0 = rounded_logistic_start(X, y_pm, int(self.n_rules), A, bound, self._seed)
        lines = f.meta["lines"]
        a0 = (s0 != 0).astype(float)
        if self.exact_rules:       # pad the selection with zero-point features to exactly T
            free = np.flatnonzero(a0 == 0)[: int(self.n_rules) - int(a0.sum())]
            a0[free] = 1.0
        start = f.vector({"a": a0, "s": s0, "beta": [b0], "xi": lines(y_pm * (X @ s0 + b0))})
        self.warm_start_objective_ = _loss(X, y_pm, s0, b0)
        result = self._solve(f, start)
        notes = []
        s, beta = s0, b0
        if result.x is not None and np.all(np.isfinite(result.x)):
            v = f.values(result.x)
            s_sol, b_sol = np.round(v["s"]), float(v["beta"][0])
            recomputed = _loss(X, y_pm, s_sol, b_sol, lines)
            reference = f.objective_value(result.x) if result.objective is None else result.objective
            result.checks.update(objective_recomputed=recomputed, objective_discrepancy=abs(recomputed - reference),
                                 rules=int(np.count_nonzero(s_sol)))
            notes += self._polish_notes(result)
            b_ref = best_intercept(X, y_pm, s_sol, bound)
            if _loss(X, y_pm, s_sol, b_ref) <= _loss(X, y_pm, s_sol, b_sol):
                b_sol = b_ref
            if _loss(X, y_pm, s_sol, b_sol) <= self.warm_start_objective_:
                s, beta = s_sol, b_sol
            else:
                notes.append("the solver's score card has a higher exact logistic loss than the warm start; "
                             "returning the warm start")
        else:
            notes.append(f"solver returned no solution ({result.status}); falling back to the rounded logistic "
                         "warm start")
        if s is s0:
            self._report_start(f, result, start)
        self._warn(result, notes)
        self.scores_ = s.astype(int)
        self.intercept_ = float(beta)
        self.objective_ = _loss(X, y_pm, s, beta)
        self.solver_result_ = result
        self.formulation_summary_ = f.summary()
        return self

    # ------------------------------------------------------------- predict
    def decision_function(self, X):
        """Total points plus intercept: the log-odds of ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.scores_ + self.intercept_

    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p = sigmoid(total points + intercept)``."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """``classes_[1]`` where the log-odds are positive."""
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    # ---------------------------------------------------------- score card
    def score_card(self):
        """Rules and points as a DataFrame (one row per used feature), like the seed's CHADS2 card."""
        import pandas as pd

        check_is_fitted(self)
        names = self._feature_names()
        used = np.flatnonzero(self.scores_)
        return pd.DataFrame({"rule": [names[j] for j in used], "points": self.scores_[used]})

    def risk_table(self):
        """Every reachable total score with its predicted probability of ``classes_[1]``."""
        import pandas as pd

        check_is_fitted(self)
        pos, neg = self.scores_[self.scores_ > 0].sum(), self.scores_[self.scores_ < 0].sum()
        totals = np.arange(neg, pos + 1)
        return pd.DataFrame({"score": totals, "probability": expit(totals + self.intercept_)})

    def export_text(self, decimals=3):
        """The score card and its risk table as text."""
        card, risk = self.score_card(), self.risk_table()
        width = max([len(r) for r in card["rule"]] + [4])
        lines = [f"{'rule':<{width}}  points"]
        lines += [f"{r:<{width}}  {p:+d}" for r, p in zip(card["rule"], card["points"])]
        lines.append(f"{'intercept':<{width}}  {self.intercept_:+.{decimals}f}")
        lines.append("")
        lines.append(f"score  P({self.classes_[1]})")
        lines += [f"{t:>5d}  {pr:.{decimals}f}" for t, pr in zip(risk["score"], risk["probability"])]
        return "\n".join(lines)

    def to_dict(self):
        """Score card, intercept and risk table as a JSON-serializable dict."""
        card, risk = self.score_card(), self.risk_table()
        return {"model": "risk_score", "positive_class": _jsonable(self.classes_[1]),
                "negative_class": _jsonable(self.classes_[0]),
                "rules": [{"rule": str(r), "points": int(p)} for r, p in zip(card["rule"], card["points"])],
                "intercept": self.intercept_,
                "risk": [{"score": int(t), "probability": float(p)} for t, p in zip(risk["score"],
                                                                                    risk["probability"])]}


def _jsonable(v):
    return v.item() if hasattr(v, "item") else v
