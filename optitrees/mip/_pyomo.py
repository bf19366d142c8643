"""Compile a :class:`~optitrees.mip.Formulation` to a Pyomo ``ConcreteModel`` with named, indexed components."""

from __future__ import annotations

import itertools
import weakref

import numpy as np

__all__ = ["to_pyomo"]


def to_pyomo(f):
    """Materialize a Pyomo ``ConcreteModel`` with named, indexed components.

    Index sets become ``Set`` components (``m.I``, ``m.T`` ...), variable
    groups ``Var`` components indexed by their sets (``m.z[i, t]``), and
    constraint groups ``Constraint`` components (``m.forward_left[t, i]``).
    The objective is ``m.objective``. A group's rows are made from the
    formulation's sparse matrix when one of them is first read (by a writer,
    a solver or the user; :mod:`optitrees.mip._pyomo_rows`), so building the
    model costs a few times the matrix's own build. The model remembers the formulation
    (``m._optitrees_formulation``) and its column order
    (``m._optitrees_columns``) so that a solution can be decoded even after
    the user added components.
    """
    from pyomo.common.gc_manager import PauseGC

    with PauseGC():             # millions of expression objects: the cyclic collector would rescan them all
        return _build(f)


def _build(f):
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    from ._pyomo_rows import SparseRowData, SparseRows

    m = pyo.ConcreteModel(name=f.name)
    for name, labels in f.sets.items():
        m.add_component(name, pyo.Set(initialize=labels.tolist(), ordered=True))
    domain = {"continuous": pyo.Reals, "binary": pyo.Binary, "integer": pyo.Integers}
    columns = []
    for g in f.variables.values():
        comp = pyo.Var(*[m.component(d) for d in g.dims], domain=domain[g.domain])
        m.add_component(g.name, comp)
        keys = list(itertools.product(*[f.sets[d].tolist() for d in g.dims]))
        vars_ = [comp] if not g.dims else [comp[k if len(k) > 1 else k[0]] for k in keys]      # () : a scalar
        lo = np.where(np.isfinite(g.lower), g.lower, np.nan).tolist()
        up = np.where(np.isfinite(g.upper), g.upper, np.nan).tolist()
        for v, a, b in zip(vars_, lo, up):
            v.setlb(None if a != a else a)
            v.setub(None if b != b else b)
        columns.extend(vars_)

    # rows stay in the formulation's sparse matrix until first read, one group at a time (see _pyomo_rows)
    for g in f.constraints.values():
        keys = list(itertools.product(*[f.sets[d].tolist() for d in g.dims]))
        if len(g.dims) <= 1:
            keys = [k[0] if k else None for k in keys]                  # a scalar row's index is None
        comp = pyo.Constraint(*[m.component(d) for d in g.dims])
        m.add_component(g.name, comp)
        comp._optitrees_rows = SparseRows(f.matrix, slice(g.start, g.start + g.size), f.row_lower, f.row_upper,
                                          columns)
        ref = weakref.ref(comp)
        comp._data = dict(zip(keys, map(SparseRowData, range(g.size), itertools.repeat(ref), keys)))

    c = f.cost
    nz = np.flatnonzero(c)
    obj = LinearExpression(constant=float(f.objective_offset), linear_coefs=c[nz].tolist(),
                           linear_vars=[columns[k] for k in nz])
    q = f.quadratic
    qz = np.flatnonzero(q)
    if qz.size:
        obj = obj + sum(float(q[k]) * columns[k] ** 2 for k in qz)
    m.objective = pyo.Objective(expr=obj, sense=pyo.minimize)
    m._optitrees_formulation = f
    m._optitrees_columns = columns
    return m
