"""monotonic_cst on the MIP classifiers: every returned model is proved monotone (and a search of the printed
model's predictions agrees), OCT's optimum under the constraint is the brute-force one, the loss-optimal and OCT-H
MIPs hold it in their bounds and rows, bad input is named."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError

from optitrees import (GeneralizedRiskScoreClassifier, LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier,
                       OCTHClassifier, OLCTClassifier, RiskScoreClassifier)
from optitrees.estimators import FitOutcome
from optitrees.monotonicity import check_monotonic
from optitrees.persistence import load_model, save_model
from _support import NODES, ROOT, fit_quiet

CST = [1, -1, 0]


def _data(binary=False, n=160, seed=0):
    """The label rises with x0 up to 0.5 and falls past it, and falls with x1: a free model reads x0 both ways."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    score = np.where(X[:, 0] < 0.5, 1.5 * X[:, 0] + 0.25, 1.5 - 2.0 * X[:, 0]) - 0.5 * X[:, 1] + rng.normal(0, 0.3, n)
    y = (score > 0).astype(int)
    return ((X > 0).astype(float) + (X > 1).astype(float) if binary else X), y


def _decisions_never_move_against(model, X, cst):
    """Independent of the checker: move each constrained feature of every row through a grid and compare the
    model's own decision (a tree's label or leaf score, a card's total)."""
    decide = getattr(model, "decision_function", None)
    tree = getattr(model, "tree_", None)
    if tree is not None and tree.leaf_model.value == "label":
        decide = model.predict
    grid_rows = X[:40]
    for j, sign in enumerate(cst):
        if not sign:
            continue
        grid = np.linspace(X[:, j].min() - 1, X[:, j].max() + 1, 41)
        moved = np.repeat(grid_rows, len(grid), axis=0)
        moved[:, j] = np.tile(grid, len(grid_rows))
        values = np.asarray(decide(moved), float).reshape(len(grid_rows), len(grid))
        if np.any(sign * np.diff(values, axis=1) < -1e-9):
            return False
    return True


#: A score card reads each feature one way: the free cards here rise with x0 (the generalized one) and fall with x1
#: (both): they are held against it.
AGAINST = [-1, 0, 0]
AGAINST_X1 = [0, 1, 0]
CASES = [
    (OCTClassifier(max_depth=2, time_limit=20, warm_start="tao", solver_options=NODES), False, CST),
    (OCTHClassifier(max_depth=2, time_limit=20, warm_start="tao", solver_options=ROOT), False, CST),
    (OLCTClassifier(max_depth=2, time_limit=20, solver_options=ROOT, warm_start="tao"), False, CST),
    (MARGOTClassifier(max_depth=2, time_limit=20, solver_options=ROOT, warm_start="tao"), False, CST),
    (LossOptimalTreeClassifier(max_depth=2, loss="hinge", time_limit=20, solver_options=ROOT, warm_start="tao"),
     False, CST),
    (RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=20), True, AGAINST_X1),
    (RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, method="tangents", time_limit=20,
                         solver_options=NODES), True, AGAINST_X1),
    (GeneralizedRiskScoreClassifier(n_rules=2, positive_points=False, time_limit=5), False, AGAINST),
    (GeneralizedRiskScoreClassifier(n_rules=2, positive_points=False, method="tangents", time_limit=5,
                                    solver_options=NODES), False, AGAINST),
]


def _id(case):
    return type(case).__name__ if hasattr(case, "fit") else ""


@pytest.mark.parametrize("estimator,binary,cst", CASES, ids=_id)
def test_every_returned_model_is_proved_monotone(estimator, binary, cst):
    X, y = _data(binary)
    free = fit_quiet(clone(estimator), X, y)
    assert not check_monotonic(free, cst, X).keeps               # the constraint binds on these data
    clf = fit_quiet(estimator.set_params(monotonic_cst=cst), X, y)
    check = check_monotonic(clf, cst, X)
    assert check.proven
    signs = {f"x{j}": s for j, s in enumerate(cst) if s}
    assert clf.fit_report_.monotonicity == {"signs": signs, "exact": True, "keeps": True, "violations": 0}
    assert "kept (proved over all of feature space)" in str(clf.fit_report_)
    assert _decisions_never_move_against(clf, X, cst)


def test_without_the_constraint_oct_reads_x0_both_ways():
    X, y = _data()
    free = fit_quiet(OCTClassifier(max_depth=2, time_limit=20, solver_options=NODES), X, y)
    assert not check_monotonic(free, CST).keeps and not _decisions_never_move_against(free, X, CST)


