"""The solve stages of a MIP fit (:class:`SolveStages`, a part of :class:`~.pipeline.MIPFit`): the neighbourhood
rounds near the best start, the full MIP from their best tree, the solver's model decoded (and the best of its
earlier incumbents), and the family's refinement of it."""

from __future__ import annotations

import numpy as np

from ... import solvers as _solvers
from ...budget import call_until
from ...solvers import SolverResult
from ...trees import Tree
from .class_start import handed_start
from .feature_costs import holds, refine_problem
from .fit_plan import Stage
from .hook import completed_start
from .incumbents import best_earlier_incumbent, polisher
from .neighbourhood import search_near
from .notes import agreement_notes
from .reduce import ReducedRows

__all__ = ["SolveStages"]


class SolveStages:
    """The solve's stages of :class:`~.pipeline.MIPFit` (which gives ``settings``, ``hooks``, ``budget``,
    ``family``, ``backend``, ``plan`` and ``log``)."""

    def solve(self, f, x0) -> SolverResult:
        """The backend on ``f`` from ``x0`` until the budget less its reserve (polishing until the end)."""
        plan = self.backend.plan(f.n_rows, f.n_cols, f.matrix.nnz, None)
        result = _solvers.solve(f, warm_start=x0, deadline=self.budget.solve_deadline(self.plan.share(Stage.RESERVE)),
                                polish_deadline=self.budget.deadline,
                                **self.settings.solve_options(plan, self.backend, with_start=x0 is not None))
        self.budget.lap("solve")
        return result

    def decode(self, problem, f, result, checks, whole_rows: bool) -> tuple[object, object] | None:
        """``(model, final)``: the solver's model (the MIP's units) and as returned, the best of its earlier
        incumbents by the exact objective (:mod:`.incumbents`); ``None`` without a solution."""
        if result.x is None or not np.all(np.isfinite(result.x)):
            return None
        model, decoded = self.family.decode(f, result.x)
        reference = result.objective if result.objective is not None else f.objective_value(result.x)
        decoded["objective_discrepancy"] = abs(decoded["objective_recomputed"] - reference)
        checks.update(decoded)
        final = self.family.finalize(problem, model)
        if whole_rows:                            # the MIP saw every row: its objective is the fit's
            earlier = best_earlier_incumbent(self.family, problem, f, result, self.family.objective(problem, final),
                                             self.budget.before_end(0.03),
                                             polisher(f, self.settings.threads, self.settings.seed))
            if earlier is not None:
                model, final, value, age = earlier
                self.log.note(f"the solver's incumbent found {age} before its last has a lower exact objective "
                              f"({value:.6g}): it is the solver's model")
        return model, final

    def refine(self, problem, f, model):
        """The family's refinement of the solver's model on every row (kept where it satisfies the user's
        constraints), or ``None``; left at the budget's end (OCT-H's TAO step on 24,420 rows: 2.6 s of a 5 s fit)."""
        by = self.budget.before_end(0.01)
        done, refined = call_until(by, self.hooks.refine, refine_problem(self.family, self.settings.feature_budget,
                                                                          problem, model),
                                   model, self.budget.before_end(0.02))
        self.budget.lap("refine")
        if not done:
            self.log.note("the refinement did not end within the time limit; the solver's model is kept as it is")
            return None
        if refined is None:
            return None
        if self.settings.constraints is not None:
            x = self.start_vector(f, refined, "refined model")
            if x is None or f.violation(x) > 1e-6:
                return None
        return self.family.finalize(problem, refined)


    def _solve_and_refine(self, problem, f, rows: ReducedRows, start, final, label, checks, others=()):
        """``(candidates, result, agreement notes)`` of the solve of ``f`` from the best start (``start`` in the
        problem's units, ``final`` as returned; where the MIP cannot take it, the best of the ``others``,
        ``(name, start)`` by objective, that it can), and the refinement of its model."""
        settings = self.settings
        x0, feasible, handed = handed_start(self, problem, f, start, label, others)
        # without user constraints a start the MIP cannot express (e.g. N_min) is still a valid model
        candidates = {"start": final} if feasible or settings.constraints is None else {}
        # neighbourhood rounds for a tree family's MIP (a routing group z); the solver starts from their best tree
        # where the model can express it (rounds widen the rows their start violates), from the start otherwise
        if x0 is not None and self.plan.runs(Stage.NEIGHBOURHOOD) and "z" in f.variables and isinstance(start, Tree):
            found = self.neighbourhoods(problem, f, start, final, checks)
            if found is not None:
                start, candidates["neighbourhood"] = found
                x_found = self.start_vector(f, start, "neighbourhood search's")
                if x_found is not None and f.violation(x_found) <= 1e-6:
                    handed = x_found
        result = self.solve(f, handed if settings.hand_start else None)
        checks.update(result.checks)
        decoded = self.decode(problem, f, result, checks, rows.whole_rows)
        agreement = []
        if decoded is not None:
            model, candidates["solver"] = decoded
            agreement = agreement_notes(checks)          # said only when the solver's model is returned
            refined = self.refine(problem, f, model)
            if refined is not None:
                candidates["refined"] = refined
        return candidates, result, agreement

    def neighbourhoods(self, problem, f, start, final, checks):
        """The neighbourhood rounds from ``start`` (:func:`.neighbourhood.search_near`)."""
        return search_near(self, problem, f, start, final, checks)

    def start_vector(self, f, model, what):
        """The column vector of ``model`` in ``f``, completed for the variable groups a user's hook added
        (:func:`.hook.completed_start`; ``None`` when it cannot be)."""
        x = completed_start(self.family, f, model, self.settings.threads, self.settings.seed,
                            self.budget.before_end(self.plan.share(Stage.RESERVE)))
        if x is not None and f.user_groups:
            sources = (("the parity block", self.settings.parity),
                       ("the feature budget", holds(self.settings.feature_budget) or None),
                       ("the constraints hook", self.settings.constraints))
            added = " and ".join(source for source, given in sources if given is not None)
            self.log.note(f"the {what} was completed for the variables {added} added ({', '.join(f.user_groups)})")
        return x
