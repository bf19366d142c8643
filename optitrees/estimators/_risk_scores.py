"""scikit-learn estimators for optimal risk scores (seed 002, Ch. 4): ORS (4.5) and OGRS (4.16)."""

from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ..datasets import scale_unit
from ..formulations.risk_scores import check_score_set, ogrs, ors
from ..scorecard import ScoreCard
from ..solvers import solve
from ..formulations.tangents import TANGENT_SETS, logistic_loss
from ._base import MIPEstimatorMixin

__all__ = ["RiskScoreClassifier", "GeneralizedRiskScoreClassifier"]


def _loss(X, y, s, beta, loss=logistic_loss):
    return float(loss(y * (X @ s + beta)).sum())


def _card_loss(X, y):
    """Exact training logistic loss of a score card."""
    return lambda card: float(logistic_loss(y * card.decision_function(X)).sum())


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


def _stumps(X01, y):
    """Every feature's depth-1 log-loss split as a rule ``(j, b, +-1)``, best (least impurity) first.

    ``b`` is the smallest value above the split, so ``x_j >= b`` holds exactly
    for the points the stump sends right; the point is +1 where those points
    are more often positive than the data. Features no stump can split are left out.
    """
    from sklearn.tree import DecisionTreeClassifier

    found = []
    for j in np.flatnonzero(np.ptp(X01, axis=0) > 0):
        stump = DecisionTreeClassifier(max_depth=1, criterion="log_loss").fit(X01[:, [j]], y)
        if stump.tree_.node_count < 3:
            continue
        right = X01[:, j] > stump.tree_.threshold[0]
        impurity = stump.tree_.impurity[1:3] @ stump.tree_.n_node_samples[1:3]
        sign = 1.0 if (y[right] > 0).mean() >= (y > 0).mean() else -1.0
        found.append((impurity, int(j), float(X01[right, j].min()), sign))
    return [rule[1:] for rule in sorted(found, key=lambda r: r[0])]


def _stump_rule(X01, y, used, stumps=None):
    """The best stump rule ``(j, b, +-1)`` on a feature not in ``used`` (see :func:`_stumps`)."""
    for rule in (_stumps(X01, y) if stumps is None else stumps):
        if rule[0] not in used:
            return rule
    raise ValueError("no unused feature splits the data into two non-empty groups")


