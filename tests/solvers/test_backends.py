"""Backends agree, report honestly and fail clearly."""

import numpy as np
import pytest

from _support import within_limit
from optitrees import solvers
from optitrees.formulations import olct
from optitrees.formulations.loss_optimal.solution import decode, start as start_from_tree, tree_objective
from optitrees.solvers import SolverNotAvailableError

EXTRA = [s for s in ("gurobi", "cplex", "cbc", "glpk") if s in solvers.available()]
#: Each backend's own name for a node limit (GLPK's command line has none).
NODE_LIMIT = {"highs": "mip_max_nodes", "pyomo:highs": "mip_max_nodes", "scip": "limits/nodes", "gurobi": "NodeLimit",
              "cplex": "mip_limits_nodes", "cbc": "maxNodes"}

@pytest.fixture
def formulation(tiny_xor):
    X, y = tiny_xor
    return olct(X, y, depth=2, tangents="V1", C=[2.0, 1.0])


@pytest.fixture
def reference(formulation):
    return solvers.solve(formulation, solver="highs", mip_gap=0)


@pytest.mark.parametrize("name", ["pyomo:highs", "scip"] + EXTRA)
def test_same_optimum_across_backends(formulation, reference, name):
    # default tolerances: polishing makes every backend's solution exactly integral
    res = solvers.solve(formulation, solver=name, mip_gap=0, time_limit=120)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(reference.objective, rel=1e-6)
    tree, checks = decode(formulation, res.x)
    assert checks["routing_mismatches"] == 0
    assert tree_objective(formulation.problem, tree, surrogate=True) == pytest.approx(reference.objective, rel=1e-6)
    assert res.solver == name.split(":")[-1] and res.solver_version


@pytest.mark.parametrize("score_variables", [False, True])
@pytest.mark.parametrize("name", ["highs", "scip"])
def test_polished_solution_is_exactly_integral(tiny_xor, name, score_variables):
    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V1", score_variables=score_variables)
    res = solvers.solve(f, solver=name, mip_gap=0)
    assert "polish" in res.timings and res.checks["polished"] is True
    assert f.violation(res.x, integrality=True) < 1e-7
    z = f.values(res.x)["z"]
    assert np.array_equal(z, np.round(z))
    tree, _ = decode(f, res.x)
    assert f.violation(start_from_tree(f, tree)) < 1e-7
    raw = solvers.solve(f, solver=name, mip_gap=0, polish=False)
    assert "polish" not in raw.timings and raw.objective <= res.objective + 1e-9


def test_result_fields(reference):
    r = reference
    assert r.status == "optimal" and r.solution_source == "solver"
    assert r.bound == pytest.approx(r.objective, rel=1e-6) and r.gap < 1e-6
    assert r.node_count >= 0 and set(r.timings) >= {"build", "handoff", "solve"}
    assert "optimal" in r.summary()


def test_user_modified_pyomo_model(formulation, reference):
    import pyomo.environ as pyo

    m = formulation.to_pyomo()
    # forbid the root from using feature 0: the optimum cannot improve, and the solution obeys it
    m.no_feature_0 = pyo.Constraint(expr=m.w[1, 0] == 0)
    res = solvers.solve(m, solver="highs", mip_gap=0)
    assert res.status == "optimal" and res.objective >= reference.objective - 1e-6
    assert abs(pyo.value(m.w[1, 0])) < 1e-9
    tree, _ = decode(formulation, res.x)
    assert tree.weights[0, 0] == pytest.approx(0.0, abs=1e-9)


def test_warm_start_is_reported(formulation, reference):
    tree, _ = decode(formulation, reference.x)
    start = start_from_tree(formulation, tree)
    # stopped before any search: the returned solution is the start, and says so
    res = solvers.solve(formulation, warm_start=start, time_limit=0.0)
    assert res.status == "time_limit_feasible" and res.solution_source == "warm_start"
    assert res.objective == pytest.approx(formulation.objective_value(start), rel=1e-9)
    # with search, the solver's own incumbent is reported as such and is no worse
    res = solvers.solve(formulation, warm_start=start, mip_gap=0)
    assert res.objective <= formulation.objective_value(start) + 1e-7


def test_infeasible_warm_start_is_refused(formulation):
    from optitrees.exceptions import WarmStartWarning

    bad = np.zeros(formulation.n_cols)
    with pytest.warns(WarmStartWarning, match="violates"):
        res = solvers.solve(formulation, warm_start=bad, mip_gap=0)
    assert res.status == "optimal"


