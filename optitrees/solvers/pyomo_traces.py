"""The incumbent / bound trace of a solve through Pyomo, where the solver reports it while it runs.

:func:`solver_trace` hooks a recorder into the solver object before ``solve``: a callback on Gurobi's persistent
interface, an event handler on SCIP's model (attached when Pyomo's SCIP interface has built it). Each records
``(seconds, incumbent, bound)`` whenever either changes, into the list it returns; the list fills while the
solve runs. CPLEX, CBC and GLPK run through Pyomo's older interface, which offers no such hook: their trace
is the end point.
"""

from __future__ import annotations

import time

__all__ = ["solver_trace"]


def solver_trace(name: str, opt, t0: float) -> list:
    """A list that the solve of ``opt`` (Pyomo solver ``name``) fills with its trace; empty where there is none."""
    trace: list = []
    if name == "gurobi":
        _gurobi(opt, trace, t0)
    elif name == "scip" and hasattr(opt, "_create_solver_model"):
        _scip(opt, trace, t0)
    return trace


def _record(trace, t0, incumbent, bound, infinity):
    point = (None if abs(incumbent) >= infinity else float(incumbent),
             None if abs(bound) >= infinity else float(bound))
    if not trace or trace[-1][1:] != point:
        trace.append((time.perf_counter() - t0, *point))


def _gurobi(opt, trace, t0):
    from gurobipy import GRB

    def record(model, solver, where):
        if where == GRB.Callback.MIP:
            _record(trace, t0, solver.cbGet(GRB.Callback.MIP_OBJBST), solver.cbGet(GRB.Callback.MIP_OBJBND),
                    GRB.INFINITY)

    opt.set_callback(record)


def _scip(opt, trace, t0):
    from pyscipopt import SCIP_EVENTTYPE, Eventhdlr

    events = SCIP_EVENTTYPE.BESTSOLFOUND | SCIP_EVENTTYPE.NODESOLVED

    class Recorder(Eventhdlr):
        def eventinit(self):
            self.model.catchEvent(events, self)

        def eventexit(self):
            self.model.dropEvent(events, self)

        def eventexec(self, event):
            m = self.model
            _record(trace, t0, m.getPrimalbound(), m.getDualbound(), m.infinity())

    build = opt._create_solver_model

    def build_and_hook(model, config):        # Pyomo builds SCIP's model inside solve()
        out = build(model, config)
        opt._solver_model.includeEventhdlr(Recorder(), "optitrees_trace", "incumbent and bound over time")
        return out

    opt._create_solver_model = build_and_hook
