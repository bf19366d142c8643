"""fairness= on the loss-optimal trees (OLCT, MARGOT, LossOptimalTreeClassifier): the returned tree keeps the bound
on the training rows and reports fairlearn's figures; the MIP's predicted-positive binaries are the decoded tree's
predictions and keep the bound themselves; one-vs-rest refuses the constraint."""

import numpy as np
import pytest

from optitrees import LossOptimalTreeClassifier, MARGOTClassifier, OLCTClassifier
from optitrees.fairness import DemographicParity, EqualizedOdds, FalsePositiveRateParity
from optitrees.formulations.loss_optimal.solution import LOSS_OPTIMAL
from optitrees.solvers import solve
from _support import fit_quiet

pytest.importorskip("fairlearn.metrics")
from test_oct_fairness import biased, check_report  # noqa: E402

#: the bound is kept whatever stops the fit: a short time limit and a node limit
QUICK = dict(time_limit=8, warm_start="greedy", solver_options={"mip_max_nodes": 10}, random_state=0)


@pytest.mark.parametrize("estimator,notion", [
    (OLCTClassifier(max_depth=2, **QUICK), DemographicParity(0.05)),
    (OLCTClassifier(max_depth=2, **QUICK), EqualizedOdds(0.02)),
    (MARGOTClassifier(max_depth=2, **QUICK), FalsePositiveRateParity(0.05)),
    (LossOptimalTreeClassifier(max_depth=2, loss="hinge", **QUICK), DemographicParity(0.05)),
], ids=lambda c: type(c).__name__)
def test_the_returned_tree_keeps_the_bound(estimator, notion):
    X, y, groups = biased()
    free = fit_quiet(estimator.set_params(fairness=None), X, y)
    assert not _within(free, X, y, groups, notion)                               # the bound binds
    clf = fit_quiet(estimator.set_params(fairness=notion), X, y, sensitive_features=groups)
    check_report(clf, X, y, groups)
    assert "fair_bound" in clf.formulation_summary_


def _within(clf, X, y, groups, notion):
    from optitrees.fairness import disparities

    return disparities(clf, X, y, groups)[notion.name] <= notion.difference_bound


def test_the_mip_predicted_positive_rows_are_the_decoded_trees():
    X, y, groups = biased(n=80)
    est = OLCTClassifier(max_depth=2, max_features=None, fairness=DemographicParity(0.1))
    f = est.build_formulation(X, y, sensitive_features=groups)
    assert {"positive", "fair_hi", "fair_lo"} <= set(f.variables)
    assert {"positive_upper", "positive_lower", "fair_rate_hi", "fair_rate_lo", "fair_bound"} <= set(f.constraints)
    result = solve(f, time_limit=None, solver_options={"mip_max_nodes": 200})
    assert result.x is not None
    tree, _ = LOSS_OPTIMAL.decode(f, result.x)
    positive = f.values(result.x)["positive"] > 0.5
    data = f.problem.data
    score = tree.leaf_scores(data.X)
    clear = np.abs(score) > 1e-6                              # rows on a leaf's hyperplane: within the tolerances
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(positive[clear], (score > 0)[clear])
    values = f.values(result.x)
    assert np.all(values["fair_hi"] - values["fair_lo"] <= 0.1 + 1e-6)


def test_one_vs_rest_refuses_fairness():
    X, y, groups = biased()
    y = y + (X[:, 1] > 1)
    with pytest.raises(ValueError, match="needs two classes"):
        LossOptimalTreeClassifier(max_depth=1, time_limit=5, fairness=DemographicParity(0.1)).fit(
            X, y, sensitive_features=groups)
