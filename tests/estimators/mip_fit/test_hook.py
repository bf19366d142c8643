"""A ``constraints`` hook may add variable groups: it runs before the starts, and the starts are completed."""

import numpy as np
import pytest

from optitrees import OLCTClassifier, solvers
from optitrees.estimators.mip_fit import pipeline
from _support import fit_quiet


def cap_features(k, weight_bound=10.0):
    """A hook: at most ``k`` features used by the whole tree (``u_j`` binary, ``|w_tj| <= W u_j``)."""
    def hook(f):
        n_nodes, n_features = len(f.sets["T"]), len(f.sets["J"])
        u = f.add_variables("u", ("J",), 0, 1, "binary")
        w = f.variables["w"]
        cols = np.stack([w.columns, np.broadcast_to(u.columns, (n_nodes, n_features))], axis=-1)
        f.add_constraints("use_up", ("T", "J"), [(cols, np.broadcast_to([1.0, -weight_bound], cols.shape))],
                          upper=0.0)
        f.add_constraints("use_lo", ("T", "J"), [(cols, np.broadcast_to([1.0, weight_bound], cols.shape))],
                          lower=0.0)
        f.add_constraints("cap", (), [(u.columns.reshape(1, -1), np.ones((1, n_features)))], upper=k)
    return hook


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 4))
    return X, np.where(X[:, 0] + 0.8 * X[:, 1] - 0.5 * X[:, 2] > 0, 1, 0)


def test_a_hook_that_adds_variables_is_solved_with_the_starts_completed(data):
    X, y = data
    est = OLCTClassifier(max_depth=1, constraints=cap_features(1), time_limit=60, mip_gap=0, random_state=0)
    clf = fit_quiet(est, X, y)
    used = np.flatnonzero(np.abs(clf.tree_.weights).sum(axis=0) > 1e-9)
    assert len(used) == 1
    # the same model built by hand: the hook's formulation solved to optimality
    f = est.build_formulation(X, y)
    assert f.user_groups == ("u",) and "u" in f.summary()
    by_hand = solvers.solve(f, mip_gap=0)
    assert clf.solver_result_.status == by_hand.status == "optimal"
    assert clf.solver_result_.objective == pytest.approx(by_hand.objective, rel=1e-6)
    # the greedy start (a dense logistic split, every feature) cannot be completed: said, not handed over and
    # not returned; a refinement that breaks the cap is not returned either
    report = clf.fit_report_
    assert "the greedy start could not be completed for the variables the constraints hook added (u)" \
        in " ".join(report.notes)
    assert report.returned == "solver" and set(report.objectives) == {"solver", "returned"}


def test_a_start_is_completed_by_fixing_its_columns(data):
    """A one-feature start is completed (``u`` set for its feature) and is a feasible point of the hook's model."""
    from optitrees.formulations.loss_optimal.solution import decode, start
    from optitrees.solvers.options import SolveOptions
    from optitrees.solvers.polish import complete

    X, y = data
    f = OLCTClassifier(max_depth=1, constraints=cap_features(1)).build_formulation(X, y)
    best = solvers.solve(f, mip_gap=0)
    tree, _ = decode(f, best.x)
    x = start(f, tree)
    u = f.variables["u"]
    assert np.isnan(x[u.columns]).all() and np.isfinite(np.delete(x, u.columns)).all()
    done = complete(f, x, SolveOptions())
    assert done is not None and f.violation(done) < 1e-7
    assert f.objective_value(done) == pytest.approx(best.objective, rel=1e-9)
    dense = x.copy()
    dense[f.variables["w"].columns.ravel()] = 0.1      # every feature used: the cap of one cannot hold
    assert complete(f, dense, SolveOptions()) is None


def test_a_failing_hook_fails_before_any_start(data, monkeypatch):
    X, y = data
    started = []
    monkeypatch.setattr(pipeline.MIPFit, "starts", lambda self, *a: started.append(1))

    def broken(f):
        f.variables["no_such_group"]

    with pytest.raises(ValueError, match="the constraints hook failed .* KeyError: 'no_such_group'"):
        OLCTClassifier(max_depth=1, constraints=broken, time_limit=10).fit(X, y)
    assert not started

    def removes(f):
        del f.variables["z"]

    with pytest.raises(ValueError, match=r"removed variable group\(s\) \['z'\]"):
        OLCTClassifier(max_depth=1, constraints=removes, time_limit=10).fit(X, y)
    assert not started


def test_demographic_parity_on_oct_leaves_holds_and_is_the_model_built_by_hand():
    """A hook that adds ``q = z c[1]`` (linearized) and bounds the difference of the groups' positive rates."""
    from optitrees import OCTClassifier

    rng = np.random.default_rng(0)
    group = (rng.random(40) < 0.5).astype(float)
    X = np.column_stack([group, rng.random((40, 3)) < 0.5]).astype(float)
    y = (X[:, 1] + group + 0.5 * rng.random(40) > 1.2).astype(int)

    def parity(f, delta=0.1):
        in_group = f.problem.data.X[:, 0] > 0.5
        weight = f.problem.data.weight if f.problem.data.weighted else np.ones(len(in_group))
        z, c = f.variables["z"], f.variables["c"]
        positive = np.broadcast_to(c.columns[1], z.shape)
        q = f.add_variables("q", ("I", "L"), 0.0, 1.0)
        f.add_constraints("q_z", ("I", "L"), [(q.columns, 1.0), (z.columns, -1.0)], upper=0.0)
        f.add_constraints("q_c", ("I", "L"), [(q.columns, 1.0), (positive, -1.0)], upper=0.0)
        f.add_constraints("q_zc", ("I", "L"), [(q.columns, 1.0), (z.columns, -1.0), (positive, -1.0)], lower=-1.0)
        rate = np.where(in_group, weight / weight[in_group].sum(), -weight / weight[~in_group].sum())
        f.add_constraints("parity", (), [(q.columns.reshape(1, -1),
                                          np.broadcast_to(rate[:, None], z.shape).reshape(1, -1))],
                          lower=-delta, upper=delta)

    free = fit_quiet(OCTClassifier(max_depth=2, time_limit=60, mip_gap=0), X, y).predict(X)
    assert abs(free[group == 1].mean() - free[group == 0].mean()) > 0.1        # the constraint binds
    est = OCTClassifier(max_depth=2, time_limit=60, mip_gap=0, constraints=parity)
    clf = fit_quiet(est, X, y)
    p = clf.predict(X)
    assert abs(p[group == 1].mean() - p[group == 0].mean()) <= 0.1 + 1e-9
    by_hand = solvers.solve(est.build_formulation(X, y), mip_gap=0)
    assert by_hand.status == clf.solver_result_.status == "optimal"
    assert clf.solver_result_.objective == pytest.approx(by_hand.objective, abs=1e-9)
