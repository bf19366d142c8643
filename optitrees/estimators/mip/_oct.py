"""scikit-learn estimators for Bertsimas & Dunn's optimal classification trees: OCT and OCT-H."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ...algorithms.fixed_tree import FixedTree
from ...algorithms.local_search.tao import tao_label_tree
from ...algorithms.local_search.tmo import tmo_label_tree
from ...algorithms.oct.cart import cart_tree, greedy_oblique_tree
from ...algorithms.oct.contree import contree_tree, multiplicities, rounded_bound
from dataclasses import replace

from ...algorithms.fold_search import balanced_accuracy
from ...budget import expired
from ...formulations.oct.model import OCTProblem, OCTSpec
from ...formulations.oct.solution import OCT_FAMILY
from ...solvers.plan import SUB_MIP_HEURISTICS_OFF
from ...solvers.registry import is_default
from ...trees import feature_importances
from .. import _auto_budget as auto
from .._base import SensitiveFeaturesFit
from .._docs import SOLVER_PARAMETERS_DOC
from .._report import ExactSearch
from .._views import TreeViews
from ._oct_parity import ParitySearches
from ._template import MIPClassifier

__all__ = ["OCTClassifier", "OCTHClassifier"]


class _BaseOCT(TreeViews, SensitiveFeaturesFit, ParitySearches, MIPClassifier):
    _family = OCT_FAMILY
    _scaling = "unit"
    _binary = False
    _oblique = False
    _default_start = "best"
    _refine_name = "tao"
    #: HiGHS's presolve does not check its time limit on these models (OCT-H on tic-tac-toe: a 6 s solve
    #: ran 10 s, a 10 s fit took 20.7 s in bench/loss_optimal.py); without it the limit holds. The
    #: settings benchmark measured a slightly worse objective without presolve for OCT-H (median ratio to
    #: greedy 0.837 vs 0.800), a price paid for keeping the time limit.
    _solver_defaults = {"highs": {"presolve": "off"}}
    #: With a start handed over, HiGHS's sub-MIP heuristics are off (the neighbourhood rounds search near the start;
    #: RINS's presolve outlived a 30 s OCT-H fit by minutes: :data:`~optitrees.solvers.plan.SUB_MIP_HEURISTICS_OFF`).
    _solver_defaults_with_start = SUB_MIP_HEURISTICS_OFF
    _parameter_constraints = {
        **MIPClassifier._parameter_constraints,
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "refine": ["boolean"],
    }
    #: Share of the budget the exact search (ConTree) leaves for the fallback starts and the report when it
    #: cannot prove its tree optimal in time (at least :attr:`_exact_reserve_seconds`).
    _exact_reserve = 0.05
    _exact_reserve_seconds = 0.5

    def __init__(self, max_depth=2, *, alpha=0.0, min_samples_leaf=1, refine=True, warm_start=True,
                 solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None, forbidden_features=None, constraints=None, class_weight=None,
                 fairness=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None):
        self.max_depth = max_depth
        self.alpha = alpha
        self.min_samples_leaf = min_samples_leaf
        self.refine = refine
        self.warm_start = warm_start
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options
        self.forbidden_features = forbidden_features
        self.constraints = constraints
        self.class_weight = class_weight
        self.feature_costs = feature_costs
        self.max_feature_cost = max_feature_cost
        self.monotonic_cst = monotonic_cst
        self.fairness = fairness

    def _make_spec(self, forbidden, n_classes):
        budget = getattr(self, "max_features", None)        # "auto": the dense spec; _presolve sets the budget
        return OCTSpec.create(self.max_depth, float(self.alpha), self.min_samples_leaf, n_classes, self._oblique,
                              forbidden=forbidden, max_features=None if auto.is_auto(budget) else budget,
                              monotone=self._monotone_signs() if self._oblique else ())

    def _make_problem(self, spec, data):
        return OCTProblem.create(spec, data)

    def _allowed(self, problem):
        allowed = np.ones(problem.data.n_features, bool)
        allowed[list(problem.spec.forbidden)] = False
        return allowed

    def _tao(self, problem, tree, deadline):
        """TAO on the OCT objective, keeping OCT-H's margin ``mu`` so the tree stays a feasible start."""
        spec, data = problem.spec, problem.data
        ft = tao_label_tree(FixedTree.from_tree(tree, spec.depth), data.X, data.y, L_hat=problem.L_hat,
                            alpha=spec.alpha, complexity="features" if spec.oblique else "splits",
                            oblique=spec.oblique, min_samples_leaf=spec.min_samples_leaf,
                            mu=spec.mu if spec.oblique else 0.0, allowed=self._allowed(problem), deadline=deadline,
                            random_state=self._seed, sample_weight=data.fit_weight, max_features=spec.max_features)
        return ft.to_tree(spec.n_classes).with_counts(data.X, data.y, sample_weight=data.fit_weight)

    def _starts(self, problem, deadline, methods):
        spec, data = problem.spec, problem.data
        allowed, v = self._allowed(problem), data.fit_weight
        if self._oblique:
            greedy = greedy_oblique_tree(data.X, data.y, spec.depth, spec.n_classes, spec.min_samples_leaf, spec.mu,
                                         self._seed, allowed, deadline=deadline, sample_weight=v,
                                         max_features=spec.max_features)
        else:
            greedy = cart_tree(data.X, data.y, spec.depth, spec.min_samples_leaf, self._seed, allowed, v)
        starts = {"greedy": greedy.with_counts(data.X, data.y, sample_weight=v)}
        if "tao" in methods and not expired(deadline):         # (a start begun late still fits its first trees)
            starts["tao"] = self._tao(problem, starts["greedy"], deadline)
        if "tmo" in methods and not expired(deadline):
            ft, _ = tmo_label_tree(data.X, data.y, spec.depth, spec.n_classes, random_state=self._seed,
                                   deadline=deadline, allowed=allowed, sample_weight=v,
                                   tao_options=dict(L_hat=problem.L_hat, alpha=spec.alpha,
                                                    min_samples_leaf=spec.min_samples_leaf))
            tree = ft.to_tree(spec.n_classes).with_counts(data.X, data.y, sample_weight=v)
            starts["tmo"] = self._tao(problem, tree, deadline) if self._oblique else tree
        return starts

    def _exact_search(self, problem, budget, log):
        """ConTree for what it expresses: axis-aligned splits, no minimum leaf size, no user constraints (with a
        fairness constraint its optimum certifies the fit only where it keeps it, else bounds it).

        ConTree counts rows, so weights become rows repeated
        (:func:`~optitrees.algorithms.oct.contree.multiplicities`): exactly when they are whole multiples of one
        unit, otherwise rounded down, and then ConTree's optimum is not the weighted one but bounds it from
        below (:func:`~optitrees.algorithms.oct.contree.rounded_bound`); its tree, labelled by the weights, is a
        start."""
        spec = problem.spec
        if getattr(self, "exact_search", "mip") != "auto" or not is_default(self.solver) or spec.oblique \
                or spec.min_samples_leaf > 1 \
                or self.constraints is not None or spec.depth > 4:
            return None
        data = problem.data
        counted = multiplicities(data.fit_weight)                # None: every row once
        limit = None if budget.seconds is None else max(
            0.0, budget.remaining() - max(self._exact_reserve * budget.seconds, self._exact_reserve_seconds))
        counts, unit = (None, 1.0) if counted is None else (counted.counts, counted.unit)
        tree, proven, seconds = contree_tree(data.X, data.y, spec.depth, spec.alpha, problem.L_hat / unit,
                                             spec.n_classes, limit, self._allowed(problem), counts)
        bound = None
        rounded = counted is not None and not counted.exact
        if rounded and proven:
            bound = rounded_bound(tree, data.X, data.y, counts, unit, problem.L_hat, spec.alpha)
            log.note(f"ConTree searched the weights rounded down to whole multiples of {unit:.4g} "
                     f"({int(counts.sum())} rows, {counted.lost:.2%} of the weight dropped); its optimum there is a "
                     "lower bound and its tree a start")
        if counted is not None:
            tree = tree.with_counts(data.X, data.y, relabel="all" if rounded else "empty", sample_weight=data.weight)
        if not proven:              # the fit's bound is then the family's (rows identical with another label)
            ran = "600 s, with no time limit" if limit is None else f"{limit:.3g} s"     # contree_tree's default
            log.note(f"ConTree's search ended at its time limit ({ran}) before its proof; its best tree "
                     "is a start")
        return ExactSearch(tree, proven and not rounded, seconds, "contree", bound)

    def _refine(self, problem, tree, deadline):
        if not self.refine:
            return None
        return self._tao(problem, tree, deadline)

    def _store(self, problem, tree):
        self.tree_ = tree
        self.feature_importances_ = feature_importances(tree, problem.data.X_original)

    def predict_proba(self, X):
        """Training class frequencies in the leaf each sample reaches, shape ``(n_samples, n_classes)``."""
        X = self._X(X)
        return self.tree_.predict_proba(X)