def test_time_limit_without_incumbent(small_data):
    X, y = small_data
    f = olct(X, y, depth=3, tangents="V3")
    res = solvers.solve(f, time_limit=0.0)
    assert res.status == "time_limit_no_solution" and res.x is None and not res.has_solution


def test_unknown_and_missing_solvers(formulation):
    with pytest.raises(ValueError, match="unknown solver"):
        solvers.solve(formulation, solver="nonesuch")
    missing = [s for s in ("gurobi", "cplex", "cbc", "glpk") if s not in solvers.available()]
    if missing:
        with pytest.raises(SolverNotAvailableError, match="Install"):
            solvers.solve(formulation, solver=missing[0])
    with pytest.raises(TypeError):
        solvers.solve("model.lp")


def test_bad_options(formulation):
    with pytest.raises(ValueError, match="time_limit"):
        solvers.solve(formulation, time_limit=-1)
    with pytest.raises(ValueError, match="mip_gap"):
        solvers.solve(formulation, mip_gap=2)
    with pytest.raises(ValueError, match="warm start must have"):
        solvers.solve(formulation, warm_start=np.zeros(3))


def test_available_lists_highs_and_scip():
    names = solvers.available()
    assert names[0] == "highs" and "scip" in names


def test_progress_line_for_long_solves(small_data, capsys):
    X, y = small_data
    f = olct(X, y, depth=3, tangents="V2")
    from optitrees.solvers.highs import HighsBackend
    from optitrees.solvers.options import SolveOptions

    HighsBackend().solve(f, SolveOptions(time_limit=1.5, progress_interval=0.5))
    err = capsys.readouterr().err
    assert "optitrees[highs]" in err


def test_formulation_integrality_tolerance_reaches_every_backend(formulation, monkeypatch):
    """eps and big-M are sized for 1e-6; a backend left at CPLEX/Gurobi's 1e-5 closes the gap."""
    from optitrees.solvers.highs import HighsBackend
    from optitrees.solvers.pyomo_backend import PYOMO_SOLVERS

    seen = {}
    original = HighsBackend.solve

    def spy(self, f, options, start=None):
        seen["tol"] = options.integrality_tol
        return original(self, f, options, start)

    monkeypatch.setattr(HighsBackend, "solve", spy)
    solvers.solve(formulation)
    assert formulation.integrality_tol == 1e-6 and seen["tol"] == 1e-6
    # every MIP backend but GLPK (no such option) knows its own name for it
    assert all("integrality_tol" in spec.options for name, spec in PYOMO_SOLVERS.items() if name != "glpk")


def test_loose_integrality_tolerance_is_detected(formulation, reference):
    # raw options win: a tolerance looser than eps allows closes the forwarding gap,
    # the solver reports a "better" objective, and polishing exposes it
    res = solvers.solve(formulation, mip_gap=0, solver_options={"mip_feasibility_tolerance": 1e-4})
    assert res.objective < reference.objective - 1.0
    assert res.checks["polished"] is False and "polishing failed" in res.message


def test_trace_records_incumbent_and_bound(small_data):
    X, y = small_data
    f = olct(X, y, depth=2, tangents="V1")
    res = solvers.solve(f, mip_gap=0, time_limit=60)
    assert res.trace and res.trace[-1][1] == pytest.approx(res.objective) and res.trace[-1][2] == res.bound
    times = [t for t, _, _ in res.trace]
    assert times == sorted(times)
    incumbents = [inc for _, inc, _ in res.trace if inc is not None]
    assert all(a >= b - 1e-9 for a, b in zip(incumbents, incumbents[1:]))     # minimizing: never worse


def test_deadline_cuts_the_time_limit(small_data):
    import time

    X, y = small_data
    f = olct(X, y, depth=3, tangents="V3")
    t0 = time.perf_counter()
    res = solvers.solve(f, time_limit=60, deadline=t0 + 1.0)
    assert within_limit(time.perf_counter() - t0, 1.0) and res.status.startswith("time_limit")


