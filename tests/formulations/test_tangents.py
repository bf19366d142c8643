import numpy as np
import pytest

from optitrees.formulations.tangents import logistic_loss, logistic_tangents


def test_sets_are_the_seeds():
    pts = {k: logistic_tangents(k).points for k in ("V0", "V1", "V2", "V3")}
    assert pts["V0"].tolist() == [-np.inf, 0.0]
    assert sorted(set(pts["V1"]) - set(pts["V0"])) == [-1.9, 1.9]
    assert sorted(set(pts["V2"]) - set(pts["V1"])) == [-3.55, -0.89, 0.89, 3.55]
    assert sorted(set(pts["V3"]) - set(pts["V2"])) == [-5.16, -2.63, -1.37, -0.44, 0.44, 1.37, 2.63, 5.16]


def test_labels_are_valid_lp_names():
    assert logistic_tangents("V1").labels == ["neg_inf", "neg1.9", "0", "1.9"]


def test_asymptotes_are_exact():
    t = logistic_tangents("V0")
    # -inf: xi >= -v ; +inf: xi >= 0 (bound, no row)
    assert t.slopes[0] == -1.0 and t.intercepts[0] == 0.0
    assert np.isclose(t.slopes[1], -0.5) and np.isclose(t.intercepts[1], np.log(2))
    v = np.array([-50.0, -3.0, 0.0, 3.0, 50.0])
    assert np.allclose(t(v), np.maximum.reduce([np.zeros(5), -v, np.log(2) - v / 2]))


@pytest.mark.parametrize("name", ["V0", "V1", "V2", "V3"])
def test_underestimator_tight_at_points(name):
    t = logistic_tangents(name)
    v = np.linspace(-12, 12, 2001)
    assert np.all(t(v) <= logistic_loss(v) + 1e-12)
    finite = t.points[np.isfinite(t.points)]
    assert np.allclose(t(finite), logistic_loss(finite))


def test_more_points_approximate_better():
    v = np.linspace(-8, 8, 801)
    errs = [np.max(logistic_loss(v) - logistic_tangents(k)(v)) for k in ("V0", "V1", "V2", "V3")]
    assert errs == sorted(errs, reverse=True) and errs[-1] < 0.05


def test_bad_sets():
    with pytest.raises(ValueError, match="unknown tangent set"):
        logistic_tangents("V9")
    with pytest.raises(ValueError):
        logistic_tangents([])
