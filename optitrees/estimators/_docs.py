"""Parameter documentation the estimators share, appended to their docstrings."""

__all__ = ["CLASS_WEIGHT_DOC", "SOLVER_PARAMETERS_DOC", "LOSS_OPTIMAL_ATTRIBUTES_DOC", "RISK_SCORE_ATTRIBUTES_DOC",
           "RISK_SCORE_FAIRNESS_DOC"]

#: The ``class_weight`` parameter's documentation, shared by every classifier's docstring.
CLASS_WEIGHT_DOC = """    class_weight : "balanced" or dict, optional
        Multiplies the weight of every row of a class: ``{label: weight}``, or
        ``"balanced"`` (each class gets the same total weight, ``W / (K W_k)``);
        combined with ``fit``'s ``sample_weight``. A binary family fitted on
        more than two classes (one tree per class against the rest) balances
        each of its trees, class ``k`` against the rest."""

#: ``feature_costs`` and ``max_feature_cost`` of every MIP classifier.
FEATURE_COSTS_DOC = """    feature_costs : array-like of shape (n_features,) or dict, optional
        What measuring each feature costs (finite, >= 0): one number per
        feature, or ``{feature name: cost}`` (features not named cost 0).
        ``None`` with ``max_feature_cost``: a unit cost each (the budget is
        then a number of features, as ``max_total_features``). Without
        ``max_feature_cost`` the costs are only reported.
    max_feature_cost : float, optional
        The most the features the model reads may cost together: a feature
        counts once however many splits, leaf models or rules read it. The
        MIP holds ``sum_j c_j u_j <= max_feature_cost`` with ``u_j`` on where
        the model reads feature ``j``
        (:mod:`optitrees.formulations.feature_budget`); the starts are grown on
        the first features of the l1-logistic path that fit in it, and no model
        over it is returned. ``fit_report_.feature_cost`` gives what the
        returned model's features cost.
    monotonic_cst : array-like of {-1, 0, 1} or dict, optional
        scikit-learn's meaning: per feature, the model's decision for the
        positive class (``classes_[1]``) never falls (+1) or rises (-1) as the
        feature rises, all else fixed; ``{name: sign}`` leaves unnamed features
        free. Two classes only. Held by the MIP where it can be: the
        loss-optimal trees (no split reads a constrained feature, each leaf's
        weight on it has its sign: every node fit of the starts and
        refinements keeps it too) and the risk scores (the points on it have
        its sign); by OCT-H's MIP in a sufficient form (each split weighs a
        constrained feature with its sign, and a split reading one keeps every
        leaf of its left subtree at or below every leaf of its right one:
        :func:`~optitrees.formulations.oct.blocks.add_monotone_order`; its
        starts get the monotone labels of least error in that order); by the
        leaves' labels for OCT (every start and candidate gets the monotone
        labels of least error region by region; OCT's MIP does not hold it,
        so its bound is the unconstrained problem's and a proof is rare).
        The returned model is proved monotone over
        all of feature space (``fit_report_.monotonicity``,
        :func:`optitrees.monotonicity.check_monotonic`). A label tree's
        ``predict_proba`` gives its leaves' training frequencies, which are
        not held monotone."""

#: ``fairness`` of the loss-optimal classifiers.
LOSS_OPTIMAL_FAIRNESS_DOC = """    fairness : ParityNotion, optional
        Hold the tree to a group-fairness notion of :mod:`optitrees.fairness`
        (``DemographicParity``, ``TruePositiveRateParity``,
        ``FalsePositiveRateParity``, ``EqualizedOdds``,
        ``ConditionalStatisticalParity``) with its ``difference_bound``, the
        groups given to ``fit`` as ``sensitive_features`` (two classes). The
        MIP gets a binary per row, on when its leaf's score is positive
        (``positive_upper`` / ``positive_lower``), and the rates' bound on it
        (:func:`optitrees.fairness.block.add_row_parity`). Every start and
        candidate that does not keep it is made fair by a small MIP over its
        leaves: each keeps its model, moves its threshold to a quantile of its
        rows' scores, or becomes a constant leaf. The returned tree keeps it on
        the training rows (``fit_report_.fairness``)."""

#: The attributes of the risk scores (``{card}``, ``{checks}``: each estimator's own).
RISK_SCORE_ATTRIBUTES_DOC = """    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : ndarray
        Only when ``X`` had string column names.
    feature_importances_ : ndarray of shape (n_features,)
        ``|points| * std(rule value)`` of each rule on the training data, per
        feature, normalized (:meth:`ScoreCard.feature_importances`).
    score_card_ : ScoreCard
        {card}
    objective_ : float
        Exact training logistic loss of the returned model.
    warm_start_objective_ : float
    solver_result_ : SolverResult
        The solve, ``checks`` ({checks}), ``returned`` and the exact ``objectives``.
    formulation_summary_ : str"""