_DOC = """{summary}

    Fits the mixed-integer program of Bertsimas & Dunn (2017) (see
    :mod:`optitrees.formulations.oct.model`) on features scaled to ``[0, 1]``: leaf
    labels for any number of classes, objective ``errors / L_hat + alpha *
    {complexity}`` with ``L_hat`` the error of predicting the majority class,
    and at least ``min_samples_leaf`` points in every leaf that holds any.
    {exact}The greedy start is {start}; with ``warm_start`` it is improved by TAO
    (the default) or replaced by TMO's best tree, and the solver's tree is
    improved by TAO before the comparison. The returned tree is never worse
    than the best start. Splits are reported in the original
    feature units, each threshold a short number strictly between the
    neighbouring training values.

    Parameters
    ----------
    max_depth : int, default=2
    alpha : float, default=0.0
        Complexity weight.
    min_samples_leaf : int, default=1
        ``N_min``.
{exact_param}    refine : bool, default=True
        Improve the solver's tree by TAO on the exact objective (kept only when better).
{solver_doc}
    fairness : ParityNotion, optional
        Hold the tree to a group-fairness notion of :mod:`optitrees.fairness` (``DemographicParity``,
        ``TruePositiveRateParity``, ``FalsePositiveRateParity``, ``EqualizedOdds``,
        ``ConditionalStatisticalParity``) with its ``difference_bound``, the groups given to ``fit`` as
        ``sensitive_features`` (two classes; the positive one is ``classes_[1]``). Its block
        (:mod:`optitrees.fairness.block`) is part of the formulation; every start has its leaves relabelled to keep
        it and the returned tree keeps it on the training rows (``fit_report_.fairness``). A fair leaf may predict
        a class other than its majority: ``predict_proba`` still gives the leaf's training class frequencies.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when ``X`` had string column names.
    feature_importances_ : ndarray of shape (n_features,)
        Each classifying node's training points shared over the features of its
        hyperplane by ``|w_j| * std(x_j)`` at the node (all to the feature of an
        axis-aligned split), summed and normalized
        (:func:`optitrees.trees.feature_importances`).
    tree_ : Tree
        Splits ``w @ x <= threshold`` (left) in original units, leaf labels as
        indices into ``classes_`` and training class counts per node.
    solver_result_ : SolverResult
        The solve, ``checks`` (routing agreement, recomputed objective),
        ``returned`` and the exact ``objectives`` of start and solver.
    objective_ : float
        Training objective of the returned tree.
    warm_start_objective_ : float
    formulation_summary_ : str
    max_features_ : int or None
        OCT-H: the budget of each split the fit used (chosen with ``max_features="auto"``); ``None``: none.
    budget_results_ : dict
        OCT-H with ``max_features="auto"``: ``"max_features"`` (the candidates),
        ``"mean_held_out_balanced_accuracy"``, ``"folds_scored"``, ``"candidates_scored"`` and
        ``"held_out_balanced_accuracy_per_fold"`` (one row per fold scored).
    max_total_features_ : int or None
        OCT-H: the distinct features the tree may read (chosen with ``max_total_features="auto"``); ``None``: every
        allowed feature.
    total_budget_results_ : dict
        OCT-H with ``max_total_features="auto"``: as ``budget_results_``, the candidates under
        ``"max_total_features"``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = {name}(max_depth=1, time_limit=10).fit(X, y)
    >>> len(set(clf.predict(X)))
    2
    """


