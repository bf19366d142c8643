"""The MIP's search near the incumbent tree: rounds over fixed routings with a few rows set free.

The full MIP of a tree family routes every row with binaries ``z[i, leaf]`` behind big-M rows, and its LP relaxation
routes each row halfway to every leaf, so the lower layers cost nothing there (OLCT at depth 2 explores few nodes
in a minute and its bound stays at the root layer's loss). A local search such as TAO cannot leave its local optimum
either: it moves one node at a time with every other node fixed. A *neighbourhood round* asks the MIP for the best
tree that routes every row as the incumbent does except ``k`` rows set free: the ``k`` rows nearest to a split on
their path (:func:`split_distances`), the ones a small move of a split can reroute. With the other rows' ``z`` fixed
(lower = upper), their big-M rows either hold as plain linear rows of the splits or are slack, and their losses are
the tangent rows without big-M: the round's LP is tight where the full MIP's is not, and HiGHS searches and often
closes it in seconds. Every split and leaf model moves at once, jointly with the free rows' routing, which no
node-by-node step does.

A round is warm-started from the incumbent (feasible: its own routing is the fixed one), so it never returns a worse
MIP objective; its tree is refined on every row by the family's refinement (TAO) and kept only when its exact
objective on every row is lower (:class:`NeighbourhoodSearch`). A round that closes its neighbourhood without a
better tree doubles ``k``; one that ends at its time limit halves it; the rounds end when doubling would set free
more than a quarter of the rows (the full MIP, every row free, gets the time instead), or the solver stops a round on
a limit of its own (:func:`next_free`). An incumbent the model cannot express (a refined start's leaf weights beyond
the weight bound the big-M values come from; TAO and TMO trees may put a point inside OCT-H's split margin) has the
rows it violates widened to hold it in its rounds, so they start from it too; one whose values leave a column's
bounds starts its rounds without a warm start, and ``k`` doubles until a round finds a tree.

The first round sets no row free: the *refit*, every split and leaf model re-optimized jointly for the incumbent's
routing and its other integer choices (the features a budget lets each hyperplane use, OCT's leaf labels): an LP, or
the squared l2's cut loop, which TAO's node-by-node steps need not reach (MARGOT on 4,000 rows of phishing: its
TAO-refined start 998.7, the refit 984.7 in the model's objective). With a budget's indicators left free, the refit
was a MIP over them: OLCT with 3 features per split on 1,012 rows of phishing ended at its 16 s without a tree.

A round's model keeps only the rows that can bind near the incumbent (:class:`~optitrees.mip.row_subset.RowSubset`:
the rows the fixing makes implied are left out, and those far from binding or switched off by the fixed routing
(big-M rows of points routed elsewhere) are left out until a solution violates them,
:func:`~optitrees.solvers.row_generation.solve_by_row_generation`), so that a round at the users' sizes gets
past HiGHS's root: the whole model's rows of the fixed routing, with the solver's presolve off on big models, did not
in 30 s on that phishing model.

This is the classic hard-fixing (variable-fixing) large-neighbourhood search of MIP heuristics; the neighbourhood
here is chosen by the rows' distances to the splits.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from ... import solvers as _solvers
from ...budget import call_until, expired, remaining, share_of
from ...mip.row_subset import RowSubset
from ...solvers.results import SolveStatus
from ...solvers.row_generation import solve_by_row_generation
from ...solvers.strategies import CutLoop
from ...trees import Tree
from .fit_plan import MIN_ROUND_SECONDS, Stage

__all__ = ["split_distances", "nearest_rows", "next_free", "within_bounds", "fixed_routing", "NeighbourhoodRound",
           "NeighbourhoodSearch", "most_free", "FIRST_FREE_ROWS", "MAX_FREE_SHARE", "MIN_ROUND_SECONDS", "ROUND_SHARE",
           "FAR_ROWS", "ROUND_CUT_ROUNDS", "BIG_ROUND_NONZEROS", "search_near"]

#: Rows set free in the first round (or all rows, when fewer).
FIRST_FREE_ROWS = 8
#: The largest share of the rows a round sets free (:func:`most_free`). A round with more frees so many that it is
#: nearly the full MIP, which gets the time instead: at 300 s (one thread) OLCT on parkinsons (146 rows) spent 49 s
#: with 64 rows free and MARGOT on climate (405 rows) 46 s with 128, both ending on their time limit with no better
#: tree, while the better trees came with at most 32 and 64 rows free; and the full MIP's time is what closed gaps
#: (``Shares.neighbourhood`` 0.5 to 0.2: median gap 14.3% to 8.9% on 12 fits).
MAX_FREE_SHARE = 0.25
#: The most of the rounds' time one round may take (the refit round, the first, may take all of it).
ROUND_SHARE = 0.4
#: A round's model leaves out the rows this far from binding at the incumbent (:func:`~optitrees.mip.row_subset.
#: row_distances`) and brings back those its solution violates: MARGOT on 2,966 distinct rows of phishing, 8 rows
#: free, keeps 6,252 of 28,125 rows (175,479 of 667,852 nonzeros) and brings back 1. The refit round keeps every row
#: the fixing does not make implied: its solution moves far from a start the MIP has not seen (MARGOT's greedy start
#: on 1,860 representative rows of adult: 4,093 rows brought back after the first solve, 20.6 s in all against 8.9 s).
FAR_ROWS = 0.5
#: Solves of a round's cut loop (MARGOT's squared l2 on HiGHS) on a big model: its tree is scored by the exact
#: objective anyway.
ROUND_CUT_ROUNDS = 3
#: Nonzeros of the whole model from which rounds leave far rows out (:data:`FAR_ROWS`) and cut their cut loops
#: (:data:`ROUND_CUT_ROUNDS`); a smaller model's rounds keep every row the fixing does not make implied and run their
#: cut loops to the end. On Table 3.1's models (up to 38,856 rows: OLCT on tic-tac-toe; HiGHS presolves them) the
#: re-solves of rows brought back and the shorter cut loops cost more than they save: with both at every size,
#: MARGOT's training objective was 1.8% worse on average over the ten sets (30 s, split 0; 7.6% on parkinsons).
BIG_ROUND_NONZEROS = 300_000


def split_distances(tree: Tree, X) -> np.ndarray:
    """Each row's Euclidean distance to the nearest split on its path, ``min_t |w_t x - c_t| / ||w_t||_2`` over the
    splits ``t`` it passes (``inf`` for a tree without splits or a split without weights).

    >>> from optitrees.trees import LEAF
    >>> stump = Tree([1, LEAF, LEAF], [2, LEAF, LEAF], np.array([[3.0, 4.0], [0, 0], [0, 0]]), [5.0, 0, 0])
    >>> split_distances(stump, np.array([[1.0, 0.5], [0.0, 0.0], [3.0, 4.0]])).tolist()   # |3x + 4y - 5| / 5
    [0.0, 1.0, 4.0]
    """
    X = np.asarray(X, dtype=float)
    path = tree.decision_path(X)
    norms = np.linalg.norm(tree.weights, axis=1)
    out = np.full(X.shape[0], np.inf)
    for level in range(path.shape[1]):
        rows = np.flatnonzero(path[:, level] >= 0)
        nodes = path[rows, level]
        inner = ~tree.is_leaf[nodes] & (norms[nodes] > 0)
        rows, nodes = rows[inner], nodes[inner]
        if rows.size:
            gap = np.abs(tree.node_values(X, nodes, rows) - tree.threshold[nodes]) / norms[nodes]
            out[rows] = np.minimum(out[rows], gap)
    return out


def nearest_rows(distances, k: int) -> np.ndarray:
    """Mask of the ``k`` rows of least distance (the first ones on ties; every row when ``k`` is at least their
    number).

    >>> nearest_rows(np.array([0.3, 0.1, 0.2, 0.1]), 2).tolist()
    [False, True, False, True]
    """
    distances = np.asarray(distances, dtype=float)
    free = np.zeros(len(distances), bool)
    free[np.argsort(distances, kind="stable")[:max(0, int(k))]] = True
    return free


def most_free(n: int) -> int:
    """The most rows a round of ``n`` rows sets free: :data:`MAX_FREE_SHARE` of them, and at least
    :data:`FIRST_FREE_ROWS` (or ``n``, when fewer).

    >>> most_free(146), most_free(405), most_free(20), most_free(5)
    (36, 101, 8, 5)
    """
    return min(n, max(FIRST_FREE_ROWS, int(MAX_FREE_SHARE * n)))


def next_free(k: int, n: int, status: SolveStatus, better: bool) -> int | None:
    """Rows to set free in the next round after one with ``k`` of ``n`` free ended with ``status``: as many after
    a better tree; twice as many after a closed neighbourhood (optimal, or no tree exists) or a time limit with no
    tree found; half as many after a time limit with a tree; ``None`` (no more rounds) when twice as many would be
    more than :func:`most_free` (the full MIP is the neighbourhood of every row), when that neighbourhood was a single
    row, or when the solver stopped on a limit of its own (nodes, solutions: every round would).
    After the refit round (``k = 0``: every row routed as the incumbent routes it), :data:`FIRST_FREE_ROWS`, unless it
    ended on a limit (the larger rounds would too).

    >>> next_free(8, 100, SolveStatus.OPTIMAL, False), next_free(8, 100, SolveStatus.TIME_LIMIT_FEASIBLE, False)
    (16, 4)
    >>> next_free(16, 100, SolveStatus.OPTIMAL, False) is None, next_free(8, 100, SolveStatus.FEASIBLE, False)
    (True, None)
    >>> next_free(0, 100, SolveStatus.OPTIMAL, True), next_free(0, 100, SolveStatus.TIME_LIMIT_FEASIBLE, False)
    (8, None)
    """
    if k == 0:
        done = better or status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE)
        return min(n, FIRST_FREE_ROWS) if done else None
    if better:
        return k
    if status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE, SolveStatus.TIME_LIMIT_NO_SOLUTION):
        return None if 2 * k > most_free(n) else 2 * k
    if status is SolveStatus.TIME_LIMIT_FEASIBLE:
        return None if k <= 1 else k // 2
    return None


def within_bounds(f, x, tol: float = 1e-6) -> bool:
    """Whether ``x`` is within ``f``'s column bounds (to ``tol``) and integral on its integer columns."""
    return f.violation(x, rows=False) <= tol


