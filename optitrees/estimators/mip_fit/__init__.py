"""The MIP fit of every MIP estimator (:mod:`.pipeline`) and its parts: the rows the MIP sees (:mod:`.reduce`),
the fit's lower bound (:mod:`.bounds`), the solver's earlier incumbents (:mod:`.incumbents`) and the warnings
about the solve (:mod:`.notes`)."""

from .bounds import LowerBound
from .pipeline import FitHooks, FitSettings, MIPFit, MIPFitOutcome, StartChoice
from .reduce import ReducedRows, representative_rows

__all__ = ["MIPFit", "FitSettings", "FitHooks", "MIPFitOutcome", "StartChoice", "LowerBound", "ReducedRows",
           "representative_rows"]
