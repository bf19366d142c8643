"""The readable default of the oblique and logistic estimators: ``max_features="auto"``, a feature budget per
hyperplane chosen on held-out folds within the fit (:func:`~optitrees.algorithms.fold_search.scores_on_folds`).

The candidates are :data:`BUDGETS`; the one of fewest features whose mean held-out balanced accuracy
(:func:`~optitrees.algorithms.fold_search.balanced_accuracy`) is within :data:`TOLERANCE` of the best candidate's,
or within one standard error of its shortfall over the folds, is taken
(:func:`~optitrees.algorithms.fold_search.fewest_within`), so a
dense hyperplane is chosen only where fewer features cost more than that on held-out rows. No budget is scored
first on each fold: a choice its deadline cuts short in the first fold compares the budgets it reached with the
dense tree, not only the smallest budgets with each other (which chose 3 features on tic-tac-toe for OCT-H at
10 s, where every smaller budget loses 20-30 points).

The standard error lets noisy folds (climate's 9% minority class is about 7 rows per held-out fold) take the smaller
budget: on Table 3.1's ten sets (``bench/budget_rule.py``, depth 2, 10 s, 3 splits; the two rules' budgets fitted
the same way where they differ) it reads 5.8 features per hyperplane instead of 8.3 for OLCT, 6.5 instead of 8.1
for OCT-H and 5.3 instead of 7.6 for oblique TAO, at a mean test balanced accuracy of 79.4 against 79.8 (paired
-0.37 +- 0.79), 79.2 against 79.3 (-0.12 +- 0.77) and 80.5 against 80.1 (+0.38 +- 0.37): fewer features, the same
accuracy within its noise. The dense models (``max_features=None``, ``bench/frontier.py``, the same protocol) gave
OLCT 80.0 at 16.3, OCT-H 79.0 at 14.4 and oblique TAO 80.7 at 14.3; the choice scored by plain accuracy (the
tolerance alone) 80.2 at 6.6, 79.7 at 8.0 and 80.7 at 7.1. At the users' sizes
(``bench/scale.py --part loss``, 4,000-28,000 rows, 60 s) OLCT's default is 0.21 points of test balanced accuracy
below the dense fit (1.84 with plain accuracy on 2,000 sampled rows), by choosing no budget on 11 of 12 settings;
the standard error changes none of these 12 choices (folds of 1,000-2,000 held-out rows agree).
A fixed budget of 3 gave OLCT 75.3, most of the loss
on tic-tac-toe (97.6 to 64.3), whose concept needs a dense hyperplane (chosen there on every split). MARGOT keeps
no budget by default: its choice gave 76.6 against 80.6, and every fixed budget costs it more than 5 points there
(75.5 at 5 features), which is not understood yet.
"""

from __future__ import annotations

import numpy as np

from ..algorithms.feature_order import l1_entry_order
from ..algorithms.fold_search import fewest_non_inferior, fewest_within, scores_on_folds