#: ``fairness`` of the risk scores.
RISK_SCORE_FAIRNESS_DOC = """    fairness : ParityNotion, optional
        Hold the card to a group-fairness notion of :mod:`optitrees.fairness`
        (``DemographicParity``, ``TruePositiveRateParity``,
        ``FalsePositiveRateParity``, ``EqualizedOdds``,
        ``ConditionalStatisticalParity``) with its ``difference_bound``, the
        groups given to ``fit`` as ``sensitive_features``. The tangent model
        gets a binary per row, on when its score is positive
        (``positive_upper`` / ``positive_lower``), and the rates' bound on it
        (:func:`optitrees.fairness.block.add_row_parity`); ``method="auto"``
        then solves the tangent model (the cutting-plane master sets each
        solution's intercept by the loss alone, so it refuses the constraint).
        Every start and candidate that does not keep it gets the intercept of
        least training error that does (:func:`optitrees.fairness.threshold.fair_threshold`:
        a card that predicts every row alike always does). The returned card
        keeps it on the training rows (``fit_report_.fairness``)."""

#: The shared parameters' documentation, appended to each estimator's docstring.
SOLVER_PARAMETERS_DOC = """    warm_start : {True, False, "greedy", "tao", "tmo", "best"}, default=True
        The start handed to the solver: the greedy tree (``"greedy"``), the
        greedy tree improved by TAO (``"tao"``), the best tree of a TMO run
        (``"tmo"``), or the best of all three (``"best"``); ``True`` is the
        family's default (``"best"`` for the tree models: in
        ``bench/warm_starts.py`` it beat the greedy tree on 10 of 10 instances of
        every family at 10 s, with the lowest median objective), ``False``
        gives the solver no start (only the greedy model is computed, as the
        fallback). A loss-optimal tree of depth 1 (one node, no split) starts
        from its greedy fit alone: TAO and TMO would refit that same node. The returned
        model is never worse than the best start in the exact training objective.
    solver : str, default="highs"
        See :func:`optitrees.solvers.solve`.
    time_limit : float, default=60.0
        Seconds for the whole ``fit`` (starts, solve, polishing, refinement),
        honoured within about 5% + 1 s; ``None`` for no limit. At the limit the
        best model found is returned with a :class:`~optitrees.exceptions.TimeLimitWarning`
        stating the gap. Same data, seed and options give the same model when
        the solve ends on the gap or a node limit (``solver_options=
        {"mip_max_nodes": n}`` for HiGHS); where a wall-clock limit stops it,
        the incumbent depends on machine speed. A node limit counts
        branch-and-bound nodes, not the root node's cuts and heuristics: on a
        150-row depth-2 OLCT the root alone used a 10 s limit, so a quick fit
        needs a time limit too. Where the backend could not get past the root
        of the full model in time (HiGHS: its root LP would take more than
        half the solve's time, :meth:`optitrees.solvers.highs.HighsBackend.plan`;
        OLCT depth 2 on 4,000 rows of adult in a 60 s fit), the MIP is solved
        on weighted representative rows in reach
        (:mod:`optitrees.estimators.mip_fit.reduce`) and its tree refined on
        every row; ``fit_report_.mip_rows`` says how many rows it saw. When
        not even a reduced model is in reach, the starts get the whole limit
        and the best of them is returned with a
        :class:`~optitrees.exceptions.FallbackWarning` saying so. User
        ``constraints`` always get the full model.
    mip_gap : float, default=1e-4
    threads : int, optional
        Solver threads; also the most threads numpy's BLAS runs during the fit.
    random_state : int, optional
        Seed for the solver and the warm start.
    verbose : bool, default=False
        Show the solver log.
    solver_options : dict, optional
        Raw solver options, applied last, over the family's measured defaults
        per backend (``_solver_defaults``: HiGHS's presolve off for the
        loss-optimal trees, see ``bench/solver_settings.py``, and for OCT /
        OCT-H, whose presolve overran the time limit) and over what the
        backend plans for the model's size (HiGHS: a model of more than
        300,000 nonzeros or 20,000 rows goes without feasibility jump,
        symmetry detection and its heuristics' LP presolve, which check no
        time limit, :meth:`optitrees.solvers.highs.HighsBackend.plan`).
    forbidden_features : sequence of str or int, optional
        Features (names or column indices) no split or rule may use.
    constraints : callable, optional
        ``constraints(formulation)`` is called after the model is built and
        before it is solved: add rows with ``formulation.add_constraints`` or fix
        variables with ``formulation.fix`` (``formulation.index("J", name)``
        finds a feature). A start or refined model that violates the result is
        not returned.""" + "\n" + CLASS_WEIGHT_DOC + "\n" + FEATURE_COSTS_DOC

