"""Exact linear forms of products with binary variables, written as expressions.

A product ``m = x * b`` of a binary ``b`` and a quantity ``0 <= x <= U`` is not linear, but four linear rows hold
it exactly at every integer ``b`` (the McCormick envelope, tight when one factor is binary)::

    m <= x                     (<name>_x, or rows[0])
    m <= U b                   (<name>_binary, or rows[1])
    m >= x - U (1 - b)         (<name>_both, or rows[2])
    m >= 0                     (the variable's bound)

with ``b = 0`` the rows force ``m = 0``; with ``b = 1`` they force ``m = x``. It is how a tree's parity constraint
counts the rows a leaf predicts positive (``z[i, l] c[1, l]``) and how a user's hook writes an "and" of two
binaries:

>>> import numpy as np
>>> from optitrees.mip import Formulation
>>> from optitrees.mip.linearize import add_binary_product
>>> f = Formulation()
>>> _ = f.add_set("I", [0, 1]); _ = f.add_set("L", [2, 3]); _ = f.add_set("K", [0, 1])
>>> z = f.add_variables("z", ("I", "L"), 0, 1, domain="binary")
>>> c = f.add_variables("c", ("K", "L"), 0, 1, domain="binary")
>>> q = add_binary_product(f, "q", z, c.sel(K=1))               # q[i, l] = z[i, l] c[1, l]
>>> q.dims, sorted(f.constraints)
(('I', 'L'), ['q_binary', 'q_both', 'q_x'])
>>> print(f.constraints["q_both"].to_text(max_rows=1))
q_both[0,2]: +1 q[0,2] -1 z[0,2] -1 c[1,2] >= -1
... 3 more rows
"""

from __future__ import annotations

import numpy as np

from ._labelled import Data, expand
from .expressions import Expression, is_variable_group

__all__ = ["add_binary_product"]


def _as_expression(value, f) -> Expression:
    if isinstance(value, Expression):
        return value
    if is_variable_group(value):
        return Expression.of(value, f.sets)
    raise TypeError(f"a product's factor must be a variable group or an expression, got {type(value).__name__}")


def add_binary_product(f, name: str, x, binary, bound=1.0, rows=None, equation: str = "m = x b, b binary"):
    """Add ``name = x * binary`` (module docstring) and return the new variable group.

    Parameters
    ----------
    f : Formulation
    name : str
        The product's variable group; it lies over the sets of ``x`` followed by those of ``binary`` it lacks
        (each a declared set of ``f``).
    x : VariableGroup or Expression
        The quantity, ``0 <= x <= bound`` on every feasible solution (the rows rely on it).
    binary : VariableGroup or Expression
        A binary variable (or a selection of binaries: ``c.sel(K=1)``).
    bound : float or Data
        ``U``, the upper bound of ``x``: a number, or :class:`~optitrees.mip.expressions.Data` over some of the
        product's sets (one bound per cell of a parity constraint). It is also the product's upper bound.
    rows : tuple of three str, optional
        The names of the three row groups; default ``<name>_x``, ``<name>_binary``, ``<name>_both``.
    equation : str
        The equation the rows are labelled with.

    Raises
    ------
    ValueError
        A negative or non-finite bound, or ``binary`` is not binary.
    """
    x, binary = _as_expression(x, f), _as_expression(binary, f)
    columns = np.concatenate([np.asarray(c).ravel() for c, _ in binary.terms]) if binary.terms else np.array([], int)
    if columns.size == 0 or np.any(f.integrality[columns] == 0) or np.any(f.col_lower[columns] < 0) \
            or np.any(f.col_upper[columns] > 1):
        raise ValueError(f"the product {name!r} needs a binary factor (0/1 integer variables)")
    dims = (x + binary).dims
    shape = (x + binary).shape
    values = bound.values if isinstance(bound, Data) else np.asarray(float(bound))
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"the bound of the product {name!r} must be finite and >= 0")
    upper = expand(values, bound.dims, dims, shape) if isinstance(bound, Data) else np.full(shape, float(bound))
    m = f.add_variables(name, dims, 0.0, upper)
    below_x, below_binary, both = rows or (f"{name}_x", f"{name}_binary", f"{name}_both")
    f.add_constraints(below_x, m - x <= 0, equation=f"{equation}: m <= x")
    f.add_constraints(below_binary, m - bound * binary <= 0, equation=f"{equation}: m <= U b")
    f.add_constraints(both, m - x - bound * binary >= -bound, equation=f"{equation}: m >= x - U (1 - b)")
    return m