#: The budgets chosen from (``None``: no budget), in the order each fold scores them. One feature is not a
#: candidate: the loss-optimal node fits search every feature for it (``univariate=True``), 0.7-1.2 s per greedy
#: tree on Table 3.1's sets against 0.03-0.12 s for the others, which would take most of the choice's share of a
#: 10 s fit.
BUDGETS = (None, 2, 3, 5, 8)
#: Held-out balanced accuracy (a share, 0.01 = 1 point) a smaller budget may give up against the best candidate.
TOLERANCE = 0.01
#: Share of ``time_limit`` the choice may use.
SHARE = 0.15
#: The fewest training rows on which a budget is chosen on held-out folds (folds of at least 100 held-out rows):
#: the tree-wide budget of every estimator (``max_total_features="auto"``) and the loss-optimal trees' budget per
#: hyperplane (``max_features="auto"``). On fewer rows ``"auto"`` means no budget, the choice's share goes to the
#: rest of the fit, and the fit's plan says so. Per hyperplane, on Table 3.1's ten sets x 3 splits at 5 s
#: (``bench/stages.py --only-small``, the sets with enough rows), OLCT with no budget against the choice: at 60
#: training rows +1.75 points of test balanced accuracy (30 fits; tic-tac-toe +9.2), at 120 +3.04 (30), at 200 +1.05
#: (24), at 400 -0.27 (9), each with a training objective 8-27% lower and 0.6-0.9 s more for the solve; at the whole
#: training split (145-718 rows, 10 s, ``bench/frontier.py``) -0.19 over the 30 fits, -0.8 on the sets under 400
#: rows. Tree-wide (``bench/auto_defaults.py``, 26 sets x 5 splits, 10 s): every set whose choice lost more than 3
#: points to no budget had fewer than 400 rows (OCT-H: sonar, spectf; oblique TAO: parkinsons).
MIN_ROWS_TO_CHOOSE = 400
#: The budget used when no fold could be scored (the deadline came first, or a class has one row).
FALLBACK = 3
#: Folds of the choice.
FOLDS = 4
#: The tree-wide budgets (``max_total_features="auto"``) chosen from, in the order each fold scores them: the
#: features the whole tree may read, the first ones the l1-logistic path admits
#: (:func:`~optitrees.algorithms.feature_order.l1_entry_order`).
TOTAL_BUDGETS = (None, 2, 3, 5, 8)
#: Share of ``time_limit`` the tree-wide choice may use.
TOTAL_SHARE = 0.3
#: The most rows the l1-logistic path that orders the features is fitted on (a stratified sample beyond it): on
#: every row of 30,000 of adult the order took 1.5 s of a 5 s fit.
ORDER_ROWS = 8000
#: The tree-wide choice takes, among the candidates whose held-out balanced accuracy is *non-inferior* to no
#: budget's (their mean paired difference over the folds, less one standard error, at least -TOTAL_MARGIN), the one
#: of best mean, fewest features on ties (:func:`~optitrees.algorithms.fold_search.fewest_non_inferior`). Oblique TAO
#: (no solver, no clock: every rule scored by the same fits) on the 26 shared binary sets x 5 splits, depth 2, 3
#: features per split (``bench/auto_defaults.py --rules``), test balanced accuracy against no budget: this rule
#: -0.44 points on average with a budget in 53% of fits, the best mean alone (the rule before) -0.56 (54%), a margin
#: of one point -0.59 (68%), the fewest within a point of the best -0.58 (84%); each has parkinsons (195 rows) below
#: -3 points (-4.1 to -5.5), where the folds favour budgets that its 49-row test splits do not.
TOTAL_MARGIN = 0.0
#: The most rows the choice of OCT-H and oblique TAO fits on (a stratified sample of the rows beyond it). Oblique
#: TAO fits 30,000 rows of adult in 3.6 s, so scoring 5 budgets on 4 folds of every row took 72 s of a fit without
#: a time limit, and a 5 s limit's share scored no fold.
ROWS = 2000
#: The most rows the loss-optimal family's choice fits its greedy trees on. A dense hyperplane needs more rows than
#: a sparse one, so a sample smaller than the fit's rows favours the budget: OLCT's default on 4,000 rows of phishing
#: chose 3 features per split on 2,000 of them (the greedy trees' held-out balanced accuracy 91.3 against 92.2
#: dense; 91.5 against 93.6 on every row) and its test balanced accuracy was 91.6 against 94.2 for the dense fit.
#: The whole choice took 1.0-2.2 s on 2,000 rows of adult, a2a, a4a and phishing (4,000-28,000 rows) and 1.2-9.4 s on
#: 8,000 (one thread; 11-23 s on every row of 16,000-28,000), within the 9 s share of a 60 s fit.
LOSS_OPTIMAL_ROWS = 8000


def features(budgets) -> list:
    """Each budget's features per hyperplane, no budget counting as infinitely many (the order of the choice)."""
    return [float("inf") if b is None else float(b) for b in budgets]


def sample(y, seed, most=None) -> np.ndarray | None:
    """The rows the choice fits on: ``None`` (every row) up to ``most`` (default :data:`ROWS`), else a sample of
    ``most`` rows stratified by ``y`` (uniform when a class has a single row), in increasing order."""
    from sklearn.model_selection import StratifiedShuffleSplit

    most = ROWS if most is None else int(most)
    y = np.asarray(y)
    if len(y) <= most:
        return None
    if np.unique(y, return_counts=True)[1].min() < 2:
        return np.sort(np.random.default_rng(seed).choice(len(y), most, replace=False))
    rows, _ = next(StratifiedShuffleSplit(1, train_size=most, random_state=seed).split(np.zeros(len(y)), y))
    return np.sort(rows)


def is_auto(max_features) -> bool:
    """Whether ``max_features`` asks for the held-out choice."""
    return isinstance(max_features, str) and max_features == "auto"