#: The attributes of the loss-optimal classifiers (:class:`~optitrees.LossOptimalTreeClassifier` and its presets).
LOSS_OPTIMAL_ATTRIBUTES_DOC = """    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        With two classes ``classes_[1]`` is the positive class (+1 internally).
        With more, the model is one tree per class against the rest
        (:mod:`optitrees.estimators._one_vs_rest`).
    estimators_ : list of estimators, or absent
        More than two classes only: the fitted binary estimators, ``estimators_[k]``
        scoring ``classes_[k]`` (its class ``True``) against the rest.
    one_vs_rest_ : OneVsRestTrees or None
        More than two classes only: the trees of ``estimators_``; ``tree_`` is then ``None``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when ``X`` had string column names.
    feature_importances_ : ndarray of shape (n_features,)
        Each classifying node's training points shared over the features of its
        hyperplane by ``|w_j| * std(x_j)`` at the node (all to the feature of an
        axis-aligned split), summed and normalized
        (:func:`optitrees.trees.feature_importances`).
    tree_ : Tree or None
        The fitted tree (two classes) in the user's units: inner nodes route by
        ``weights @ x <= threshold``, the leaves are the last layer's linear
        classifiers; every node keeps its own classifier offset in ``intercept``.
    solver_result_ : SolverResult
        The solve (status, objective, bound, gap, nodes, timings, trace) and
        ``checks`` (routing agreement, recomputed objective, for the outer
        approximation of ``||w||^2`` the achieved ``l2_relative_error``), then
        ``returned`` (start, solver or refined) and the exact ``objectives``.
    objective_ : float
        Exact training objective (3.12) of the returned tree.
    warm_start_objective_ : float
        Exact training objective of the greedy tree.
    formulation_summary_ : str
        Variable and constraint groups of the solved MIP with their sizes (a MIP out of HiGHS's reach: its rows
        and columns, counted without building it, then "not solved").
    node_std_ : ndarray of shape (n_nodes, n_features)
        Standard deviation of each feature over the training points reaching
        each node (for :meth:`feature_influence`).
    max_features_ : list of int or None
        Two classes: the HFS budget of each layer the fit used (chosen with
        ``max_features="auto"``); ``None``: no budget.
    budget_results_ : dict
        Two classes and ``max_features="auto"``: ``"max_features"`` (the
        candidates), ``"mean_held_out_balanced_accuracy"`` (``nan``: not compared),
        ``"folds_scored"``, ``"candidates_scored"`` and
        ``"held_out_balanced_accuracy_per_fold"`` (one row per fold scored).
    max_total_features_ : int or None
        Two classes: the distinct features the tree may read (chosen with
        ``max_total_features="auto"``); ``None``: every allowed feature.
    total_budget_results_ : dict
        Two classes and ``max_total_features="auto"``: as ``budget_results_``,
        the candidates under ``"max_total_features"``."""


#: ``max_total_features`` of the loss-optimal classifiers (``{max_total_features_doc}`` in their docstrings).
LOSS_OPTIMAL_TREE_WIDE_DOC = """    max_total_features : int, "auto" or None, default=None
        At most this many distinct features in the whole tree (splits and leaf
        models): the first ones the l1-logistic regression path admits on the
        training rows (a stratified sample of 8,000 beyond that;
        :func:`optitrees.algorithms.feature_order.l1_entry_order`); the others
        are forbidden to the starts, TAO, the refits and the MIP (``w[t, j] =
        0``). ``"auto"``: the one of ``(2, 3, 5, 8, None)`` whose greedy
        trees, fitted on 3 of 4 stratified folds (each fold's features ordered
        on its own training rows), keep a mean held-out balanced accuracy
        non-inferior to no budget's (their paired difference less one standard
        error at least 0; best mean first, then fewer features), within 30% of
        ``time_limit``, after the budget per hyperplane, on 400 training rows
        or more; on fewer, no budget (folds that small chose budgets that lost
        3-5 points on held-out rows: :mod:`optitrees.estimators._auto_budget`)
        (``max_total_features_``, ``total_budget_results_``). ``None``: every
        allowed feature.
"""
