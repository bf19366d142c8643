"""Loss-optimal oblique trees (3.12): the general model, OLCT (3.17) and MARGOT.

:mod:`.model` builds the formulation from its typed settings (:mod:`.spec`), with each layer's loss slacks
(:mod:`.layer_slacks`); :mod:`.solution` decodes, starts, scores and finalizes its trees; :mod:`.root_bounds` is
its lower bound at any size. The model's names are re-exported here (``loss_optimal.olct`` ...).
"""

from .model import (DEFAULT_FEASIBILITY_TOL, FEATURE_SELECTION, LOSSES, REGULARIZERS, LossOptimalProblem,
                    LossOptimalSpec, build, layer_losses, loss_optimal_tree, margot, olct, per_layer)

__all__ = ["LossOptimalSpec", "LossOptimalProblem", "build", "loss_optimal_tree", "olct", "margot",
           "layer_losses", "per_layer", "DEFAULT_FEASIBILITY_TOL", "LOSSES", "REGULARIZERS", "FEATURE_SELECTION"]
