"""Mixed-integer formulations assembled from shared building blocks, one module per model family.

Each family has a typed spec and problem, a ``build`` function and, beside it,
``decode`` / ``start`` / ``finalize`` / ``objective`` bundled as a
:class:`~optitrees.formulations.family.MIPFamily` for the estimators' fit
template:

==================================  =======================================  ==================
family                              formulation module                       solution module
==================================  =======================================  ==================
loss-optimal trees (3.12, 3.17)     :mod:`~.loss_optimal.model`              :mod:`~.loss_optimal.solution`
OCT / OCT-H (Bertsimas & Dunn)      :mod:`~.oct.model`                       :mod:`~.oct.solution`
optimal risk score (4.5)            :mod:`~.risk_scores.ors`                 (same module)
generalized risk score (4.16)       :mod:`~.risk_scores.ogrs`                (same module)
oblique regression trees (LAD)      :mod:`~.oblique_regression`              (same module)
==================================  =======================================  ==================

Each family with more than one module is a sub-package (``loss_optimal``, ``oct``, ``risk_scores``); the shared
pieces sit beside them. :mod:`~.blocks` holds the loss-optimal family's building blocks and :mod:`~.oct.blocks`
OCT's (also ``formulations.oct_blocks``), public for models of a user's own. Each family counts the
rows and columns of its model from its problem, without building it, beside its ``build``
(``loss_optimal_size``, ``oct_size``, ``oblique_regression_size``).

``loss_optimal_tree(X, y, ...)``, ``olct``, ``margot``, ``oct.oct``, ``oct.octh``,
``ors.ors`` and ``ogrs.ogrs`` build a formulation directly from arrays. Every
:class:`~optitrees.mip.Formulation` compiles to HiGHS (``to_highs``), to Pyomo
(``to_pyomo``) and to ``.lp`` / ``.mps`` files (``write``).
"""

from ..mip import ConstraintGroup, Formulation, VariableGroup
from . import blocks, cuts, family, oblique_regression, oct, risk_scores, tangents, tree_sets
from .family import MIPFamily
from .loss_optimal import LossOptimalProblem, LossOptimalSpec, loss_optimal_tree, margot, olct
from .loss_optimal import solution as loss_optimal_solution
from .loss_optimal.solution import LOSS_OPTIMAL
from .oct import blocks as oct_blocks
from .oct import solution as oct_solution
from .oct.solution import OCT_FAMILY
from .risk_scores import ogrs, ors
from .risk_scores.ogrs import OGRS_FAMILY
from .risk_scores.ors import ORS_FAMILY
from .tangents import TANGENT_SETS, logistic_tangents

__all__ = [
    "Formulation", "VariableGroup", "ConstraintGroup", "MIPFamily", "LossOptimalSpec", "LossOptimalProblem",
    "loss_optimal_tree", "olct", "margot", "LOSS_OPTIMAL", "OCT_FAMILY", "ORS_FAMILY", "OGRS_FAMILY",
    "TANGENT_SETS", "logistic_tangents", "blocks", "cuts", "family", "oblique_regression", "oct", "oct_blocks",
    "oct_solution", "loss_optimal_solution", "ors", "ogrs", "risk_scores", "tangents", "tree_sets",
]
