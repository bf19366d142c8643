"""The product of a binary and a bounded quantity (``optitrees.mip.linearize``): at every 0/1 value of the binary and
every value of the quantity in its range, the rows allow exactly one product, ``x * b``; the model is solved to the
brute-force optimum; clear errors."""

import itertools

import numpy as np
import pytest

from optitrees.mip import Formulation
from optitrees.mip.expressions import Data
from optitrees.mip.linearize import add_binary_product
from optitrees.solvers import solve


@pytest.mark.parametrize("bound", [1.0, 2.5])
def test_the_rows_allow_only_the_product(bound):
    f = Formulation()
    f.add_set("I", [0])
    x = f.add_variables("x", ("I",), 0, bound)
    b = f.add_variables("b", ("I",), 0, 1, domain="binary")
    add_binary_product(f, "m", x, b, bound)
    A = f.matrix.toarray()
    for x_value, b_value in itertools.product(np.linspace(0, bound, 6), (0, 1)):
        # the formulation's own rows: the product is feasible, a value above or below it is not
        for m_value, feasible in ((x_value * b_value, True), (x_value * b_value + 0.1, False),
                                  (x_value * b_value - 0.1, False)):
            point = np.array([x_value, b_value, m_value])
            inside = np.all(A @ point <= f.row_upper + 1e-9) and np.all(A @ point >= f.row_lower - 1e-9) \
                and 0 <= m_value <= bound
            assert inside == feasible


def test_a_parity_like_model_solves_to_the_enumerated_optimum():
    """Choose 0/1 ``z[i, l]`` (one leaf per row) and 0/1 leaf labels ``c[l]`` to maximize the rows predicted
    positive, with at most 2 of group A predicted positive: the product ``q = z c`` counts them."""
    n, leaves = 4, [2, 3]
    group = np.array([1, 1, 1, 0])
    f = Formulation()
    f.add_set("I", np.arange(n)), f.add_set("L", leaves), f.add_set("K", [0, 1])
    z = f.add_variables("z", ("I", "L"), 0, 1, domain="binary")
    c = f.add_variables("c", ("K", "L"), 0, 1, domain="binary")
    f.add_constraints("one_leaf", z.sum("L") == 1)
    f.add_constraints("one_label", c.sum("K") == 1)
    q = add_binary_product(f, "q", z, c.sel(K=1))
    f.add_constraints("cap", (Data(group, ("I",)) * q).sum() <= 2)
    f.minimize(-q.sum())
    best = 0
    for leaf_of in itertools.product(range(2), repeat=n):
        for label in itertools.product((0, 1), repeat=2):
            positive = np.array([label[k] for k in leaf_of])
            if positive[group == 1].sum() <= 2:
                best = max(best, positive.sum())
    assert solve(f).objective == pytest.approx(-best)


def test_clear_errors():
    f = Formulation()
    f.add_set("I", [0, 1])
    x = f.add_variables("x", ("I",), 0, 1)
    b = f.add_variables("b", ("I",), 0, 1, domain="binary")
    with pytest.raises(ValueError, match="needs a binary factor"):
        add_binary_product(f, "m", b, x)
    with pytest.raises(ValueError, match="finite and >= 0"):
        add_binary_product(f, "m", x, b, bound=-1.0)
    with pytest.raises(TypeError, match="variable group or an expression"):
        add_binary_product(f, "m", np.ones(2), b)
