"""Monotone models: ``monotonic_cst`` as scikit-learn means it, a checker that proves it where the model allows
and searches for violating pairs where not, and the monotone relabelling of an axis-aligned tree's leaves."""

from .check import MonotonicityCheck, check_monotonic, leaf_boxes, ordered_leaf_pairs
from .constraint import MonotoneConstraint
from .constraints import monotonic_signs
from .relabel import monotone_leaf_labels, monotone_relabel

__all__ = ["MonotoneConstraint", "MonotonicityCheck", "check_monotonic", "leaf_boxes", "ordered_leaf_pairs", "monotonic_signs",
           "monotone_leaf_labels", "monotone_relabel"]
