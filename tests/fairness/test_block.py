"""The parity block in the OCT formulation: its columns are the cells' rates of the tree they encode, and the fair
OCT the MIP proves optimal is the best fair tree found by enumerating every tree and every labelling (tiny data)."""

import numpy as np
import pytest

from optitrees import OCTClassifier, OCTHClassifier
from optitrees.fairness import DemographicParity, EqualizedOdds, FalsePositiveRateParity, TruePositiveRateParity
from optitrees.solvers.options import SolveOptions
from optitrees.solvers.polish import complete
from _fair_brute import best_fair_tree, tiny


@pytest.mark.parametrize("notion, seed", [(DemographicParity(0.05), 0), (DemographicParity(0.05), 1),
                                          (TruePositiveRateParity(0.0), 1), (FalsePositiveRateParity(0.0), 0),
                                          (EqualizedOdds(0.1), 0)], ids=lambda v: getattr(type(v), "__name__", v))
@pytest.mark.parametrize("exact_search, engine", [("mip", "highs"), ("auto", "fair depth-2 search")])
def test_proven_fair_optimum_is_the_enumerated_one(notion, seed, exact_search, engine):
    """Each case binds: the unconstrained optimum is 0.2 (seed 0) or 1/3 (seed 1), the fair one 0.4 to 2/3. The MIP
    with its parity block proves it (``exact_search="mip"``), and so does the fair search of depth 2 (``"auto"``)."""
    X, y, groups = tiny(seed)
    clf = OCTClassifier(max_depth=2, fairness=notion, time_limit=None, warm_start=False,
                        exact_search=exact_search).fit(X, y, sensitive_features=groups)
    expected = best_fair_tree(X, y, groups, notion, 2)
    assert clf.fit_report_.certified_by == engine
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert clf.fit_report_.fairness["keeps"]
    assert np.sum(clf.predict(X) != y) / (len(y) - np.bincount(y).max()) == pytest.approx(expected, abs=1e-9)
    unconstrained = best_fair_tree(X, y, groups, DemographicParity(1.0), 2)
    assert expected > unconstrained + 0.1                        # the constraint binds


def test_block_columns_are_the_rates_of_the_tree():
    X, y, groups = tiny(2, 40)
    est = OCTHClassifier(max_depth=2, max_features=None, fairness=EqualizedOdds(1.0))
    est._validate_params()
    problem, _, parity = est._prepare(X, y, None, groups)
    f = est._build(problem, parity)
    tree = est._starts(problem, None, ("greedy",))["greedy"]
    x = complete(f, est._family.start(f, tree), SolveOptions())
    assert x is not None and f.violation(x) <= 1e-6
    values = f.values(x)
    rates = values["fair_m"].sum(axis=1) / parity.cells.totals
    np.testing.assert_allclose(rates, parity.cells.rates(tree.predict(problem.data.X) == 1), atol=1e-6)
    spread = [values["fair_hi"][k] - values["fair_lo"][k] for k in range(parity.cells.n_conditions)]
    assert max(spread) >= parity.disparity(tree, problem.data.X) - 1e-6
