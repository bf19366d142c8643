"""The counted sizes equal the built models' on every option of each family."""

import itertools

import numpy as np
import pytest

from optitrees.formulations import loss_optimal as lo
from optitrees.formulations import oblique_regression as orr
from optitrees.formulations import oct as oc
from optitrees.formulations.family import ModelSize
from optitrees.formulations.loss_optimal.model import loss_optimal_size
from optitrees.formulations.oblique_regression import oblique_regression_size
from optitrees.formulations.oct.model import oct_size
from optitrees.scaling import ScaledData

RNG = np.random.default_rng(3)
X = RNG.normal(size=(23, 4))
Y_SIGNS = np.where(RNG.random(23) < 0.5, -1, 1)


def _built(f):
    return ModelSize(f.n_rows, f.n_cols)


LOSS_OPTIMAL_GRID = [
    combo for combo in itertools.product(
        (1, 2, 3), ("logistic", "hinge", "misclassification", "mixed"), ("l1", "l2", None), (None, "hard", "soft"),
        ("V0", "V3", "adaptive"), (True, False), ("exact", "outer"))
    if not (combo[4] == "adaptive" and not combo[5])
]


@pytest.mark.parametrize("depth, loss, regularizer, selection, tangents, score_variables, l2_method",
                         LOSS_OPTIMAL_GRID)
def test_loss_optimal_size_is_the_built_size(depth, loss, regularizer, selection, tangents, score_variables,
                                             l2_method):
    losses = loss if loss != "mixed" else ("hinge", "logistic", "misclassification")[:depth]
    spec = lo.LossOptimalSpec.create(depth, losses, regularizer, 1.0, 1.0, selection,
                                     2 if selection == "hard" else None, 0.5 if selection == "soft" else None,
                                     tangents, 10.0, l2_method, score_variables, forbidden=(1,))
    problem = lo.LossOptimalProblem.create(spec, ScaledData.create(X, Y_SIGNS, None))
    assert loss_optimal_size(problem) == _built(lo.build(problem))


def test_loss_optimal_size_counts_the_distinct_rows_of_weighted_data():
    spec = lo.LossOptimalSpec.create(2, "logistic", "l1", tangents="V3")
    data = ScaledData.create(X[:9], Y_SIGNS[:9], None, weight=np.arange(1.0, 10.0))
    problem = lo.LossOptimalProblem.create(spec, data)
    size = loss_optimal_size(problem)
    assert size == _built(lo.build(problem))
    # by hand, N = 9, P = 4, d = 2, 16 tangent lines of V3 on both layers, layer 2's margin forwarded:
    # columns z 2N + w, b, w_pos, w_neg 3 (3P + 1) + s 3N + xi 2N + m N;
    # rows N + 3P + 3 + 3N + 2N + 16 N (root) + 2 N (links) + 16 N (layer 2)
    assert (size.n_cols, size.n_rows) == (2 * 9 + 3 * 13 + 3 * 9 + 2 * 9 + 9,
                                          9 + 15 + 3 * 9 + 2 * 9 + 16 * 9 + 2 * 9 + 16 * 9)


@pytest.mark.parametrize("depth, tangents, forward", itertools.product((1, 2, 3), ("V0", "V3", "adaptive"),
                                                                        (True, False)))
def test_loss_optimal_size_with_and_without_forwarded_margins(depth, tangents, forward):
    spec = lo.LossOptimalSpec.create(depth, ("logistic", "hinge", "logistic")[:depth], "l1", tangents=tangents,
                                     forward_margins=forward)
    problem = lo.LossOptimalProblem.create(spec, ScaledData.create(X, Y_SIGNS, None))
    built = lo.build(problem)
    assert loss_optimal_size(problem) == _built(built)
    assert ("xi_margin" in built.variables) == (forward and depth == 3)      # layer 3 only: 2 is hinge


@pytest.mark.parametrize("depth, oblique, n_classes, min_samples_leaf, weighted",
                         itertools.product((1, 2, 3), (False, True), (2, 3), (1, 3), (False, True)))
def test_oct_size_is_the_built_size(depth, oblique, n_classes, min_samples_leaf, weighted):
    y = np.arange(23) % n_classes
    spec = oc.OCTSpec.create(depth, 0.1, min_samples_leaf, n_classes, oblique, forbidden=(0,),
                             max_features=2 if oblique and weighted else None)
    data = ScaledData.create((X - X.min(0)) / np.ptp(X, 0), y, None, weight=np.arange(1.0, 24.0) if weighted else None)
    problem = oc.OCTProblem.create(spec, data)
    assert oct_size(problem) == _built(oc.build(problem))


@pytest.mark.parametrize("depth, loss, quadratic", itertools.product((1, 2, 3), ("absolute", "squared"), (False, True)))
def test_oblique_regression_size_is_the_built_size(depth, loss, quadratic):
    spec = orr.ObliqueRegressionSpec(depth=depth, loss=loss, quadratic=quadratic, max_features=2 if quadratic else None)
    target = X @ [1.0, -2, 0, 3]
    problem = orr.ObliqueRegressionProblem.create(spec, ScaledData.create(X, target, "standard"), target)
    assert oblique_regression_size(problem) == _built(orr.build(problem))


def test_summary_says_the_model_was_not_built():
    assert ModelSize(10, 4).summary() == "4 variables, 10 rows (counted from the problem; the model was not built)"
