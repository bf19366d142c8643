"""scikit-learn estimators, one module per model family."""

from ._olct import OLCTClassifier

__all__ = ["OLCTClassifier"]
