"""A constraint group's rows in a Pyomo model, kept as the formulation's sparse matrix until first read.

:func:`~optitrees.mip.to_pyomo` gives every row a :class:`SparseRowData`, a Pyomo ``ConstraintData`` that holds
only its row's position. The first time any row of a group is read (its ``expr``, ``body``, bounds, by a writer, a
solver interface or the user), :class:`SparseRows` makes the relational expressions of all the group's rows at once
from the matrix and turns each row into a plain ``ConstraintData``. This is the pattern of Pyomo's own templatized
constraints (``TemplateConstraintData``): the expression is made on demand and the data object then becomes the
ordinary class. Setting a row's expression (``set_value``) turns it into a plain row at once.
"""

from __future__ import annotations

import numpy as np
from pyomo.common.gc_manager import PauseGC
from pyomo.core.base.constraint import ConstraintData
from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression
from pyomo.core.expr.relational_expr import EqualityExpression, InequalityExpression, RangedExpression

__all__ = ["SparseRows", "SparseRowData"]


class SparseRows:
    """One constraint group's rows: ``row_lower <= A x <= row_upper`` on the rows ``rows`` of the CSR matrix
    ``A``, with ``x`` the model's Pyomo variables in column order.

    Kept on the group's component as ``_optitrees_rows``. The matrix, the bounds and the column list are the
    formulation's and the model's own, shared by every group (nothing is copied); a clone of the model (a deep
    copy) maps ``columns`` onto the clone's variables.
    """

    def __init__(self, matrix, rows, row_lower, row_upper, columns):
        self.matrix = matrix
        self.rows = rows
        self.row_lower = row_lower
        self.row_upper = row_upper
        self.columns = columns

    def relations(self):
        """Every row's relational expression as a constraint rule would write it (``==``, ``<=``, ``>=`` or
        ranged); a coefficient of 1 is the variable itself."""
        A = self.matrix[self.rows]
        indptr = A.indptr.tolist()
        terms = [v if c == 1.0 else MonomialTermExpression((c, v))
                 for c, v in zip(A.data.tolist(), map(self.columns.__getitem__, A.indices.tolist()))]
        lower, upper = self.row_lower[self.rows], self.row_upper[self.rows]
        lower = np.where(np.isfinite(lower), lower, np.nan).tolist()
        upper = np.where(np.isfinite(upper), upper, np.nan).tolist()
        return [EqualityExpression((e, a)) if a == b
                else InequalityExpression((e, b), False) if a != a
                else InequalityExpression((a, e), False) if b != b
                else RangedExpression((a, e, b), (False, False))
                for e, a, b in zip((LinearExpression(terms[a:b]) for a, b in zip(indptr[:-1], indptr[1:])),
                                   lower, upper)]

    def materialize(self, component):
        """Give every row of ``component`` still in sparse form its expression (all at once: a writer or a solver
        reads them all)."""
        with PauseGC():
            relations = self.relations()
            for data in component.values():
                if data.__class__ is SparseRowData:
                    data.__class__ = ConstraintData
                    data._expr = relations[data._expr]


class SparseRowData(ConstraintData):
    """A row of a :class:`SparseRows` group whose expression is not made yet; ``_expr`` holds its row position."""

    __slots__ = ()

    def __init__(self, row, component, index):
        # ConstraintData's, ActiveComponentData's and ComponentData's constructors, in line (as Pyomo's own
        # TemplateConstraintData does): no expression is validated, the row is known to be linear and bounded
        self._component = component
        self._active = True
        self._index = index
        self._expr = row

    def _materialize(self):
        component = self.parent_component()
        component._optitrees_rows.materialize(component)

    @property
    def expr(self):
        """The row's relational expression (made for the whole group on first read)."""
        self._materialize()
        return self.expr

    def to_bounded_expression(self, evaluate_bounds=False):
        """``(lower, body, upper)``, made for the whole group on first read."""
        self._materialize()
        return self.to_bounded_expression(evaluate_bounds)

    def set_value(self, expr):
        """Replace the row by ``expr``: the row becomes a plain ``ConstraintData``."""
        self.__class__ = ConstraintData
        self._expr = None
        return self.set_value(expr)