def chooses_per_split(max_features, n_rows: int) -> bool:
    """Whether the loss-optimal trees choose ``max_features="auto"``'s budget on held-out folds of ``n_rows``
    training rows (:data:`MIN_ROWS_TO_CHOOSE`; on fewer rows, no budget).

    >>> chooses_per_split("auto", 60), chooses_per_split("auto", 500), chooses_per_split(3, 500)
    (False, True, False)
    """
    return is_auto(max_features) and n_rows >= MIN_ROWS_TO_CHOOSE


def chooses_tree_wide(max_total_features, n_rows: int) -> bool:
    """Whether ``max_total_features="auto"`` is chosen on held-out folds of ``n_rows`` training rows
    (:data:`MIN_ROWS_TO_CHOOSE`; on fewer rows, no budget).

    >>> chooses_tree_wide("auto", 150), chooses_tree_wide("auto", 1000), chooses_tree_wide(None, 1000)
    (False, True, False)
    """
    return is_auto(max_total_features) and n_rows >= MIN_ROWS_TO_CHOOSE


def planned_share(per_split: bool, tree_wide: bool, other: float = 0.0) -> tuple[float, str]:
    """``(share, why)`` of a presolve that chooses the budget per hyperplane (:data:`SHARE`) and / or the tree-wide
    one (:data:`TOTAL_SHARE`) on held-out folds, after ``other`` (a share of its own, e.g. a held-out ``C``), as
    :class:`~optitrees.estimators.mip_fit.fit_plan.FitPlan` reports it.

    >>> planned_share(True, False)
    (0.15, 'the features per hyperplane chosen on held-out folds')
    """
    share = other + (SHARE if per_split else 0.0) + (TOTAL_SHARE if tree_wide else 0.0)
    chosen = [what for what, runs in (("the features per hyperplane", per_split),
                                      ("the features of the whole tree", tree_wide)) if runs]
    return share, (" and ".join(chosen) + " chosen on held-out folds") if chosen else ""


def choose(y, fit_and_score, budget, seed, candidates=BUDGETS, share=SHARE, stage="held-out budget",
           name="max_features", fallback=FALLBACK, tolerance=TOLERANCE, paired_error=True, most=None,
           non_inferior=False):
    """``(chosen budget, budget_results_)`` of the label trees of the rows labelled ``y``:
    ``fit_and_score(candidate, train, test)`` fits a tree with that budget (one of ``candidates``, ``None``
    first: no budget) on the rows ``train`` and returns its balanced accuracy on ``test``
    (:func:`~optitrees.algorithms.fold_search.balanced_accuracy`); the folds are drawn from at most ``most``
    (default :data:`ROWS`) rows (:func:`sample`); the search ends within ``share`` of ``budget`` (a
    :class:`~optitrees.budget.Budget`), which laps ``stage``. ``name`` keys the candidates in the results;
    ``fallback`` is chosen when no fold could be scored. The candidate chosen is the fewest features within
    ``tolerance`` of the best (and, with ``paired_error``, within one standard error of its shortfall:
    :func:`~optitrees.algorithms.fold_search.fewest_within`); with ``non_inferior``, the fewest features
    non-inferior to the first candidate by ``tolerance``
    (:func:`~optitrees.algorithms.fold_search.fewest_non_inferior`)."""
    rows = sample(y, seed, most)
    if rows is None:
        def score(k, train, test):
            return fit_and_score(candidates[k], train, test)
    else:
        y = np.asarray(y)[rows]

        def score(k, train, test):
            return fit_and_score(candidates[k], rows[train], rows[test])
    compared, folds, table = scores_on_folds(y, len(candidates), score, n_folds=FOLDS, random_state=seed,
                                             deadline=budget.until(share))
    budget.lap(stage)
    if not len(compared):
        chosen = fallback
    elif non_inferior:
        chosen = candidates[fewest_non_inferior(compared, 0, tolerance, features(candidates), table)]
    else:
        chosen = candidates[fewest_within(compared, tolerance, features(candidates), table if paired_error else None)]
    return chosen, results(candidates, compared, folds, table, name)


