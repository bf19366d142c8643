"""optitrees: interpretable classifiers learned by mixed-integer optimization.

>>> from optitrees import OLCTClassifier, formulations, solvers
"""

from . import formulations, solvers
from .estimators import OLCTClassifier
from .solvers import solve
from .topology import Topology
from .tree import ObliqueTree

__version__ = "0.1.0"

__all__ = ["OLCTClassifier", "ObliqueTree", "Topology", "formulations", "solvers", "solve", "__version__"]
