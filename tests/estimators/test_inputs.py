"""The inputs people have: polars (and any dataframe scikit-learn accepts), extreme column scales, missing and
infinite values named by column."""

import warnings

import numpy as np
import pandas as pd
import pytest

from _support import ROOT, estimator_id, fit_quiet, quick_data, quick_estimators
from optitrees import (C45Classifier, ContextualTreeClassifier, LossOptimalTreeRegressor, MARGOTClassifier,
                       OLCTClassifier, TAOClassifier, UCTDTClassifier)

pl = pytest.importorskip("polars")


@pytest.mark.parametrize("case", quick_estimators(), ids=estimator_id)
def test_every_estimator_takes_a_polars_frame(case):
    est, kind = case
    X, y = quick_data(kind)
    frame = pl.DataFrame(X, schema=["age", "dose", "weight"])
    est = fit_quiet(est, frame, y)
    assert list(est.feature_names_in_) == ["age", "dose", "weight"]
    assert np.array_equal(est.predict(frame), est.predict(pd.DataFrame(X, columns=["age", "dose", "weight"])))


def test_a_polars_string_column_is_named():
    X, y = quick_data("real")
    frame = pl.DataFrame({"age": X[:, 0], "ward": ["a", "b"] * 30})
    with pytest.raises(ValueError, match="columns 'ward' are not numeric"):
        TAOClassifier().fit(frame, y)


def test_missing_and_infinite_values_are_named_by_column():
    X, y = quick_data("real")
    frame = pd.DataFrame(X, columns=["age", "dose", "weight"])
    frame.loc[[3, 7], "dose"] = np.nan
    with pytest.raises(ValueError, match="missing values \\(NaN\\) in column\\(s\\) 'dose' \\(2 rows\\).*"
                                         "only C45Classifier.*SimpleImputer"):
        TAOClassifier().fit(frame, y)
    assert C45Classifier().fit(frame, y).predict(frame).shape == (60,)          # C4.5 routes them itself
    fitted = TAOClassifier(max_depth=1).fit(X, y)
    with pytest.raises(ValueError, match="column\\(s\\) 'x1'"):
        fitted.predict(frame.to_numpy())
    frame.loc[:, "dose"] = 1.0
    frame.loc[5, "weight"] = np.inf
    with pytest.raises(ValueError, match="infinite values in column\\(s\\) 'weight' \\(1 rows\\)"):
        C45Classifier().fit(frame, y)


@pytest.mark.parametrize("make", [lambda: OLCTClassifier(max_depth=2, time_limit=30, solver_options=ROOT, warm_start="tao"),
                                  lambda: MARGOTClassifier(max_depth=2, time_limit=30, solver_options=ROOT,
                                                           warm_start="tao")],
                         ids=["OLCT", "MARGOT"])
def test_a_column_near_1e300_fits_as_the_column_near_1(make):
    X, y = quick_data("real")
    huge = X.copy()
    huge[:, 2] *= 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small, large = make().fit(X, y), make().fit(huge, y)
    assert np.array_equal(small.predict(X), large.predict(huge))


def test_the_oblique_regressor_does_not_depend_on_the_features_units():
    X, y = quick_data("target")
    fits = {s: LossOptimalTreeRegressor(max_depth=2, solver_options=ROOT, time_limit=30, random_state=0)
            for s in (1e-12, 1.0, 1e12)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        predictions = {s: est.fit(X * s, y).predict(X * s) for s, est in fits.items()}
    for s in (1e-12, 1e12):
        assert np.allclose(predictions[s], predictions[1.0], rtol=1e-6, atol=1e-9 * np.std(y))


@pytest.mark.parametrize("make", [lambda s: ContextualTreeClassifier(n_estimators=5, max_epochs=5, random_state=s),
                                  lambda s: UCTDTClassifier(n_iterations=40, random_state=s)],
                         ids=["CCT", "UCT-DT"])
def test_all_constant_features_give_the_majority_class(make):
    """Constant features merge every class into one weighted row: holding validation rows out took the
    majority's row away, and the model predicted the minority class everywhere."""
    for seed in range(4):
        y = (np.random.default_rng(seed).random(80) < 0.35).astype(int)
        est = make(seed).fit(np.full((80, 3), 2.5), y)
        assert est.predict(np.full((2, 3), 2.5)).tolist() == [0, 0], seed
