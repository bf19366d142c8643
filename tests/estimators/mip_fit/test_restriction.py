"""A certificate says what it proves: a proof in a problem the fit narrowed (features or a per-split budget it
chose) names that problem; an unqualified "proven optimal" only for the problem the user posed."""

import io
import warnings

import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import FitOutcome, OCTClassifier, OCTHClassifier
from optitrees.persistence import load_model, save_model


@pytest.fixture(scope="module")
def rows():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return X.iloc[:80], y.iloc[:80]


def quiet_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def test_a_proof_among_the_features_the_fit_chose_names_them(rows):
    X, y = rows
    est = quiet_fit(OCTHClassifier(max_depth=1, max_total_features=2, time_limit=30), X, y)
    report = est.fit_report_
    used = sorted({X.columns[j] for j in (est.tree_.weights != 0).any(axis=0).nonzero()[0]})
    assert report.outcome is FitOutcome.PROVEN_RESTRICTED and report.outcome is not FitOutcome.PROVEN_OPTIMAL
    assert report.restriction.startswith("trees on features {") and all(name in report.restriction for name in used)
    assert report.certified_by.startswith("highs, among trees on features")
    assert "the fit narrowed the problem to trees on features" in str(report)
    buffer = io.StringIO()
    save_model(est, buffer)
    assert load_model(buffer.getvalue().encode()).fit_report_.restriction == report.restriction


def test_the_users_own_problem_is_proven_without_qualification(rows):
    X, y = rows
    report = quiet_fit(OCTClassifier(max_depth=1, forbidden_features=[X.columns[0]]), X, y).fit_report_
    assert report.outcome is FitOutcome.PROVEN_OPTIMAL and report.restriction is None
    assert report.certified_by == "contree" and "narrowed" not in str(report)