def test_scip_keeps_mumps_off_metis_unless_told(formulation, monkeypatch):
    """SCIP's bundled METIS corrupts the heap on some convex QPs (the process aborts or hangs);
    every SCIP solve gets an Ipopt options file with AMD ordering, which the user can override."""
    from optitrees.solvers import pyomo_backend

    seen = []
    original = pyomo_backend._factory

    def spy_factory(spec):
        opt = original(spec)
        solve = opt.solve

        def spy(model, **kwargs):
            seen.append(dict(kwargs["solver_options"]))
            return solve(model, **kwargs)

        opt.solve = spy
        return opt

    monkeypatch.setattr(pyomo_backend, "_factory", spy_factory)
    res = solvers.solve(formulation, solver="scip", mip_gap=0)
    path = seen[-1]["nlpi/ipopt/optfile"]
    with open(path) as f:
        assert f.read().split() == ["mumps_pivot_order", "0"]
    assert res.termination.value == "optimal"
    solvers.solve(formulation, solver="scip", solver_options={"nlpi/ipopt/optfile": ""})
    assert seen[-1]["nlpi/ipopt/optfile"] == ""


def test_no_solve_is_started_once_the_deadline_has_passed(formulation, monkeypatch):
    """Handing a large model to a solver takes seconds of its own: with the budget spent, none is called."""
    import time

    from optitrees.solvers import highs

    def fail(*args, **kwargs):
        raise AssertionError("the solver was called after the deadline")

    monkeypatch.setattr(highs.HighsBackend, "solve", fail)
    res = solvers.solve(formulation, solver="highs", deadline=time.perf_counter() - 1.0)
    assert res.status == "time_limit_no_solution" and res.x is None and "ran out" in res.message


@pytest.fixture(params=[True, False], ids=["forked", "thread"])
def run_mode(request, monkeypatch):
    """HiGHS run in a forked child (killed at the deadline) or in a worker thread (left there)."""
    from optitrees.solvers import highs_run

    if request.param and not highs_run.FORK:
        pytest.skip("HiGHS is not forked on this platform")
    monkeypatch.setattr(highs_run, "FORK", request.param)
    monkeypatch.setattr(highs_run, "FORK_MIN_NONZEROS", 0)          # the test's model is small
    return request.param


def _overrun_run(monkeypatch, tmp_path, which):
    """Make HiGHS's ``which``-th run (1-based, counted across processes in a file) hang for up to 10 s after it
    ends, as a step that checks no time limit does; returns the event that releases a run in a thread (a run
    in a child is killed)."""
    import threading

    import highspy

    original = highspy.Highs.run
    release = threading.Event()
    calls = tmp_path / "highs_runs"

    def overrunning(self):
        status = original(self)
        with open(calls, "a") as f:
            f.write("run\n")
        if len(calls.read_text().splitlines()) == which:
            release.wait(10)
        return status

    monkeypatch.setattr(highspy.Highs, "run", overrunning)
    return release


def test_highs_is_left_at_the_deadline_when_it_overruns_its_limit(formulation, reference, monkeypatch, tmp_path,
                                                                  run_mode):
    """Some steps of HiGHS check no time limit (its mod-k cut separator on big-M rows runs for seconds):
    the solve stops waiting at the deadline and returns the last incumbent HiGHS's callbacks reported."""
    import time

    release = _overrun_run(monkeypatch, tmp_path, 1)    # the MIP solve, not the polishing LP after it
    t0 = time.perf_counter()
    res = solvers.solve(formulation, time_limit=1.0, mip_gap=0)
    elapsed = time.perf_counter() - t0
    release.set()
    assert within_limit(elapsed, 1.0), elapsed             # HiGHS is held until released: never kept
    assert res.status == "time_limit_feasible" and "past its time limit" in res.message
    assert res.objective == pytest.approx(reference.objective, rel=1e-6)    # HiGHS had reported its optimum
    assert formulation.violation(res.x) < 1e-7
    assert formulation.objective_value(res.x) == pytest.approx(res.objective)


def test_an_explicit_thread_count_works_after_runs_with_another(formulation, reference):
    # HiGHS sizes one scheduler per process at its first run; a later run asking another thread count used to
    # fail before solving (kNotset), which the branch and cut and the polishing LP reported as no solution
    for threads in (None, 1, 2, 1):
        r = solvers.solve(formulation, threads=threads, mip_gap=0)
        assert r.status == "optimal", (threads, r.message)
        assert r.objective == pytest.approx(reference.objective, rel=1e-6, abs=1e-6)


