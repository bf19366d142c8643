"""Regression trees: seed 003's CART with the t-test rule, the optimal axis-aligned tree (STreeD), and oblique
trees with linear leaves under the absolute and the squared loss.

Run: python examples/regression_trees.py
"""

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

from optitrees import CARTRegressor, LossOptimalTreeRegressor, OptimalTreeRegressor

X, y = load_diabetes(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)


def rmse(model):
    return float(np.sqrt(np.mean((model.predict(X_test) - y_test) ** 2)))


# CART with squared-error splits, pruned by the t-test between sibling leaves (p-value threshold 0.05)
cart = CARTRegressor(max_depth=3, random_state=0).fit(X_train, y_train)
print(f"CART, t-test pruning: {cart.tree_.n_leaves} leaves, test RMSE {rmse(cart):.1f}")

# the best axis-aligned tree of depth 2 over every threshold (STreeD), certified in its report
optimal = OptimalTreeRegressor(max_depth=2, time_limit=30).fit(X_train, y_train)
print(f"optimal depth-2 tree: test RMSE {rmse(optimal):.1f}, {optimal.fit_report_.outcome}")

# one oblique split, then a linear model in each leaf; the absolute loss is a MILP, the squared loss is solved
# by tangent cuts on HiGHS (an MIQP on SCIP or Gurobi)
for loss in ("absolute", "squared"):
    oblique = LossOptimalTreeRegressor(max_depth=2, loss=loss, lam=0.1, time_limit=3).fit(X_train, y_train)
    report = oblique.fit_report_
    print(f"oblique tree, {loss} loss: test RMSE {rmse(oblique):.1f}, returned the {report.returned} tree "
          f"(objective {oblique.objective_:.2f}, CART start {oblique.start_objective_:.2f})")
print(oblique.export_text())
