"""The generic MIP container below formulations and solvers.

:class:`Formulation` holds variable and constraint groups as arrays; it compiles
to HiGHS (:func:`to_highs`, one ``passModel``), to Pyomo (:func:`to_pyomo`) and to
``.lp`` / ``.mps`` files (:func:`write`).
"""

from ._build_deadline import BuildInterrupted, build_deadline, timed_build
from ._formulation import Formulation
from ._labels import safe_labels
from ._groups import ConstraintGroup, VariableGroup
from ._highs import new_highs, to_highs
from ._pyomo import to_pyomo

__all__ = ["Formulation", "VariableGroup", "ConstraintGroup", "timed_build", "safe_labels", "to_highs", "to_pyomo",
           "write", "new_highs", "build_deadline", "BuildInterrupted"]


def __getattr__(name):
    # the file writer is compiled with numba, which takes 0.3-0.8 s to load: imported on first use, not with
    # the package
    if name == "write":
        from .files import write

        return write
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
