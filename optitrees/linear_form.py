"""One evaluation order for every weighted sum a model prints: its terms in feature order, added left to right.

A printed model reads ``0.5 * x0 - 0.25 * x3 + 1.2 <= t`` and its SQL ``(0.5 * "x0" + (-0.25) * "x3" + 1.2)``; a
reader (and a database computing in doubles) adds those terms from the left. ``X @ w`` does not: BLAS blocks and
fuses (FMA) its products in an order that depends on the processor and on the number of rows, so a row lying on a
hyperplane could change class between a batch of one row and a batch of two, and between ``predict`` and the SQL.
Every linear form a tree, a rule set or a score card evaluates goes through :func:`linear_form` (and every sum of
terms through :func:`sum_left_to_right`): one multiplication per term, each rounded, then one addition at a time from
the first nonzero weight to the last, then the constant. That is exactly what the text and SQL exports write, so
predictions, printouts and SQL agree bit for bit on every row, in any batch size.

The loop runs over a model's nonzero weights, never over rows: each step is one vectorized operation on the rows.

>>> import numpy as np
>>> X = np.array([[1.0, 3.0], [2.0, 0.0]])
>>> linear_form(X, np.array([0.1, 0.2]), 0.3).tolist() == [(0.1 * 1.0 + 0.2 * 3.0) + 0.3, (0.1 * 2.0 + 0.0) + 0.3]
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["linear_form", "sum_left_to_right"]


def linear_form(X, weights, constant=None, rows=None) -> np.ndarray:
    """``w_j1 * x_j1 + w_j2 * x_j2 + ... + constant`` for every row of ``X`` (or of ``X[rows]``), added left to
    right over the nonzero weights ``j1 < j2 < ...``; 0 (then the constant) where every weight is 0.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    weights : ndarray of shape (p,)
    constant : float, optional
        Added last, as the printed model adds its intercept.
    rows : ndarray of int, optional
        The rows of ``X`` to evaluate (all when None).
    """
    X = np.asarray(X, dtype=float)
    weights = np.asarray(weights, dtype=float)
    n = X.shape[0] if rows is None else len(rows)
    total = None
    for j in np.flatnonzero(weights):
        column = X[:, j] if rows is None else X[rows, j]
        term = weights[j] * column
        total = term if total is None else total + term
    if total is None:
        total = np.zeros(n)
    return total if constant is None else total + float(constant)


def sum_left_to_right(terms) -> np.ndarray:
    """The sum of the columns of ``terms`` (shape ``(n, k)``), added one column at a time from the first: the order
    in which a printed sum ``a + b + c`` and its SQL are read (numpy's ``sum`` adds in pairs of blocks)."""
    terms = np.asarray(terms, dtype=float)
    if terms.ndim != 2:
        raise ValueError(f"terms must be a 2-D array of rows and terms, got shape {terms.shape}")
    if terms.shape[1] == 0:
        return np.zeros(terms.shape[0])
    total = terms[:, 0].copy()
    for k in range(1, terms.shape[1]):
        total += terms[:, k]
    return total