class _RiskScoreBase(MIPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Predictions, score card views and edits shared by the risk-score estimators."""

    _multiclass_hint = "wrap it in sklearn.multiclass.OneVsRestClassifier for more classes"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_common(self):
        if isinstance(self.tangents, str) and self.tangents.upper() not in TANGENT_SETS:
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)}, got {self.tangents!r}")
        self._validate_solver_params()

    def _finish(self, f, result, start, card_start, card_solution, exact_loss, notes):
        """Keep the solver's card unless it is worse than the start; report, warn and store."""
        card = card_start
        if card_solution is not None:
            if exact_loss(card_solution) <= exact_loss(card_start):
                card = card_solution
            else:
                notes.append("the solver's score card has a higher exact logistic loss than the warm start; "
                             "returning the warm start")
        if card is card_start:
            self._report_start(f, result, start)
        self._warn(result, notes)
        self.score_card_ = card
        self.objective_ = exact_loss(card)
        self.warm_start_objective_ = exact_loss(card_start)
        self.solver_result_ = result
        self.formulation_summary_ = f.summary()
        return self

    # ------------------------------------------------------------- predict
    def decision_function(self, X):
        """Total points of the satisfied rules plus the intercept: the log-odds of ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.score_card_.decision_function(X)

    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p = sigmoid(total points + intercept)``."""
        p = 1.0 / (1.0 + np.exp(-self.decision_function(X)))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """``classes_[1]`` where the log-odds are positive."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    # ---------------------------------------------------------- score card
    def score_card(self, decimals=3):
        """Rules and points as a DataFrame (like the seed's CHADS2 card, Figure 4.1)."""
        check_is_fitted(self)
        return self.score_card_.to_frame(decimals)

    def risk_table(self):
        """Every reachable total score and its predicted probability of ``classes_[1]`` (DataFrame)."""
        check_is_fitted(self)
        return self.score_card_.risk_table()

    def export_text(self, decimals=3):
        """The score card and its risk table as text, thresholds in original units."""
        check_is_fitted(self)
        return self.score_card_.to_text(decimals)

    def to_dict(self, decimals=3):
        """The score card as a JSON-serializable dict."""
        check_is_fitted(self)
        return self.score_card_.to_dict(decimals)

    def flip_rule(self, k):
        """Theorem 4.1: a copy whose rule ``k`` tests the opposite condition with negated points.

        The intercept absorbs the change, so the copy's decision function is identical.
        """
        check_is_fitted(self)
        other = copy.deepcopy(self)
        other.score_card_ = self.score_card_.flip(int(k))
        return other

    def with_positive_points(self):
        """Corollary 4.1: an equivalent copy in which every rule has non-negative points."""
        check_is_fitted(self)
        other = copy.deepcopy(self)
        other.score_card_ = self.score_card_.all_positive()
        return other


class RiskScoreClassifier(_RiskScoreBase):
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
    score_card_ : ScoreCard
        Rules ``feature = 1`` with their points, and the intercept.
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
    >>> clf.score_card_.n_rules <= 3
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

    def _validate_params(self):
        T = self.n_rules
        if not isinstance(T, numbers.Integral) or isinstance(T, bool) or T < 1:
            raise ValueError(f"n_rules must be an integer >= 1, got {T!r}")
        for name in ("min_score", "max_score"):
            v = getattr(self, name)
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise ValueError(f"{name} must be an integer, got {v!r}")
        A = check_score_set(range(self.min_score, self.max_score + 1))
        self._check_common()
        return A

    def _card(self, s, beta):
        used = np.flatnonzero(s)
        return ScoreCard(used, np.full(len(used), 0.5), np.ones(len(used), bool), s[used], beta,
                         self._feature_names(), np.ones(len(used), bool), tuple(self.classes_))

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
            raise ValueError("RiskScoreClassifier takes binary (0/1) features; for continuous features use "
                             "GeneralizedRiskScoreClassifier (model 4.16), or binarize them first")
        self.classes_, y_pm = self._encode_binary(y)
        if self.exact_rules and self.n_rules > X.shape[1]:
            raise ValueError(f"exactly {self.n_rules} rules need at least that many features, got {X.shape[1]}")
        f = ors(X, y_pm, n_rules=int(self.n_rules), scores=A, tangents=self.tangents, exact_rules=self.exact_rules)
        bound = f.meta["intercept_bound"]
        lines = f.meta["lines"]
        s0, b0 = rounded_logistic_start(X, y_pm, int(self.n_rules), A, bound, self._seed)
        a0 = (s0 != 0).astype(float)
        if self.exact_rules:       # pad the selection with zero-point features to exactly T
            a0[np.flatnonzero(a0 == 0)[: int(self.n_rules) - int(a0.sum())]] = 1.0
        start = f.vector({"a": a0, "s": s0, "beta": [b0], "xi": lines(y_pm * (X @ s0 + b0))})
        result = self._solve(f, start)
        notes, card = [], None
        if result.x is not None and np.all(np.isfinite(result.x)):
            v = f.values(result.x)
            s, beta = np.round(v["s"]), float(v["beta"][0])
            recomputed = _loss(X, y_pm, s, beta, lines)
            reference = f.objective_value(result.x) if result.objective is None else result.objective
            result.checks.update(objective_recomputed=recomputed, objective_discrepancy=abs(recomputed - reference),
                                 rules=int(np.count_nonzero(s)))
            notes += self._polish_notes(result)
            refit = best_intercept(X, y_pm, s, bound)
            if _loss(X, y_pm, s, refit) <= _loss(X, y_pm, s, beta):
                beta = refit
            card = self._card(s, beta)
        else:
            notes.append(f"solver returned no solution ({result.status}); falling back to the rounded logistic "
                         "warm start")
        return self._finish(f, result, start, self._card(s0, b0), card, _card_loss(X, y_pm), notes)


class GeneralizedRiskScoreClassifier(_RiskScoreBase):
    """Optimal Generalized Risk Score (seed 002, model 4.16): rules ``x_j >= b`` learned with their points.

    Continuous and binary features are scaled to [0, 1] internally. The MILP
    picks ``n_rules`` single-clause rules ``x_j >= b_t``, each feature at most
    once (rules of one logic lose no generality, Corollary 4.2), with integer
    points in ``-max_score..max_score``; the fitted card is then rewritten with
    non-negative points (Corollary 4.1, ``positive_points=True``), flipping a
    rule to ``x_j < b`` where its points were negative. Symmetry breaking (4.10), discriminative rules
    (4.12), thresholds 0.5 on binary features (4.15) and the tightest big-M
    ``max_score``; the logistic loss is modelled by tangent lines (4.16o).
    The warm start adds one rule at a time, solving for the new rule with the
    earlier ones fixed, as the seed's experiments do; a second start binarizes
    every feature at its best stump and picks points by a rounded sparse
    logistic fit (the seed's baseline, mapped to 4.16), and the solver starts
    from the better of the two. Thresholds are reported
    in the original units, in the middle of the gap ``eps`` the MILP leaves
    between satisfied and unsatisfied points.

    Parameters
    ----------
    n_rules : int, default=3
    max_score : int, default=5
        Points are in ``-max_score..max_score`` (the tightest big-M is ``max_score``).
    positive_points : bool, default=True
        Report the equivalent card with non-negative points (Corollary 4.1).
    tangents : {"V0", "V1", "V2", "V3"}, default="V3"
    eps : float, default=1e-4
        Strictness of ``x_j < b_t`` on the [0, 1] scale.
    warm_start : bool, default=True
    solver : str, default="highs"
    time_limit : float, default=60.0
        For the final solve; the greedy start gets up to a quarter of it.
    mip_gap : float, default=1e-4
    threads : int, optional
    random_state : int, optional
    verbose : bool, default=False
    solver_options : dict, optional

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    score_card_ : ScoreCard
        Rules ``x_j >= threshold`` (original units) with their points, and the intercept.
    objective_ : float
        Exact training logistic loss of the returned model.
    warm_start_objective_ : float
    solver_result_ : SolverResult
        ``checks`` hold the rule-satisfaction agreement with ``z`` and the recomputed objective.
    formulation_summary_ : str

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = GeneralizedRiskScoreClassifier(n_rules=2, time_limit=20).fit(X[:150, :4], y[:150])
    >>> clf.score_card_.n_rules
    2
    """

    def __init__(self, n_rules=3, *, max_score=5, positive_points=True, tangents="V3", eps=1e-4, warm_start=True,
                 solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None):
        self.n_rules = n_rules
        self.max_score = max_score
        self.positive_points = positive_points
        self.tangents = tangents
        self.eps = eps
        self.warm_start = warm_start
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options

    def _validate_params(self):
        T = self.n_rules
        if not isinstance(T, numbers.Integral) or isinstance(T, bool) or T < 1:
            raise ValueError(f"n_rules must be an integer >= 1, got {T!r}")
        M = self.max_score
        if not isinstance(M, numbers.Integral) or isinstance(M, bool) or M < 1:
            raise ValueError(f"max_score must be a positive integer, got {M!r}")
        if not (isinstance(self.eps, numbers.Real) and 0 < self.eps < 0.5):
            raise ValueError(f"eps must be in (0, 0.5), got {self.eps!r}")
        self._check_common()

    def _build(self, X01, y_pm, T, symmetry_breaking=True):
        return ogrs(X01, y_pm, n_rules=T, max_score=int(self.max_score), tangents=self.tangents, eps=float(self.eps),
                    symmetry_breaking=symmetry_breaking)

    def _greedy_rules(self, X01, y_pm, budget):
        """One rule at a time: solve for rule t with rules 1..t-1 fixed (seed 002, 4.5)."""
        rules = []                                          # (feature, b, s)
        stumps = None                                       # computed once, if a step needs the fallback
        T = int(self.n_rules)
        for t in range(1, T + 1):
            g = self._build(X01, y_pm, t, symmetry_breaking=False)
            for r, (j, b, s) in enumerate(rules):
                col = np.zeros(X01.shape[1])
                col[j] = 1.0
                mask = np.zeros((X01.shape[1], t), bool)
                mask[:, r] = True
                g.fix("a", np.repeat(col[:, None], t, axis=1), mask)
                g.fix("b", b, np.arange(t) == r)
                g.fix("s", s, np.arange(t) == r)
            res = solve(g, self.solver, time_limit=budget / T, mip_gap=self.mip_gap, threads=self.threads,
                        seed=self._seed, progress=False)
            if res.x is None:       # no solution in the step's time: the best stump on an unused feature
                stumps = _stumps(X01, y_pm) if stumps is None else stumps
                rules.append(_stump_rule(X01, y_pm, {r[0] for r in rules}, stumps))
                continue
            v = g.values(res.x)
            j = int(np.argmax(v["a"][:, t - 1]))
            rules.append((j, float(v["b"][t - 1]), float(np.round(v["s"][t - 1]))))
        return rules

    def _stump_rules(self, X01, y_pm, bound):
        """Second start: stump-binarize every feature, pick points by a rounded sparse logistic fit.

        Each feature becomes ``1{x_j >= b_j}`` at its depth-1 log-loss split
        (the seed's baseline binarization); :func:`rounded_logistic_start`
        chooses at most ``T`` of them with points in ``-M..M``; unused stump
        rules with 0 points complete the ``T`` rules (4.16c). ``None`` when fewer
        than ``T`` features can be split.
        """
        T, M = int(self.n_rules), int(self.max_score)
        cand = [(j, b) for j, b, _ in _stumps(X01, y_pm)]  # every feature a stump can split
        if len(cand) < T:
            return None
        B = np.column_stack([X01[:, j] >= b for j, b in cand]).astype(float)
        s, _ = rounded_logistic_start(B, y_pm, T, np.arange(-M, M + 1), bound, self._seed)
        chosen = list(np.flatnonzero(s)[:T])
        chosen += [k for k in range(len(cand)) if k not in chosen][: T - len(chosen)]
        return [(cand[k][0], cand[k][1], float(s[k])) for k in chosen]

    def _start(self, f, X01, y_pm, rules):
        """Complete start of the full model from rules ``(feature, b, s)`` sorted by feature (4.16e)."""
        rules = sorted(rules, key=lambda r: r[0])
        T, p = len(rules), X01.shape[1]
        a = np.zeros((p, T))
        a[[r[0] for r in rules], np.arange(T)] = 1.0
        b = np.array([r[1] for r in rules])
        s = np.array([r[2] for r in rules])
        z = (X01[:, a.argmax(axis=0)] >= b[None, :] - 1e-12).astype(float)
        beta = best_intercept(z, y_pm, s, f.meta["intercept_bound"])
        shat = z * s[None, :]
        zeta = f.meta["lines"](y_pm * (shat.sum(axis=1) + beta))
        return f.vector({"a": a, "b": b, "s": s, "z": z, "shat": shat, "beta": [beta], "zeta": zeta})

    def _card(self, f, x, low, span, names):
        v = f.values(x)
        feats = np.argmax(v["a"], axis=0)
        binary = f.meta["binary"][feats]
        b01 = np.where(binary, 0.5, v["b"] - f.meta["eps"] / 2)
        thr = np.where(binary, 0.5, low[feats] + b01 * span[feats])
        card = ScoreCard(feats, thr, np.ones(len(feats), bool), np.round(v["s"]), float(v["beta"][0]), names,
                         binary, tuple(self.classes_))
        return card.all_positive() if self.positive_points else card

    def fit(self, X, y):
        """Fit the generalized score card by solving the OGRS MILP (4.16).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features (scaled to [0, 1] internally).
        y : array-like of shape (n_samples,)
            Exactly two class labels.

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, y_pm = self._encode_binary(y)
        if self.n_rules > X.shape[1]:
            raise ValueError(f"n_rules={self.n_rules} exceeds the number of features ({X.shape[1]}); each feature "
                             "is used at most once")
        X01, low, span = scale_unit(X)
        informative = np.ptp(X01, axis=0) > 0
        if informative.sum() < self.n_rules:
            raise ValueError(f"only {int(informative.sum())} non-constant features for {self.n_rules} rules")
        names = self._feature_names()
        f = self._build(X01, y_pm, int(self.n_rules))
        budget = 0.25 * self.time_limit if self.time_limit is not None else 60.0
        candidates = [self._greedy_rules(X01, y_pm, budget), self._stump_rules(X01, y_pm, f.meta["intercept_bound"])]
        starts = [self._start(f, X01, y_pm, rules) for rules in candidates if rules is not None]
        # the better start by the MIP's objective among those that satisfy the model
        feasible = [x for x in starts if f.violation(x) <= 1e-6] or starts
        start = min(feasible, key=f.objective_value)
        card_start = self._card(f, start, low, span, names)
        result = self._solve(f, start)
        notes, card = [], None
        if result.x is not None and np.all(np.isfinite(result.x)):
            v = f.values(result.x)
            card = self._card(f, result.x, low, span, names)
            # z says which points satisfy x_j >= b; a rule flipped by Corollary 4.1 is satisfied by the others
            ge = np.where(card.greater[None, :], card.rules(X), 1.0 - card.rules(X))
            mismatches = int(np.sum(ge != np.round(v["z"])))
            recomputed = float(f.meta["lines"](y_pm * card.decision_function(X)).sum())
            reference = f.objective_value(result.x) if result.objective is None else result.objective
            result.checks.update(rule_mismatches=mismatches, objective_recomputed=recomputed,
                                 objective_discrepancy=abs(recomputed - reference))
            notes += self._polish_notes(result)
            if mismatches:
                notes.append(f"{mismatches} rule evaluations differ between the returned thresholds and z")
            R = card.rules(X)
            refit = best_intercept(R, y_pm, card.points.astype(float), f.meta["intercept_bound"])
            if _loss(R, y_pm, card.points, refit) <= _loss(R, y_pm, card.points, card.intercept):
                card.intercept = refit
        else:
            notes.append(f"solver returned no solution ({result.status}); falling back to the greedy warm start")
        return self._finish(f, result, start, card_start, card, _card_loss(X, y_pm), notes)
