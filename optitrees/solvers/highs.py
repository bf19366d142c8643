"""Direct HiGHS backend: the whole model in one ``passModel`` call (the default)."""

from __future__ import annotations

import time

import numpy as np

from .options import ProgressPrinter, SolveOptions
from .results import SolutionStatus, SolverResult, TerminationCondition, classify_solution, relative_gap

__all__ = ["HighsBackend"]


def _status_map():
    import highspy

    S = highspy.HighsModelStatus
    T = TerminationCondition
    return {
        S.kOptimal: T.OPTIMAL, S.kTimeLimit: T.TIME_LIMIT, S.kInfeasible: T.INFEASIBLE,
        S.kUnbounded: T.UNBOUNDED, S.kUnboundedOrInfeasible: T.INFEASIBLE,
        S.kInterrupt: T.INTERRUPTED, S.kHighsInterrupt: T.INTERRUPTED,
        S.kIterationLimit: T.OTHER, S.kSolutionLimit: T.OTHER, S.kObjectiveBound: T.OTHER,
        S.kObjectiveTarget: T.OTHER, S.kMemoryLimit: T.ERROR, S.kSolveError: T.ERROR,
        S.kModelError: T.ERROR, S.kLoadError: T.ERROR, S.kPresolveError: T.ERROR,
        S.kPostsolveError: T.ERROR, S.kModelEmpty: T.OPTIMAL, S.kNotset: T.ERROR, S.kUnknown: T.OTHER,
    }


class HighsBackend:
    """Solve a :class:`~optitrees.formulations.Formulation` with highspy directly.

    Capabilities: MIP yes, quadratic objective with integers no (HiGHS solves
    continuous QPs only), warm start yes (``setSolution``).
    """

    name = "highs"
    supports_mip = True
    supports_miqp = False
    supports_warm_start = True
    install_hint = "pip install highspy"

    @staticmethod
    def available() -> tuple[bool, str]:
        try:
            import highspy  # noqa: F401  (availability probe)
        except ImportError as exc:  # pragma: no cover - highspy is a core dependency
            return False, f"highspy cannot be imported ({exc})"
        return True, ""

    @staticmethod
    def version() -> str:
        import highspy

        h = highspy.Highs()
        return f"{h.versionMajor()}.{h.versionMinor()}.{h.versionPatch()}"

    def solve(self, formulation, options: SolveOptions, start=None) -> SolverResult:
        import highspy

        t0 = time.perf_counter()
        h = highspy.Highs()
        h.setOptionValue("output_flag", bool(options.verbose))
        if options.mip_gap is not None:
            h.setOptionValue("mip_rel_gap", float(options.mip_gap))
        if options.threads is not None:
            h.setOptionValue("threads", int(options.threads))
        h.setOptionValue("random_seed", int(options.seed))
        if options.integrality_tol is not None:
            h.setOptionValue("mip_feasibility_tolerance", float(options.integrality_tol))
        for key, value in options.solver_options.items():
            if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
                raise ValueError(f"HiGHS rejected option {key}={value!r}")
        formulation.to_highs(names=False, start=start, highs=h)
        remaining = options.remaining()
        if remaining is not None and "time_limit" not in options.solver_options:
            h.setOptionValue("time_limit", float(remaining))
        t1 = time.perf_counter()

        progress = ProgressPrinter(self.name, options)
        if formulation.integrality.any():
            last = [-1.0]

            def record(event):
                d = event.data_out
                progress.update(incumbent=d.mip_primal_bound, bound=d.mip_dual_bound, gap=d.mip_gap,
                                nodes=d.mip_node_count)

            def sample(event):          # the bound moves between improving solutions: sample it 4 times a second
                if event.data_out.running_time - last[0] >= 0.25:
                    last[0] = event.data_out.running_time
                    record(event)
            h.cbMipImprovingSolution.subscribe(record)
            h.cbMipInterrupt.subscribe(sample)
        with progress:
            h.run()
        t2 = time.perf_counter()

        info = h.getInfo()
        model_status = h.getModelStatus()
        termination = _status_map().get(model_status, TerminationCondition.OTHER)
        has_primal = info.primal_solution_status == 2  # kSolutionStatusFeasible
        x = np.array(h.getSolution().col_value) if has_primal else None
        if x is not None and x.shape != (formulation.n_cols,):
            x = None
        mip = bool(formulation.integrality.any())
        objective = float(info.objective_function_value) if x is not None else None
        if mip:
            bound = float(info.mip_dual_bound) if np.isfinite(info.mip_dual_bound) else None
        else:
            bound = objective if termination == TerminationCondition.OPTIMAL else None
        solution, source = classify_solution(x is not None, termination, x, start)
        return SolverResult(
            solver=self.name, solver_version=self.version(), termination=termination,
            solution_status=solution, objective=objective, bound=bound,
            gap=relative_gap(objective, bound) if mip else (0.0 if solution == SolutionStatus.OPTIMAL else None),
            node_count=int(info.mip_node_count) if mip else 0,
            timings={"build": formulation.build_time, "handoff": t1 - t0, "solve": t2 - t1},
            solution_source=source, x=x, message=h.modelStatusToString(model_status),
            trace=progress.trace + ([(t2 - t1, objective, bound)] if mip else []),
        )