class OCTClassifier(_BaseOCT):
    _oblique = False
    _greedy_name = "CART"
    _parameter_constraints = {**_BaseOCT._parameter_constraints, "exact_search": [StrOptions({"auto", "mip"})]}

    def __init__(self, max_depth=2, *, alpha=0.0, min_samples_leaf=1, exact_search="auto", refine=True,
                 warm_start=True, solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None,
                 verbose=False, solver_options=None, forbidden_features=None, constraints=None, class_weight=None,
                 fairness=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None):
        super().__init__(max_depth, alpha=alpha, min_samples_leaf=min_samples_leaf, refine=refine,
                         warm_start=warm_start,
                         solver=solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads,
                         random_state=random_state, verbose=verbose, solver_options=solver_options,
                         forbidden_features=forbidden_features, constraints=constraints,
                         class_weight=class_weight, fairness=fairness,
                         feature_costs=feature_costs, max_feature_cost=max_feature_cost,
                         monotonic_cst=monotonic_cst)
        self.exact_search = exact_search


class OCTHClassifier(_BaseOCT):
    _oblique = True
    _greedy_name = "greedy oblique"
    _presolve_stage = "held-out budget"
    _parameter_constraints = {**_BaseOCT._parameter_constraints,
                              "max_features": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
                              "max_total_features": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}),
                                                     None]}

    def __init__(self, max_depth=2, *, alpha=0.0, max_features="auto", max_total_features=None, min_samples_leaf=1,
                 refine=True, warm_start=True, solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None,
                 random_state=None, verbose=False, solver_options=None, forbidden_features=None, constraints=None,
                 class_weight=None, fairness=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None):
        super().__init__(max_depth, alpha=alpha, min_samples_leaf=min_samples_leaf, refine=refine,
                         warm_start=warm_start, solver=solver, time_limit=time_limit, mip_gap=mip_gap,
                         threads=threads, random_state=random_state, verbose=verbose, solver_options=solver_options,
                         forbidden_features=forbidden_features, constraints=constraints, class_weight=class_weight,
                         fairness=fairness, feature_costs=feature_costs, max_feature_cost=max_feature_cost,
                         monotonic_cst=monotonic_cst)
        self.max_features = max_features
        self.max_total_features = max_total_features

    def _presolve_plan(self, n_rows):
        """The shares of the held-out choices of :meth:`_presolve` (:func:`._auto_budget.planned_share`)."""
        return auto.planned_share(auto.is_auto(self.max_features),
                                  auto.chooses_tree_wide(self.max_total_features, n_rows))

    def _presolve(self, problem, budget):
        """``max_features="auto"``: the problem with the fewest features per split whose starts (the greedy oblique
        tree, then TAO, as the fit's), fitted on 3 of 4 folds, keep the held-out balanced accuracy
        (:func:`._auto_budget.choose`). Sets ``max_features_`` and, when chosen, ``budget_results_``."""
        self.__dict__.pop("budget_results_", None)
        if auto.is_auto(self.max_features):
            deadline = budget.until(auto.SHARE)
            weight = problem.data.weight

            def fit_and_score(max_features, train, test):
                sub = problem.on_rows(train)
                sub = replace(sub, spec=replace(sub.spec, max_features=max_features))
                tree = self._starts(sub, deadline, ("tao",))
                tree = tree.get("tao", tree["greedy"])
                return balanced_accuracy(problem.data.y[test], tree.predict(problem.data.X[test]), weight[test])

            chosen, self.budget_results_ = auto.choose(problem.data.y, fit_and_score, budget, self._seed)
            problem = replace(problem, spec=replace(problem.spec, max_features=chosen))
        self.max_features_ = problem.spec.max_features
        return self._tree_wide(problem, budget)

    def _tree_wide(self, problem, budget):
        """``max_total_features``: the problem with every feature but the first ones of the l1-logistic path
        forbidden (their number chosen on held-out folds with ``"auto"`` by the starts, as the budget per split:
        :func:`._auto_budget.tree_wide_features`)."""
        data = problem.data

        def fit_and_score(kept, train, test, deadline):
            trees = self._starts(auto.with_features(problem.on_rows(train), kept), deadline, ("tao",))
            tree = trees.get("tao", trees["greedy"])
            return balanced_accuracy(data.y[test], tree.predict(data.X[test]), data.weight[test])

        allowed = self._allowed(problem)
        kept = auto.tree_wide_features(self, data.X, data.y, data.fit_weight, allowed, fit_and_score, budget,
                                       self._seed)
        return problem if kept.sum() == allowed.sum() else auto.with_features(problem, kept)