@contextmanager
def fixed_routing(f, x, free, every_integer: bool = False):
    """Within the block, ``f``'s routing binaries ``z`` of every row not ``free`` are fixed at their values in ``x``
    (``every_integer``: and every other integer group, such as a feature budget's indicators ``delta`` and OCT's leaf
    labels); the bounds are restored after."""
    z = f.variables["z"]
    groups = [g for g in f.variables.values() if g.domain != "continuous"] if every_integer else [z]
    saved = [(g, g.lower.copy(), g.upper.copy()) for g in groups]
    values = f.values(x)
    for g in groups:
        mask = np.broadcast_to(~np.asarray(free, bool)[:, None], z.shape) if g is z else None
        f.fix(g, np.rint(values[g.name]), mask=mask)
    try:
        yield
    finally:
        for g, lower, upper in saved:
            g.lower[:], g.upper[:] = lower, upper
        f.bounds_changed()


@dataclass(frozen=True)
class NeighbourhoodRound:
    """One round: rows set free, seconds, the solver's status, the MIP objective it reached from the incumbent's
    (``None``: the incumbent was no solution of the model, or no tree was found), and the exact objective of its best
    tree on every row (``None``: no tree)."""

    free_rows: int
    seconds: float
    status: str
    start_mip_objective: float | None
    mip_objective: float | None
    exact_objective: float | None
    improved: bool
    #: Rows of the model the round's last solve had (:class:`~optitrees.mip.row_subset.RowSubset`), of all of them.
    model_rows: int | None = None
    all_model_rows: int | None = None

    def as_dict(self) -> dict:
        return {"free_rows": self.free_rows, "seconds": round(self.seconds, 3), "status": self.status,
                "start_mip_objective": self.start_mip_objective, "mip_objective": self.mip_objective,
                "exact_objective": self.exact_objective, "improved": self.improved, "model_rows": self.model_rows,
                "all_model_rows": self.all_model_rows}