def test_no_highs_banner_on_stdout_unless_verbose(tmp_path):
    import subprocess
    import sys

    code = ("import numpy as np; from optitrees import OCTHClassifier; "
            "X = np.random.default_rng(0).normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int); "
            "OCTHClassifier(max_depth=1, time_limit=5).fit(X, y)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "HiGHS" not in out.stdout and "Copyright" not in out.stdout


def test_a_polishing_lp_past_its_limit_is_left_at_the_deadline(formulation, reference, monkeypatch, tmp_path, run_mode):
    """HiGHS's LP can run past its time_limit too (a polish on adult's loss-optimal tree took 10 s of a 2 s
    share): the solve returns the unpolished solution at the deadline and says so."""
    import time

    release = _overrun_run(monkeypatch, tmp_path, 2)    # the polishing LP after the MIP solve
    t0 = time.perf_counter()
    res = solvers.solve(formulation, mip_gap=0, polish_deadline=time.perf_counter() + 1.5)
    elapsed = time.perf_counter() - t0
    release.set()
    assert within_limit(elapsed, 1.5), elapsed
    assert res.checks["polished"] is False and res.checks["polish_skipped"] is True
    assert "ran out during polishing" in res.message
    assert res.objective == pytest.approx(reference.objective, rel=1e-6)


def test_a_mip_is_not_started_with_less_time_left_than_its_build_took(formulation, reference, monkeypatch):
    """HiGHS's set-up checks no time limit: with less time left than the model took to build and hand over,
    the backend returns at once (no MIP, no polishing LP), and no solver thread is left running."""
    import threading
    import time

    import highspy

    runs = []
    monkeypatch.setattr(highspy.Highs, "run", lambda self: runs.append(1))
    formulation.build_time = 30.0                        # as if the build had taken 30 s
    res = solvers.solve(formulation, solver="highs", deadline=time.perf_counter() + 5.0)
    assert res.status == "time_limit_no_solution" and res.x is None and "not started" in res.message
    # with a start, the start is the incumbent (as HiGHS returns it when its limit ends the search at once)
    start = start_from_tree(formulation, decode(formulation, reference.x)[0])
    res = solvers.solve(formulation, solver="highs", warm_start=start, deadline=time.perf_counter() + 5.0)
    assert res.status == "time_limit_feasible" and res.solution_source == "warm_start"
    assert np.array_equal(res.x, start) and res.objective == pytest.approx(formulation.objective_value(start))
    assert runs == [] and not any(t.name == "optitrees-highs" for t in threading.enumerate())


def test_earlier_incumbents_are_kept_feasible_and_worse_oldest_first():
    """HiGHS's improving solutions before its last come back in ``pool``: feasible, each worse than the next
    and than the returned solution, without the returned solution itself."""
    from optitrees.solvers.highs_run import POOL_SIZE

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    f = olct(X, y, depth=2, tangents="V0")
    res = solvers.solve(f, mip_gap=0, threads=1, progress=False, solver_options={"mip_max_nodes": 50})
    values = [f.objective_value(x) for x in res.pool]
    assert 2 <= len(res.pool) <= POOL_SIZE
    assert all(f.violation(x) <= 1e-6 for x in res.pool)
    assert values == sorted(values, reverse=True) and values[-1] > res.objective + 1e-6
    # a warm start HiGHS accepts is its first incumbent: it leads the pool when something better follows
    again = solvers.solve(f, mip_gap=0, threads=1, progress=False, warm_start=res.pool[0],
                          solver_options={"mip_max_nodes": 50})
    assert again.objective < f.objective_value(res.pool[0]) - 1e-6
    np.testing.assert_allclose(again.pool[0], res.pool[0], atol=1e-9)


@pytest.mark.parametrize("name", ["highs", "pyomo:highs", "scip"] + EXTRA)
def test_an_infeasible_model_is_a_status_on_every_backend(formulation, name):
    """CPLEX once raised "No value for uninitialized VarData" here."""
    import pyomo.environ as pyo

    m = formulation.to_pyomo()
    m.impossible = pyo.Constraint(expr=sum(m.z[k] for k in m.z) <= -1)
    res = solvers.solve(m, solver=name)
    assert res.status == "infeasible" and not res.has_solution
    assert res.message.split(";")[0] == "infeasible"


@pytest.mark.parametrize("name", [n for n in ["highs", "pyomo:highs", "scip"] + EXTRA if n in NODE_LIMIT])
def test_a_node_limit_is_a_status_on_every_backend(small_data, name):
    """Stopped by one node: a solution with an honest status (CPLEX once raised "Cannot load a SolverResults
    object with bad status"), one spelling of it, and the node count where the backend reports one."""
    X, y = small_data
    f = olct(X[:24], y[:24], depth=2, tangents="V1")
    res = solvers.solve(f, solver=name, time_limit=60, solver_options={NODE_LIMIT[name]: 1})
    assert res.status in ("feasible", "optimal") and res.objective is not None
    assert f.violation(res.x, integrality=True) < 1e-7
    assert res.message.split(";")[0] == res.termination.value
    if res.status == "feasible":
        assert res.bound is None or res.bound <= res.objective + 1e-9
    if name != "cbc":
        assert res.node_count is not None and res.node_count <= 2


def test_glpk_takes_the_time_limit_in_whole_seconds(formulation, reference):
    if "glpk" not in solvers.available():
        pytest.skip("glpk-utils not installed")
    res = solvers.solve(formulation, solver="glpk", time_limit=7.3, mip_gap=0)
    assert res.status == "optimal" and res.objective == pytest.approx(reference.objective, rel=1e-6)
    assert "integrality tolerance" in res.message
    # stopped at a gap, glpsol says "non-optimal" and gives no bound: nothing proves the optimum
    at_gap = solvers.solve(formulation, solver="glpk", time_limit=7.3, mip_gap=1e-4)
    assert at_gap.status == "feasible" and at_gap.bound is None


def test_gurobi_solves_the_miqp(tiny_xor):
    if "gurobi" not in solvers.available():
        pytest.skip("gurobipy not installed")
    from optitrees.formulations import margot

    X, y = tiny_xor
    f = margot(X, y, depth=1, l2_method="exact")
    res, scip = solvers.solve(f, solver="gurobi", mip_gap=0), solvers.solve(f, solver="scip", mip_gap=0)
    assert res.status == scip.status == "optimal" and res.objective == pytest.approx(scip.objective, rel=1e-6)


def test_a_backend_without_warm_starts_says_so(formulation, reference):
    tree, _ = decode(formulation, reference.x)
    res = solvers.solve(formulation, solver="pyomo:highs", warm_start=start_from_tree(formulation, tree))
    assert "takes no warm start" in res.message and res.status == "optimal"


def test_a_solver_that_raises_returns_an_error_result(formulation, monkeypatch):
    """A licence or size limit (CPLEX's "Problem size limits exceeded") is a result with status "error" and the
    solver's first line, not an exception from the middle of an estimator's fit."""
    from optitrees.solvers import pyomo_backend

    class Broken:
        def available(self, exception_flag=False):
            return True

        def solve(self, *args, **kwargs):
            raise RuntimeError("Model too large for size-limited license\nsecond line")

        def version(self):
            return (1, 0)

    monkeypatch.setattr(pyomo_backend, "_factory", lambda spec: Broken())
    res = solvers.solve(formulation, solver="scip")
    assert res.status == "error" and not res.has_solution
    assert res.message == "error; scip failed: RuntimeError: Model too large for size-limited license"


def test_cbc_and_glpk_get_their_limits_in_their_own_terms(formulation, monkeypatch):
    """CBC counts CPU seconds unless told ``timeMode elapsed`` (85 s of wall time for a 60 s limit on a busy
    machine); glpsol takes whole seconds only."""
    from optitrees.solvers import pyomo_backend

    seen = {}

    class Spy:
        def available(self, exception_flag=False):
            return True

        def solve(self, model, **kwargs):
            seen.update(kwargs["options"])
            raise RuntimeError("stopped by the test")

        def version(self):
            return (1, 0)

    monkeypatch.setattr(pyomo_backend, "_factory", lambda spec: Spy())
    assert solvers.solve(formulation, solver="cbc", time_limit=7.5).status == "error"
    assert seen["timeMode"] == "elapsed" and seen["sec"] == pytest.approx(7.5, abs=0.5) and seen["ratio"] == 1e-4
    seen.clear()
    solvers.solve(formulation, solver="glpk", time_limit=7.2)
    assert seen["tmlim"] == 8 and isinstance(seen["tmlim"], int)


@pytest.mark.parametrize("name", [n for n in ("gurobi", "scip") if n in solvers.available()])
def test_gurobi_and_scip_report_a_trace(small_data, name):
    X, y = small_data
    res = solvers.solve(olct(X, y, depth=2, tangents="V1"), solver=name, mip_gap=0, time_limit=60)
    assert res.status == "optimal" and len(res.trace) > 2
    bounds = [b for _, _, b in res.trace if b is not None]
    incumbents = [v for _, v, _ in res.trace if v is not None]
    assert all(b1 <= b2 + 1e-9 for b1, b2 in zip(bounds, bounds[1:]))              # the bound only rises
    assert all(v2 <= v1 + 1e-9 for v1, v2 in zip(incumbents[:-1], incumbents[1:-1]))  # the incumbent only falls
    assert incumbents[-2] == pytest.approx(res.objective, rel=1e-6)