OCTClassifier.__doc__ = _DOC.format(
    summary="Optimal Classification Tree with axis-aligned splits (OCT, Bertsimas & Dunn 2017).",
    complexity="(number of splits)", start="scikit-learn's CART of the same depth", name="OCTClassifier",
    solver_doc=SOLVER_PARAMETERS_DOC, exact_param="""    exact_search : {"auto", "mip"}, default="auto"
        ``"auto"``: ConTree where it applies (see above) and the solver is the
        default HiGHS; a solver named otherwise (``solver="scip"``) solves the
        MIP itself. ``"mip"``: always the MIP.
""",
    exact="""Without a minimum leaf size or user constraints and up to depth 4, the
    exact engine is ConTree (dynamic programming with branch-and-bound on the
    continuous features, :mod:`optitrees.algorithms.oct.contree`): with the
    whole time limit but a reserve it returns the optimum and its proof
    (``fit_report_.certified_by == "contree"``) and no MIP is built;
    otherwise its best tree is one more start for the MIP. ConTree counts
    rows, so weights are rows repeated: exactly when they are whole multiples
    of one unit (merged duplicates, ``class_weight={0: 0.5, 1: 1.5}``),
    otherwise rounded down to one, and then ConTree's optimum is a lower bound
    (``fit_report_.bound``) and its tree a start.

    """)
