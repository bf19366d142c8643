"""The MIP fit of every MIP estimator (:mod:`.pipeline`) and its parts: what an estimator hands it
(:mod:`.settings`), the user's constraints hook and the starts completed for it (:mod:`.hook`), the rows the MIP
sees (:mod:`.reduce`), the best start refined before it (:mod:`.start_refinement`), its rounds near the incumbent
(:mod:`.neighbourhood`), the fit's lower bound (:mod:`.bounds`), the solver's earlier incumbents
(:mod:`.incumbents`) and the warnings about the solve (:mod:`.notes`)."""

from .bounds import LowerBound
from .pipeline import MIPFit, MIPFitOutcome
from .reduce import ReducedRows, representative_rows
from .settings import FitHooks, FitSettings, StartChoice

__all__ = ["MIPFit", "FitSettings", "FitHooks", "MIPFitOutcome", "StartChoice", "LowerBound", "ReducedRows",
           "representative_rows"]
