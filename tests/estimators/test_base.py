"""The one base every estimator stands on (optitrees/estimators/_base.py): the same checks everywhere."""

import inspect

import numpy as np
import pandas as pd
import pytest
from _support import estimator_id, fit_quiet, quick_data, quick_estimators

from optitrees.estimators._base import OptitreesClassifier, OptitreesEstimator, SensitiveFeaturesFit, stratification
from optitrees.estimators.mip._template import MIPClassifier

CASES = quick_estimators()


@pytest.mark.parametrize("case", CASES, ids=estimator_id)
def test_every_estimator_stands_on_the_base_and_copies_none_of_it(case):
    estimator, kind = case
    cls = type(estimator)
    assert isinstance(estimator, OptitreesEstimator)
    assert isinstance(estimator, OptitreesClassifier) == (kind != "target")
    # the input checks live in the base only: no estimator module defines its own
    for name in ("fit", "_X", "_feature_names", "_fit_data", "_allowed_features", "_budget"):
        owner = next(k for k in cls.__mro__ if name in vars(k))
        # (a fair estimator's fit only forwards the groups to the base's)
        base = (OptitreesEstimator, SensitiveFeaturesFit) if name == "fit" else (OptitreesEstimator,)
        assert owner in base, f"{cls.__name__}.{name} is defined by {owner.__name__}"
    assert "sample_weight" in inspect.signature(cls.fit).parameters
    assert ("class_weight" in estimator.get_params()) == (kind != "target")


@pytest.mark.parametrize("case", CASES, ids=estimator_id)
def test_every_estimator_rejects_string_columns_when_predicting(case):
    estimator, kind = case
    X, y = quick_data(kind)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    fitted = fit_quiet(estimator, frame, y)
    bad = frame.assign(c=frame["c"].astype(str))
    with pytest.raises(ValueError, match="'c' are not numeric"):
        fitted.predict(bad)


def test_the_mip_hooks_are_declared_on_the_template():
    for hook in ("_make_spec", "_make_problem", "_starts", "_store"):
        with pytest.raises(NotImplementedError, match=hook):
            getattr(MIPClassifier(), hook)(*([None] * (3 if hook == "_starts" else 2)))


def test_stratification_only_where_both_parts_can_hold_every_class():
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    assert stratification(y, 0.3) is y
    assert stratification(y, 0.05) is None                 # one validation row cannot hold both classes
    assert stratification(np.array([0, 1, 1, 1, 1]), 0.4) is None      # a class of one row