@dataclass
class NeighbourhoodSearch:
    """Rounds from an incumbent until ``deadline`` (module docstring).

    Parameters
    ----------
    f : Formulation
        The family's MIP on the rows it sees (all of them, or weighted representatives), with a routing group ``z``.
    solve : callable
        ``solve(f, x0, deadline) -> SolverResult``: the backend from ``x0`` until ``deadline``.
    vector : callable
        ``vector(model) -> x or None``: the column vector of a model (the problem's units) in ``f``.
    decode : callable
        ``decode(x) -> model``: the model of a solution (the problem's units).
    score : callable
        ``score(model, deadline) -> (model, final, exact objective)``: the model refined on every row until
        ``deadline`` and scored there, the better of refined and unrefined.
    """

    f: object
    solve: object
    vector: object
    decode: object
    score: object
    rounds: list = field(default_factory=list)
    seconds: float = 0.0

    @classmethod
    def of_family(cls, f, problem, family, refine, solve, vector) -> "NeighbourhoodSearch":
        """The search of a model family (``family.decode``), each round's tree refined by ``refine(problem, model,
        deadline)`` (the fit's refinement, on every row of ``problem``) and scored by the family's exact objective
        there, the better of refined and unrefined."""

        def score(model, deadline):
            scored = [(model, family.finalize(problem, model))]
            done, refined = call_until(deadline, refine, problem, model, deadline)
            if done and refined is not None:
                scored.append((refined, family.finalize(problem, refined)))
            return min(((m, fin, family.objective(problem, fin)) for m, fin in scored), key=lambda c: c[2])

        return cls(f, solve, vector, lambda x: family.decode(f, x)[0], score)

    def run(self, model, final, objective: float, deadline: float | None, first_free: int = 0):
        """``(model, final, objective)``: the best tree found from ``model`` (the problem's units; ``final`` as
        returned, ``objective`` its exact objective on every row), the incumbent itself when no round beats it.
        Rounds run until ``deadline`` (``None``: each to its end, until :func:`next_free` ends them), the first with
        ``first_free`` rows free (0: the refit round, then :data:`FIRST_FREE_ROWS`).
        A neighbourhood that closed without a better tree is not solved again around the same incumbent (the same
        rows free, the same model: the same answer): when :func:`next_free` names one, the rounds end and their time
        goes to the full MIP (OLCT on parkinsons, 300 s: 32 rows free closed at 60 s, 64 ran to its time limit,
        and the 32 were solved again, 6.8 s for nothing; with two sizes like that the rounds cycled to their
        deadline)."""
        X = self.f.problem.data.X
        n = X.shape[0]
        big = self.f.matrix.nnz >= BIG_ROUND_NONZEROS
        k = min(n, max(0, int(first_free)))
        closed = set()              # free-row counts whose neighbourhood of the incumbent closed without a better tree
        began = time.perf_counter()
        total = remaining(deadline)
        while not expired(deadline) and (total is None or remaining(deadline) >= MIN_ROUND_SECONDS):
            x0 = self.vector(model)
            if x0 is None:
                break
            free = nearest_rows(split_distances(model, X), k)
            round_by = deadline                 # the refit round (k = 0) may take every second the rounds have left
            if deadline is not None and k > 0:
                round_by = min(deadline, time.perf_counter() + max(MIN_ROUND_SECONDS, ROUND_SHARE * total))
            t0 = time.perf_counter()
            with fixed_routing(self.f, x0, free, every_integer=k == 0):
                # the rows the incumbent violates (a tree outside the model's weight bound) widened to hold it
                subset = RowSubset.of(self.f, x0, FAR_ROWS if k > 0 and big else np.inf, hold=True,
                                      switches=self.f.variables["z"].columns)
                feasible = within_bounds(self.f, x0)
                result = solve_by_row_generation(subset, self._solve_round, x0 if feasible else None, round_by)
            start_value = float(self.f.objective_value(x0)) if feasible else None
            found = None if result.x is None or not np.all(np.isfinite(result.x)) else self.decode(result.x)
            moved = found is not None and (start_value is None or result.objective is None or
                                           result.objective < start_value - 1e-9 * max(1.0, abs(start_value)))
            # the round's tree refined (until the rounds' deadline: TAO on every row of a large fit) and scored on
            # every row, unless the round kept the incumbent's MIP objective (it returned the incumbent)
            scored = self.score(found, deadline) if moved else None
            better = scored is not None and scored[2] < objective - 1e-9 * max(1.0, abs(objective))
            self.rounds.append(NeighbourhoodRound(
                int(free.sum()), time.perf_counter() - t0, result.status.value, start_value, result.objective,
                None if scored is None else float(scored[2]), bool(better),
                result.checks.get("subset_rows"), self.f.n_rows))
            if better:
                closed.clear()
            elif result.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE):
                closed.add(k)
            k = next_free(k, n, result.status, better)
            if k is None or k in closed:
                break
            if better:
                model, final, objective = scored
        self.seconds = time.perf_counter() - began
        return model, final, objective

    def _solve_round(self, g, x0, deadline):
        """:attr:`solve` on a round's model ``g``, its cut loop (if any) cut to :data:`ROUND_CUT_ROUNDS` solves on a
        big model (:data:`BIG_ROUND_NONZEROS`)."""
        strategy = getattr(g, "strategy", None)
        if isinstance(strategy, CutLoop) and self.f.matrix.nnz >= BIG_ROUND_NONZEROS:
            g.strategy = replace(strategy, max_rounds=min(strategy.max_rounds, ROUND_CUT_ROUNDS))
        if x0 is not None and g.violation(x0) > 1e-6:
            # the library's own start outside the round's rows (a margin its tree does not keep): the round starts
            # without it, as the fit report already says; the solver is not asked to warn the user about it
            x0 = None
        return self.solve(g, x0, deadline)


