"""Compile a :class:`~optitrees.mip.Formulation` to a Pyomo ``ConcreteModel`` with named, indexed components."""

from __future__ import annotations

import functools
import itertools

import numpy as np

__all__ = ["to_pyomo"]


def to_pyomo(f):
    """Materialize a Pyomo ``ConcreteModel`` with named, indexed components.

    Index sets become ``Set`` components (``m.I``, ``m.T`` ...), variable
    groups ``Var`` components indexed by their sets (``m.z[i, t]``), and
    constraint groups ``Constraint`` components (``m.forward_left[t, i]``).
    The objective is ``m.objective``. The model remembers the formulation
    (``m._optitrees_formulation``) and its column order
    (``m._optitrees_columns``) so that a solution can be decoded even after
    the user added components.
    """
    from pyomo.common.gc_manager import PauseGC

    with PauseGC():             # millions of expression objects: the cyclic collector would rescan them all
        return _build(f)


@functools.cache
def _rows_in_order():
    """The class of :func:`to_pyomo`'s constraint rules (made on first use: Pyomo is imported only then)."""
    from pyomo.core.base.initializer import InitializerBase

    class RowsInOrder(InitializerBase):
        """A constraint group's prebuilt rows, handed out in the order Pyomo constructs the group (its index
        set's order, the formulation's row order); each index Pyomo asks for is checked against the row's."""

        __slots__ = ("_keys", "_rows")

        def __init__(self, keys, rows):
            self._keys, self._rows = iter(keys), iter(rows)

        def __call__(self, parent, index):
            key = next(self._keys)
            if key != index:
                raise RuntimeError(f"Pyomo asked for row {index!r} where the formulation has {key!r}")
            return next(self._rows)

    return RowsInOrder


def _build(f):
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression
    from pyomo.core.expr.relational_expr import EqualityExpression, InequalityExpression, RangedExpression

    m = pyo.ConcreteModel(name=f.name)
    for name, labels in f.sets.items():
        m.add_component(name, pyo.Set(initialize=labels.tolist(), ordered=True))
    domain = {"continuous": pyo.Reals, "binary": pyo.Binary, "integer": pyo.Integers}
    columns = []
    for g in f.variables.values():
        comp = pyo.Var(*[m.component(d) for d in g.dims], domain=domain[g.domain])
        m.add_component(g.name, comp)
        keys = list(itertools.product(*[f.sets[d].tolist() for d in g.dims]))
        vars_ = [comp[k if len(k) > 1 else k[0]] for k in keys]
        lo = np.where(np.isfinite(g.lower), g.lower, np.nan).tolist()
        up = np.where(np.isfinite(g.upper), g.upper, np.nan).tolist()
        for v, a, b in zip(vars_, lo, up):
            v.setlb(None if a != a else a)
            v.setub(None if b != b else b)
        columns.extend(vars_)

    A = f.matrix
    indptr = A.indptr.tolist()
    # every term once, in the matrix's row order (a coefficient of 1 is the variable itself); rows take slices
    terms = [v if c == 1.0 else MonomialTermExpression((c, v))
             for c, v in zip(A.data.tolist(), map(columns.__getitem__, A.indices.tolist()))]
    lower = np.where(np.isfinite(f.row_lower), f.row_lower, np.nan).tolist()
    upper = np.where(np.isfinite(f.row_upper), f.row_upper, np.nan).tolist()
    bodies = [LinearExpression(terms[a:b]) for a, b in zip(indptr[:-1], indptr[1:])]
    # every row's relational expression as a rule would build it (``==``, ``<=``, ``>=`` or ranged)
    relations = [EqualityExpression((e, a)) if a == b
                 else InequalityExpression((e, b), False) if a != a
                 else InequalityExpression((a, e), False) if b != b
                 else RangedExpression((a, e, b), (False, False))
                 for e, a, b in zip(bodies, lower, upper)]
    del bodies

    for g in f.constraints.values():
        keys = itertools.product(*[f.sets[d].tolist() for d in g.dims])
        if len(g.dims) == 1:
            keys = (k[0] for k in keys)
        m.add_component(g.name, pyo.Constraint(*[m.component(d) for d in g.dims],
                                               rule=_rows_in_order()(keys, relations[g.start:g.start + g.size])))

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
