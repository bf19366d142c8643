"""Mixed-integer formulations assembled from shared building blocks.

``loss_optimal_tree(X, y, ...)`` builds the general loss-optimal tree (3.12),
with ``olct`` (3.17) and ``margot`` as presets; :mod:`optitrees.formulations.oct`
builds the Bertsimas-Dunn optimal classification trees (``oct.oct``,
``oct.octh``); :mod:`optitrees.formulations.risk_scores` the optimal risk
score (4.5). Every returned :class:`Formulation` compiles to HiGHS (``to_highs``), to Pyomo
(``to_pyomo``) and to ``.lp`` / ``.mps`` files (``write``).
"""

from . import blocks, oct, risk_scores, tangents
from .loss_optimal import decode_tree, loss_optimal_tree, margot, olct, start_from_tree
from .model import ConstraintGroup, Formulation, VariableGroup
from .tangents import TANGENT_SETS, logistic_tangents

__all__ = [
    "Formulation", "VariableGroup", "ConstraintGroup", "loss_optimal_tree", "olct", "margot", "decode_tree", "start_from_tree",
    "TANGENT_SETS", "logistic_tangents", "blocks", "oct", "risk_scores", "tangents",
]