def search_near(fit, problem, f, start, final, checks):
    """``(model, final)`` of the best tree the neighbourhood rounds of ``fit`` (a :class:`~.pipeline.MIPFit`) found
    from ``start`` within their share of the solve's time (:class:`NeighbourhoodSearch`), or ``None`` when none beat
    it; the rounds go to ``checks["neighbourhood_rounds"]``."""
    solve_by = fit.budget.solve_deadline(fit.plan.share(Stage.RESERVE))
    by = share_of(solve_by, fit.plan.share(Stage.NEIGHBOURHOOD))
    # a round's model (a subset of f's rows) solved with the options of the whole model, quietly and unpolished
    options = fit.settings.solve_options(fit.backend.plan(f.n_rows, f.n_cols, f.matrix.nnz, None), fit.backend)
    search = NeighbourhoodSearch.of_family(
        f, problem, fit.family, fit.hooks.refine, lambda g, x0, by: _solvers.solve(
            g, warm_start=x0, deadline=by, polish=False, progress=False, **options),
        lambda m: fit.start_vector(f, m, "neighbourhood round's"))
    objective = fit.family.objective(problem, final)
    model, best, value = search.run(start, final, objective, by)
    checks["neighbourhood_rounds"] = [r.as_dict() for r in search.rounds]
    fit.budget.lap("neighbourhood search")
    if search.rounds:
        improved = sum(r.improved for r in search.rounds)
        fit.log.note(f"the MIP searched {len(search.rounds)} neighbourhoods of the incumbent (its routing refit, "
                     f"then rows routed as it does but the nearest to its splits) in {search.seconds:.3g} s; "
                     f"{improved} found a better tree")
    return None if value >= objective else (model, best)