OCTHClassifier.__doc__ = _DOC.format(
    summary="Optimal Classification Tree with oblique splits (OCT-H, Bertsimas & Dunn 2017).",
    complexity="(number of features used over all splits)",
    start="a greedy oblique tree (CART stump or one-vs-rest l1-logistic hyperplane per node)",
    name="OCTHClassifier", solver_doc=SOLVER_PARAMETERS_DOC, exact="",
    exact_param="""    max_features : int, "auto" or None, default="auto"
        At most this many features in each split (the budget row
        ``sum_j delta[t, j] <= max_features`` of 3.14); the greedy start and
        TAO keep to it too. ``None``: any number, priced by ``alpha``.
        ``"auto"``: the fewest of ``(2, 3, 5, 8, None)`` features per split
        whose starts (greedy oblique, then TAO), fitted on 3 of 4 stratified
        folds, keep the held-out balanced accuracy within a point of the best
        candidate's, chosen within 15% of ``time_limit``
        (:mod:`optitrees.estimators._auto_budget`; ``max_features_``,
        ``budget_results_``; ``build_formulation`` gives the model before the
        choice, with no budget).
    max_total_features : int, "auto" or None, default=None
        At most this many distinct features in the whole tree: the first ones
        the l1-logistic regression path admits on the training rows (a
        stratified sample of 8,000 beyond that;
        :func:`optitrees.algorithms.feature_order.l1_entry_order`); the others
        are forbidden to the starts, TAO and the MIP (``w[t, j] = 0``).
        ``"auto"``: the one of ``(2, 3, 5, 8, None)`` whose starts, fitted on
        3 of 4 stratified folds (each fold's features ordered on its own
        training rows), keep a mean held-out balanced accuracy non-inferior to
        no budget's (their paired difference less one standard error at least
        0; best mean first, then fewer features), within 30% of
        ``time_limit``, after the budget per split, on 400 training rows or
        more; on fewer, no budget (folds that small chose budgets that lost
        3-5 points on held-out rows: :mod:`optitrees.estimators._auto_budget`)
        (``max_total_features_``, ``total_budget_results_``). ``None``: every
        allowed feature.
""")
