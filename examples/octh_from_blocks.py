"""OCT-H (Bertsimas & Dunn's oblique tree) written from the library's blocks, in one function of 17 lines.

The leaves (routing, one label per used leaf, misclassified points) come from ``oct_blocks.add_leaf_labels``; the
oblique splits are written here as expressions (``optitrees.mip.expressions``: ``a == a_pos - a_neg`` is the l1
split 3.16, ``used <= d`` holds for every node and feature) with the blocks' hyperplanes and l0 indicators (3.14)
and ``oct_blocks.add_split_rows``; the splits form a tree by ``oct_blocks.add_split_hierarchy``. The model reaches
the same optimum as the library's own ``formulations.oct.octh``.

Run: python examples/octh_from_blocks.py
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from optitrees import solvers
from optitrees.formulations import blocks, oct, oct_blocks
from optitrees.mip import Formulation
from optitrees.topology import Topology


def my_octh(X01, y, depth=2, alpha=0.01, mu=0.005):
    """min misclassified / L_hat + alpha * features used, over oblique trees with ||a_t||_1 <= d_t."""
    topo, n_features = Topology(depth), X01.shape[1]
    f = Formulation(name="my_octh", integrality_tol=1e-6)
    z, leaf, c, loss = oct_blocks.add_leaf_labels(f, X01, y, topo, min_samples_leaf=1, n_classes=2)
    a, b = blocks.add_hyperplanes(f, topo.branch_nodes, np.arange(n_features), 1.0, 1.0)
    d = f.add_variables("d", ("T",), 0.0, 1.0, domain="binary")                  # split t is used
    a_pos, a_neg = f.add_variables("a_pos", a.dims, 0.0, 1.0), f.add_variables("a_neg", a.dims, 0.0, 1.0)
    f.add_constraints("l1_split", a == a_pos - a_neg, equation="3.16a")
    f.add_constraints("l1_used", (a_pos + a_neg).sum("J") <= d, equation="||a_t||_1 <= d_t")
    used = blocks.add_l0_indicators(f, a, 1.0, penalty=alpha)                    # 3.14, alpha per feature used
    f.add_constraints("used_if_split", used <= d)
    f.add_constraints("split_uses_a_feature", used.sum("J") >= d)
    f.add_constraints("b_up", b <= d), f.add_constraints("b_down", b >= -d)
    # a_t x_i + mu <= b_t on the left, a_t x_i >= b_t on the right, for the points routed below t
    oct_blocks.add_split_rows(f, topo, a, b, z, X01, left_extra=None, left_M=2.0 + mu, left_upper=2.0, right_M=2.0)
    oct_blocks.add_split_hierarchy(f, topo, d)
    f.minimize(loss.sum() / (len(y) - np.bincount(y).max()))                      # misclassified / L_hat
    return f


data = load_breast_cancer()
X01 = MinMaxScaler().fit_transform(data.data[::25][:, [1, 4, 8, 9]])            # 23 rows: texture, smoothness ...
y = data.target[::25]
mine, library = my_octh(X01, y), oct.octh(X01, y, depth=2, alpha=0.01)
print(mine.summary().splitlines()[0])
results = {name: solvers.solve(f, mip_gap=0, time_limit=60) for name, f in (("mine", mine), ("library", library))}
for name, r in results.items():
    print(f"{name:8s} {r.status}: objective {r.objective:.6f}")
print("same optimum:", abs(results["mine"].objective - results["library"].objective) < 1e-6)
