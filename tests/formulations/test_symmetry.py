"""The symmetry rows (a split and its mirror with the subtrees swapped are one tree) cut off no optimum."""

import numpy as np
import pytest

from optitrees.formulations import oblique_regression
from optitrees.formulations.oct import model as oct_module
from optitrees.formulations.oblique_regression import ObliqueRegressionProblem, ObliqueRegressionSpec
from optitrees.formulations.oblique_regression import build as regression_build
from optitrees.formulations.oct.model import octh
from optitrees.scaling import ScaledData
from optitrees.solvers import solve


def _optimum(build, monkeypatch, with_rows: bool):
    with monkeypatch.context() as m:
        if not with_rows:
            for module in (oct_module, oblique_regression):          # where the builders look it up
                m.setattr(module, "add_mirror_symmetry", lambda *args, **kwargs: None)
        f = build()
    assert ("mirror" in f.constraints) == with_rows
    result = solve(f, mip_gap=0, time_limit=120)
    assert result.status == "optimal"
    return result.objective


@pytest.mark.parametrize("seed, alpha, weighted", [(0, 0.0, False), (1, 0.05, False), (2, 0.02, True),
                                                   (3, 0.0, True)])
def test_octh_optimum_is_unchanged_by_the_mirror_rows(monkeypatch, seed, alpha, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(10, 2)).astype(float) / 5.0
    y = rng.integers(0, 2, size=10)
    y[:2] = [0, 1]
    weight = rng.uniform(0.5, 2.0, size=10) if weighted else None

    def build():
        from optitrees.formulations.oct.model import OCTProblem, OCTSpec, build as oct_build

        data = ScaledData.create(X, y, None, weight=weight)
        return oct_build(OCTProblem.create(OCTSpec.create(2, alpha, 1, 2, True), data))

    assert _optimum(build, monkeypatch, True) == pytest.approx(_optimum(build, monkeypatch, False), abs=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_regression_tree_optimum_is_unchanged_by_the_mirror_rows(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(9, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, X[:, 1], -X[:, 0]) + 0.1 * rng.normal(size=9)

    def build():
        data = ScaledData.create(X, y, "standard")
        return regression_build(ObliqueRegressionProblem.create(ObliqueRegressionSpec(depth=2, lam=0.05), data, y))

    assert _optimum(build, monkeypatch, True) == pytest.approx(_optimum(build, monkeypatch, False), abs=1e-6)


def test_the_rows_put_more_weight_left_at_every_used_split():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 6, size=(12, 2)).astype(float) / 5.0
    y = rng.integers(0, 2, size=12)
    f = octh(X, y, depth=2)
    result = solve(f, mip_gap=0, time_limit=120)
    v = f.values(result.x)
    z, d = v["z"], v["d"]                                     # z: points x leaves 4..7
    left = np.array([z[:, :2].sum(), z[:, 0].sum(), z[:, 2].sum()])
    right = np.array([z[:, 2:].sum(), z[:, 1].sum(), z[:, 3].sum()])
    assert np.all((left >= right - 1e-6) | (d < 0.5))


def test_octh_rows_are_in_the_formulation_only_for_oblique_splits():
    from optitrees.formulations.oct.model import oct as oct_formulation

    X = np.random.default_rng(0).uniform(size=(8, 2))
    y = np.arange(8) % 2
    assert "mirror" in octh(X, y, depth=2).constraints
    assert "mirror" not in oct_formulation(X, y, depth=2).constraints