def results(choice_candidates, compared, folds_scored, table, name="max_features") -> dict:
    """``budget_results_`` of a fit: the candidates (keyed ``name``), their mean held-out balanced accuracy
    (``nan``: not compared), the folds scored, the candidates compared and the held-out balanced accuracy per fold
    (one row per fold scored, one column per candidate compared)."""
    mean = np.full(len(choice_candidates), np.nan)
    mean[:len(compared)] = compared
    return {name: list(choice_candidates), "mean_held_out_balanced_accuracy": mean,
            "folds_scored": folds_scored, "candidates_scored": len(compared),
            "held_out_balanced_accuracy_per_fold": np.asarray(table, float)}


def first_features(X, y, sample_weight, allowed, count, deadline=None, seed=0) -> np.ndarray:
    """``allowed`` (a mask) narrowed to the first ``count`` features the l1-logistic path admits on the rows
    ``(X, y)`` (:func:`~optitrees.algorithms.feature_order.l1_entry_order`; on a stratified sample of
    :data:`ORDER_ROWS` of them beyond that, :func:`sample`); ``allowed`` itself when ``count`` is ``None`` or at
    least the allowed features."""
    allowed = np.asarray(allowed, bool)
    if count is None or count >= allowed.sum():
        return allowed
    rows = sample(y, seed, ORDER_ROWS)
    if rows is not None:
        X, y = X[rows], np.asarray(y)[rows]
        sample_weight = None if sample_weight is None else np.asarray(sample_weight)[rows]
    order = l1_entry_order(X, y, sample_weight, allowed, most=count, deadline=deadline)
    kept = np.zeros(len(allowed), bool)
    kept[order[:count]] = True
    return kept


def choose_total(X, y, sample_weight, allowed, fit_and_score, budget, seed, most=None):
    """``(chosen tree-wide budget, total_budget_results_)``: the fewest features of :data:`TOTAL_BUDGETS` whose trees'
    held-out balanced accuracy is non-inferior to no budget's (:data:`TOTAL_MARGIN`), within
    :data:`TOTAL_SHARE` of ``budget``. ``fit_and_score(kept, train, test, deadline)`` fits a tree on the rows
    ``train`` splitting on the features of the mask ``kept`` by ``deadline`` and returns its balanced accuracy on
    ``test``; each fold's features are ordered on its own training rows (:func:`first_features`); the folds are
    drawn from at most ``most`` rows (:func:`choose`). ``None`` (no tree-wide budget) when nothing could be
    scored."""
    deadline = budget.until(TOTAL_SHARE)

    def score(candidate, train, test):
        kept = first_features(X[train], y[train], None if sample_weight is None else sample_weight[train], allowed,
                              candidate, deadline)
        return fit_and_score(kept, train, test, deadline)

    return choose(y, score, budget, seed, TOTAL_BUDGETS, TOTAL_SHARE, "held-out tree-wide budget",
                  "max_total_features", fallback=None, tolerance=TOTAL_MARGIN, most=most, non_inferior=True)


def tree_wide_features(estimator, X, y, sample_weight, allowed, fit_and_score, budget, seed,
                       most=None) -> np.ndarray:
    """The mask of the features a tree of ``estimator`` may read under its ``max_total_features``: ``allowed``
    without a tree-wide budget, else its first ones on the l1-logistic path of the rows (:func:`first_features`),
    their number chosen with ``"auto"`` by :func:`choose_total` (``fit_and_score`` as there). Sets the estimator's
    ``max_total_features_`` and, when chosen, ``total_budget_results_``. ``"auto"`` on fewer than
    :data:`MIN_ROWS_TO_CHOOSE` rows is no budget."""
    estimator.__dict__.pop("total_budget_results_", None)
    total = estimator.max_total_features
    if chooses_tree_wide(total, len(y)):
        total, estimator.total_budget_results_ = choose_total(X, y, sample_weight, allowed, fit_and_score, budget,
                                                              seed, most)
    elif is_auto(total):                          # too few rows to choose on: no budget
        total = None
    estimator.max_total_features_ = total
    if total is None:
        return np.asarray(allowed, bool)
    kept = first_features(X, y, sample_weight, allowed, total, budget.deadline, seed)
    budget.lap("tree-wide features")
    return kept


def with_features(problem, kept):
    """``problem`` (a MIP estimator's: its spec has ``forbidden``) with every feature outside the mask ``kept``
    forbidden, ``w[t, j] = 0`` in the model and in every start and refit."""
    from dataclasses import replace

    return replace(problem, spec=replace(problem.spec, forbidden=tuple(int(j) for j in np.flatnonzero(~kept))))
