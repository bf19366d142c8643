"""Optimal classification trees of Bertsimas & Dunn (2017): OCT (axis-aligned) and OCT-H (oblique).

:mod:`.model` builds the formulation from OCT's building blocks (:mod:`.blocks`, public for models of a user's
own); :mod:`.solution` decodes, starts, scores and finalizes its trees. The model's names are re-exported here
(``oct.oct``, ``oct.octh`` ...).
"""

from .model import (OCTH_MU, OCTProblem, OCTSpec, build, feature_epsilons, integrality_tolerance, oct,
                    octh)

__all__ = ["OCTSpec", "OCTProblem", "build", "oct", "octh", "feature_epsilons", "integrality_tolerance", "OCTH_MU"]
