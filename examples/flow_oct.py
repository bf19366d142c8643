"""A tree model the library does not have, written as its equations: the flow formulation of an optimal
classification tree on binary features (Aghaei, Gomez & Vayanos, "Strong optimal classification trees").

Each point sends one unit of flow from the source into the root; a branch node ``n`` that splits on feature ``f``
(``b[n, f] = 1``) lets it pass left where ``x_f = 0`` and right where ``x_f = 1``; a node that predicts
(``p[n] = 1``) lets it go to the sink only when it predicts the point's class (``w[n, y_i] = 1``). The flow
reaching the sink counts the correctly classified points. The model is written with ``optitrees.mip.expressions``
(about 30 lines; the tree's relations from ``optitrees.formulations.tree_sets``), solved on HiGHS and on CBC, and checked against the library's ``OCTClassifier`` on the same rows.

Run: python examples/flow_oct.py
"""

import numpy as np
from sklearn.datasets import load_breast_cancer

from optitrees import OCTClassifier, solvers
from optitrees.formulations.tree_sets import Side, ancestors, children
from optitrees.mip import Formulation
from optitrees.mip.expressions import Data


def flow_oct(X, y, depth=2, n_classes=2):
    """max correctly classified points over trees of ``depth`` splitting on the 0/1 features of ``X``."""
    branch, nodes = np.arange(1, 2**depth), np.arange(1, 2 ** (depth + 1))
    f = Formulation(name="flow_oct")
    for name, labels in (("I", np.arange(len(y))), ("F", np.arange(X.shape[1])), ("K", np.arange(n_classes)),
                         ("B", branch), ("N", nodes), ("M", nodes)):
        f.add_set(name, labels)
    b = f.add_variables("b", ("B", "F"), 0, 1, domain="binary")                  # n splits on f
    p = f.add_variables("p", ("N",), 0, 1, domain="binary")                      # n predicts
    w = f.add_variables("w", ("N", "K"), 0, 1, domain="binary")                  # n predicts class k
    into = f.add_variables("into", ("I", "N"), 0, 1)                              # flow from n's parent to n
    sink = f.add_variables("sink", ("I", "N"), 0, 1)                              # flow from n to the sink
    above = (p.expr().rename(N="M") * ancestors(f, "N", "M")).sum("M")            # predictions above n
    f.add_constraints("split_or_predict", b.sum("F") + p.sel(N=list(branch)).rename(N="B")
                      + above.sel(N=list(branch)).rename(N="B") == 1)
    leaves = list(nodes[2**depth - 1:])
    f.add_constraints("leaf_predicts", p.sel(N=leaves) + above.sel(N=leaves) == 1)
    child, left, right = (children(f, "B", "N", side) for side in (Side.ANY, Side.LEFT, Side.RIGHT))
    f.add_constraints("conserve", into.sel(N=list(branch)).rename(N="B") == (into * child).sum("N")
                      + sink.sel(N=list(branch)).rename(N="B"))
    f.add_constraints("conserve_leaf", into.sel(N=leaves) == sink.sel(N=leaves))
    f.add_constraints("go_left", (into * left).sum("N") <= (b * Data(1 - X, ("I", "F"))).sum("F"))
    f.add_constraints("go_right", (into * right).sum("N") <= (b * Data(X, ("I", "F"))).sum("F"))
    f.add_constraints("right_class", sink <= (w * Data(np.eye(n_classes)[y], ("I", "K"))).sum("K"))
    f.add_constraints("one_class", w.sum("K") == p)
    f.minimize(-sink.sum())
    return f


data = load_breast_cancer()
rows = np.arange(0, 569, 6)                                                       # 95 rows
X = (data.data[rows][:, [1, 4, 9, 14]] > np.median(data.data[:, [1, 4, 9, 14]], axis=0)).astype(float)
y = data.target[rows]
f = flow_oct(X, y)
print(f.summary().splitlines()[0])
print(f.constraints["go_left"].to_text(max_rows=1))
found = {solver: solvers.solve(f, solver=solver, mip_gap=0, time_limit=60) for solver in ("highs", "cbc")}
for solver, r in found.items():
    print(f"{solver:6s} {r.status}: {-r.objective:.0f} of {len(y)} points classified correctly")
oct_ = OCTClassifier(max_depth=2, time_limit=60, mip_gap=0).fit(X, y)
correct = int(np.sum(oct_.predict(X) == y))
print(f"OCTClassifier: {correct} of {len(y)} ({oct_.fit_report_.outcome.value})")
print("all three agree:", {round(-r.objective) for r in found.values()} == {correct})
