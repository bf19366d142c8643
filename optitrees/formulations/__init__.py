"""Mixed-integer formulations assembled from shared building blocks.

``olct(X, y, ...)`` builds the Optimal Logistic Classification Tree (3.17); the
returned :class:`Formulation` compiles to HiGHS (``to_highs``), to Pyomo
(``to_pyomo``) and to ``.lp`` / ``.mps`` files (``write``).
"""

from . import blocks, tangents
from .loss_optimal import decode_tree, olct, start_from_tree
from .model import ConstraintGroup, Formulation, VariableGroup
from .tangents import TANGENT_SETS, logistic_tangents

__all__ = [
    "Formulation", "VariableGroup", "ConstraintGroup", "olct", "decode_tree", "start_from_tree",
    "TANGENT_SETS", "logistic_tangents", "blocks", "tangents",
]
