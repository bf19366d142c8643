"""Solver names -> backends, and cheap availability checks."""

from __future__ import annotations

from .highs import HighsBackend
from .pyomo_backend import PYOMO_SOLVERS, PyomoBackend

__all__ = ["get_backend", "available", "solver_names", "SolverNotAvailableError", "DEFAULT_SOLVER", "is_default"]

#: The solver an estimator uses unless told otherwise: HiGHS through highspy.
DEFAULT_SOLVER = "highs"


class SolverNotAvailableError(ImportError):
    """The requested solver is not installed; the message says what to install."""


def solver_names() -> list[str]:
    """Every name ``solve`` accepts: ``highs`` (direct), ``pyomo:<name>`` and the Pyomo solvers."""
    return ["highs"] + [f"pyomo:{n}" for n in PYOMO_SOLVERS] + [n for n in PYOMO_SOLVERS if n != "highs"]


def is_default(name) -> bool:
    """Whether ``name`` names the default solver (:data:`DEFAULT_SOLVER`): a user who named another one asked for it.

    >>> is_default("HiGHS"), is_default("pyomo:highs"), is_default("scip")
    (True, False, False)
    """
    return isinstance(name, str) and name.strip().lower() == DEFAULT_SOLVER


def get_backend(name: str, pyomo_model: bool = False):
    """Backend for a solver name.

    ``"highs"`` is the direct highspy backend for formulations (and HiGHS
    through Pyomo for a Pyomo model); ``"pyomo:highs"`` forces the Pyomo route;
    ``"scip"``, ``"gurobi"``, ``"cplex"``, ``"cbc"``, ``"glpk"`` always go
    through Pyomo.

    Raises
    ------
    ValueError
        Unknown name.
    SolverNotAvailableError
        Known but not installed (the message names the package or extra).
    """
    if not isinstance(name, str):
        raise ValueError(f"solver must be a string, got {name!r}")
    key = name.strip().lower()
    if key.startswith("pyomo:"):
        key, via_pyomo = key[len("pyomo:"):], True
    else:
        via_pyomo = pyomo_model or key != "highs"
    if key == "highs" and not via_pyomo:
        backend = HighsBackend()
    elif key in PYOMO_SOLVERS:
        backend = PyomoBackend(PYOMO_SOLVERS[key])
    else:
        raise ValueError(f"unknown solver {name!r}; choose one of {solver_names()}")
    ok, why = backend.available()
    if not ok:
        raise SolverNotAvailableError(f"solver {name!r} is not available ({why}). Install it: {backend.install_hint}")
    return backend


def available() -> list[str]:
    """Names of the solvers that can be used here, e.g. ``["highs", "scip"]``.

    Checks only that the package or executable is present; no licence is taken.
    """
    names = []
    for key, spec in PYOMO_SOLVERS.items():
        if key == "highs":
            ok = HighsBackend.available()[0]
        else:
            ok = PyomoBackend(spec).available()[0]
        if ok:
            names.append(key)
    return names
