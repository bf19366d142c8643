"""LASSO rule selection and the correctness models of seed 004 (II-B, II-C)."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV

from optitrees.algorithms.rules.lasso_selection import (_grid, _l1_cv, _l1_params, correctness_model, lasso_select,
                                                       log_loss)


@pytest.fixture(scope="module")
def rule_columns():
    rng = np.random.default_rng(0)
    Z = (rng.random((300, 12)) < 0.4).astype(float)
    y = ((Z[:, 3] + Z[:, 7] - Z[:, 10] + 0.3 * rng.standard_normal(300)) > 0.5).astype(int)
    return Z, y


@pytest.mark.parametrize("labels", [np.array([0, 1]), np.array([False, True]), np.array(["no", "yes"])])
def test_the_cross_validations_log_loss_is_scikit_learns(labels):
    from sklearn.metrics import log_loss as sklearn_log_loss

    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 3))
    y = labels[(X[:, 0] + rng.standard_normal(80) > 0).astype(int)]
    model = LogisticRegression(C=100.0).fit(X, y)
    weight = rng.integers(1, 5, 80).astype(float)
    for scale in (1.0, 1000.0):             # at 1000 every probability is 0 or 1: the misclassified rows' are clipped
        for w in (None, weight):
            expected = sklearn_log_loss(y, model.predict_proba(X * scale), labels=model.classes_, sample_weight=w)
            assert log_loss(model, X * scale, y, w) == pytest.approx(expected, rel=1e-12)


def test_selected_rules_are_the_largest_coefficients_of_the_cross_validated_lasso(rule_columns):
    Z, y = rule_columns
    keep, coef = lasso_select(Z, y, 3, cv=3, random_state=0)
    assert sorted(keep.tolist()) == [3, 7, 10]                       # the three informative columns
    reference = _l1_cv(_grid(Z, y), 3, 0).fit(Z, y).coef_.ravel()
    assert np.allclose(coef, reference[keep])
    assert np.all(np.abs(reference[keep]).min() >= np.abs(np.delete(reference, keep)))
    assert np.all(np.diff(np.abs(coef)) <= 0)                        # ordered by |coefficient|
    assert coef[list(keep).index(10)] < 0                            # a rule against class 1 is kept too


def test_more_rules_than_the_cross_validated_lasso_keeps_weakens_the_penalty():
    rng = np.random.default_rng(4)
    Z = (rng.random((150, 30)) < 0.4).astype(float)
    y = (Z[:, 0] + 0.5 * Z[:, 1] + 0.6 * rng.standard_normal(150) > 0.6).astype(int)
    nonzero_cv = np.count_nonzero(_l1_cv(_grid(Z, y), 3, 0).fit(Z, y).coef_)
    assert nonzero_cv + 2 < Z.shape[1]
    keep, coef = lasso_select(Z, y, nonzero_cv + 2, cv=3, random_state=0)
    assert len(keep) == nonzero_cv + 2 and np.all(coef != 0)


def test_correctness_model_is_the_l1_logistic_model_on_the_original_scale():
    rng = np.random.default_rng(1)
    X = rng.normal([10.0, -3.0], [5.0, 0.1], size=(200, 2))
    correct = (X[:, 0] - 10 + 30 * (X[:, 1] + 3) + rng.normal(0, 1, 200)) > 0
    w, b = correctness_model(X, correct, cv=3, random_state=0)
    mean, scale = X.mean(0), X.std(0)
    model = _l1_cv(_grid((X - mean) / scale, correct), 3, 0).fit((X - mean) / scale, correct)
    assert np.array_equal(X @ w + b > 0, model.predict((X - mean) / scale))
    assert np.mean((X @ w + b > 0) == correct) > 0.85


def test_correctness_model_of_a_rule_that_is_almost_always_right_is_a_constant():
    X = np.arange(20.0).reshape(-1, 1)
    correct = np.ones(20, bool)
    correct[0] = False                                   # 1 wrong row < 3 folds
    assert correctness_model(X, correct, cv=3) == (pytest.approx([0.0]), 1.0)
    assert correctness_model(X, ~correct, cv=3) == (pytest.approx([0.0]), -1.0)


def test_l1_keyword_arguments_give_a_sparse_model(rule_columns):
    Z, y = rule_columns
    coef = LogisticRegression(C=_grid(Z, y)[1], **_l1_params()).fit(Z, y).coef_
    assert 0 < np.count_nonzero(coef) < Z.shape[1]
    assert isinstance(_l1_cv([1.0], 3, 0), LogisticRegressionCV)


def test_the_cross_validation_with_a_deadline_chooses_as_scikit_learn_does():
    import time

    from optitrees.algorithms.rules.lasso_selection import _cv_fit, _grid, _l1_cv

    rng = np.random.default_rng(0)
    Z = (rng.random((500, 40)) < 0.3).astype(float)
    y = (Z[:, :5].sum(axis=1) + rng.normal(size=500) > 1.5).astype(int)
    Cs = _grid(Z, y)
    reference = _l1_cv(Cs, 3, 0).fit(Z, y)
    ours = _cv_fit(Z, y, Cs, 3, 0, time.perf_counter() + 600)
    assert float(ours.C_[0]) == float(np.ravel(reference.C_)[0])
    assert np.allclose(ours.coef_, reference.coef_) and np.allclose(ours.intercept_, reference.intercept_)
    # a passed deadline scores the first C only: the sparsest model of the grid
    assert float(_cv_fit(Z, y, Cs, 3, 0, time.perf_counter() - 1).C_[0]) == float(Cs[0])


def test_a_final_fit_cut_by_the_deadline_leaves_the_chosen_cs_best_fold_model(monkeypatch):
    """The fit on all rows at the chosen C stops at the deadline (it ran past it by a second on 30,000 rows):
    the model is then the fold model of that C with the least held-out loss."""
    import time

    from sklearn.model_selection import StratifiedKFold

    from optitrees.algorithms.rules import lasso_selection
    from optitrees.algorithms.rules.lasso_selection import _cv_fit, _grid, _l1_cv

    rng = np.random.default_rng(0)
    Z = (rng.random((500, 40)) < 0.3).astype(float)
    y = (Z[:, :5].sum(axis=1) + rng.normal(size=500) > 1.5).astype(int)
    Cs = _grid(Z, y)
    real = lasso_selection.call_until

    def all_rows_never_finish(deadline, fn, C, rows):
        return (False, None) if len(rows) == len(y) else real(deadline, fn, C, rows)

    monkeypatch.setattr(lasso_selection, "call_until", all_rows_never_finish)
    ours = _cv_fit(Z, y, Cs, 3, 0, time.perf_counter() + 600)
    chosen = float(np.ravel(_l1_cv(Cs, 3, 0).fit(Z, y).C_)[0])
    assert float(ours.C_[0]) == chosen
    folds = [LogisticRegression(C=chosen, random_state=0, **_l1_params()).fit(Z[train], y[train])
             for train, _ in StratifiedKFold(3).split(Z, y)]
    losses = [log_loss(m, Z[test], y[test]) for m, (_, test) in zip(folds, StratifiedKFold(3).split(Z, y))]
    best = folds[int(np.argmin(losses))]
    assert np.array_equal(ours.coef_, best.coef_) and np.array_equal(ours.intercept_, best.intercept_)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_grid_starts_at_scikit_learns_l1_min_c_of_the_weighted_columns(weighted):
    from sklearn.svm import l1_min_c

    rng = np.random.default_rng(5)
    Z = (rng.random((200, 15)) < 0.3).astype(float)
    y = rng.random(200) < 0.3
    w = rng.integers(0, 4, 200).astype(float) if weighted else None
    expected = l1_min_c(Z if w is None else Z * w[:, None], y, loss="log")
    assert _grid(Z, y, w)[0] == pytest.approx(expected * 10 ** 0.05, rel=1e-12)
    assert np.allclose(_grid(np.zeros_like(Z), y, w), np.logspace(0.05, 4, len(_grid(Z, y, w))))