def test_oct_under_the_constraint_claims_no_proof_it_does_not_have():
    """Depth 1, no time limit. OCT's MIP does not hold monotonicity (its leaves are relabelled), so its bound is the
    unconstrained problem's: the fit returns the best monotone stump here (brute force) but does not claim it
    optimal, and says why."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 6, size=(16, 2)).astype(float)
    y = (X[:, 0] <= 2).astype(int)                      # falls with x0
    y[[0, 3]] = 1 - y[[0, 3]]
    clf = fit_quiet(OCTClassifier(max_depth=1, time_limit=None, monotonic_cst=[1, 0]), X, y)
    L_hat = len(y) - np.bincount(y).max()
    best = min(np.bincount(y).min(), *(                 # no split, or a stump: left label <= right label on x0
        min(((y[X[:, j] < v] != a).sum() + (y[X[:, j] >= v] != b).sum())
            for a in (0, 1) for b in (0, 1) if j != 0 or a <= b)
        for j in range(2) for v in np.unique(X[:, j])[1:]))
    assert clf.objective_ == pytest.approx(best / L_hat, abs=1e-9)
    assert check_monotonic(clf, [1, 0]).proven
    assert clf.fit_report_.outcome is FitOutcome.NOT_PROVEN and clf.fit_report_.bound < clf.objective_
    assert any("without monotonicity (contree) is not monotone" in n for n in clf.fit_report_.notes)


def test_the_loss_optimal_mip_holds_it_in_its_bounds():
    X, y = _data()
    f = OLCTClassifier(max_depth=2, monotonic_cst=CST).build_formulation(X, y)
    w = f.variables["w"]
    lower, upper = w.lower.reshape(w.shape), w.upper.reshape(w.shape)
    root, leaves = 0, [1, 2]                            # nodes 1 (root) and 2, 3 (the last layer)
    assert lower[root, 0] == upper[root, 0] == 0.0 and lower[root, 1] == upper[root, 1] == 0.0
    assert upper[root, 2] > 0
    assert all(lower[t, 0] == 0.0 and upper[t, 0] > 0 for t in leaves)
    assert all(upper[t, 1] == 0.0 and lower[t, 1] < 0 for t in leaves)


def test_the_octh_mip_holds_it_in_its_bounds_and_rows():
    """Each split weighs x0 up and x1 down; a split reading either keeps every left leaf's positive label at or
    below every used right leaf's: a start that breaks the order breaks a row, its relabelled form none."""
    from optitrees.formulations.oct.solution import start
    from optitrees.trees import from_complete

    X, y = _data()
    f = OCTHClassifier(max_depth=1, monotonic_cst=CST).build_formulation(X, y)
    w = f.variables["w"]
    assert (w.lower.reshape(w.shape)[:, 0] == 0).all() and (w.upper.reshape(w.shape)[:, 1] == 0).all()
    assert "mirror" not in f.constraints and f.constraints["monotone_order"].shape == (2,)
    X01 = f.problem.data.X
    threshold = float(np.median(X01[:, 0]))
    for labels, broken in (([1, 0], True), ([0, 1], False)):
        tree, _ = from_complete(np.array([[1.0, 0.0, 0.0]]), np.array([threshold]), leaf_labels=np.array(labels))
        x = start(f, tree)
        order = f.constraints["monotone_order"]
        activity = f.matrix[order.start:order.start + order.size] @ x
        assert (activity > 2 + 1e-9).any() == broken


def test_every_tree_the_octh_mip_finds_is_monotone_as_it_stands():
    """The solver's own trees (its incumbents at a node limit, no start handed over), decoded as they are: each
    keeps the order of its subtrees (the checker's hierarchy proof), with no relabelling."""
    from optitrees.formulations.oct.solution import decode
    from optitrees.solvers import solve

    X, y = _data(n=80)
    f = OCTHClassifier(max_depth=2, monotonic_cst=CST).build_formulation(X, y)
    result = solve(f, solver_options={"mip_max_nodes": 200}, threads=1, progress=False)
    assert result.x is not None
    tree, _ = decode(f, result.x)
    assert (~tree.is_leaf).sum() >= 1 and (tree.weights[:, [0, 1]] != 0).any()     # it reads the constrained
    check = check_monotonic(tree, CST)
    assert check.proven and check.method == "hierarchy"


def test_the_report_and_parameters_survive_saving(tmp_path):
    X, y = _data()
    clf = fit_quiet(OCTClassifier(max_depth=2, time_limit=20, solver_options=NODES, monotonic_cst={"x0": 1}), X, y)
    save_model(clf, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.fit_report_.monotonicity == clf.fit_report_.monotonicity
    assert loaded.get_params()["monotonic_cst"] == {"x0": 1}
    assert check_monotonic(loaded, {"x0": 1}).proven


@pytest.mark.parametrize("estimator,params,error,message", [
    (OCTClassifier(max_depth=1), dict(monotonic_cst=[1, 2, 0]), ValueError, "must be -1, 0 or 1"),
    (OCTClassifier(max_depth=1), dict(monotonic_cst=[1, 0]), ValueError, "one sign per feature"),
    (OCTClassifier(max_depth=1), dict(monotonic_cst={"age": 1}), ValueError, "do not have"),
    (OCTClassifier(max_depth=1), dict(monotonic_cst="up"), InvalidParameterError, "monotonic_cst"),
    (OCTHClassifier(max_depth=1), dict(monotonic_cst=[1, 0, 0, 0]), ValueError, "one sign per feature"),
])
def test_bad_constraints_are_named_before_any_solve(estimator, params, error, message):
    X, y = _data()
    with pytest.raises(error, match=message):
        estimator.set_params(time_limit=5, **params).fit(X, y)


def test_more_than_two_classes_are_refused():
    X, y = _data()
    y = y + (X[:, 2] > 1)
    with pytest.raises(ValueError, match="needs two classes"):
        OCTClassifier(max_depth=1, time_limit=5, monotonic_cst=CST).fit(X, y)
    with pytest.raises(ValueError, match="needs two classes"):
        LossOptimalTreeClassifier(max_depth=1, time_limit=5, monotonic_cst=CST).fit(X, y)
    with pytest.raises(ValueError, match="needs two classes"):
        OCTHClassifier(max_depth=1, time_limit=5, monotonic_cst=CST).fit(X, y)
