"""Your own constraints on an optimal tree: a hook that adds variables and rows to the formulation before the fit.

Two hooks on OLCT (seed 002, model 3.17) for breast cancer:

1. at most two features in the whole tree: a binary ``u[j]`` per feature (a new variable group), ``|w[t, j]| <= W u[j]``
   for every node, and ``sum_j u[j] <= 2``;
2. a sign (monotonicity) constraint: no node may give a larger radius a lower score (``w[t, radius] >= 0``).

and one on OCT: demographic parity of the leaves' predictions between two groups (``q[i, l] = z[i, l] c[1, l]``,
the product of two binaries written exactly by ``optitrees.mip.linearize``, and ``-0.1 <= rate(A) - rate(B) <= 0.1``
as one group of ranged rows).

Each hook is written as the equations read (``optitrees.mip.expressions``): a variable group is an array over its
index sets (``w`` over ``(T, J)``, ``u`` over ``J``), arithmetic aligns them by set name, and a comparison is a
group of rows. The fit runs the hook before any start, completes each start for the new variables (or solves
without it and says so), and returns a tree that satisfies the constraints; ``build_formulation`` gives the very
model it solves, and ``print(f.constraints["use_up"])`` shows its rows.

Run: python examples/your_own_constraints.py
"""

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer

from optitrees import OCTClassifier, OLCTClassifier, solvers
from optitrees.mip.expressions import Data
from optitrees.mip.linearize import add_binary_product

data = load_breast_cancer(as_frame=True)
features = ["mean radius", "mean texture", "mean concavity", "mean symmetry", "worst smoothness"]
X, y = data.data[features].iloc[::10], data.target.iloc[::10]        # 57 rows


def at_most_two_features(f, weight_bound=10.0):
    """``u[j] = 1`` when any node uses feature j; at most two are used (|w| <= W u: W is the model's bound)."""
    u, w = f.add_variables("u", ("J",), 0, 1, "binary"), f.variables["w"]
    f.add_constraints("use_up", w <= weight_bound * u)
    f.add_constraints("use_lo", w >= -weight_bound * u)
    f.add_constraints("cap", u.sum() <= 2)


def radius_never_lowers_the_score(f):
    """``w[t, mean_radius] >= 0`` at every node (labels in ``J`` are the feature names made safe)."""
    f.add_constraints("radius_sign", f.variables["w"].sel(J="mean_radius") >= 0)


def both(f):
    at_most_two_features(f)
    radius_never_lowers_the_score(f)


clf = OLCTClassifier(max_depth=2, time_limit=12, random_state=0, constraints=both).fit(X, y)
used = [features[j] for j in np.flatnonzero(np.abs(clf.tree_.weights).sum(axis=0) > 0)]
print(f"features used: {used}")
print(f"every weight on mean radius >= 0: {bool(np.all(clf.tree_.weights[:, 0] >= 0))}")
print(clf.fit_report_)

# the model the fit solved, as a formulation: the hook's groups are in it
f = OLCTClassifier(max_depth=2, constraints=both).build_formulation(X, y)
print(f.summary().splitlines()[0])
print("the hook added:", f.user_groups, "| rows:", [g for g in f.constraints if g in ("cap", "radius_sign")])
print(f.constraints["use_up"].to_text(max_rows=2))
res = solvers.solve(f, time_limit=10)
print(f"solved by hand: {res.status}, objective {res.objective:.4f}")


# OCT with demographic parity: the rate of positive predictions differs by at most 0.1 between the groups
def demographic_parity(group, delta):
    def hook(f):
        X, v = f.problem.data.X, f.problem.data.weight      # the (merged, weighted) rows the model is written on
        g = X[:, f.index("J", group)] > 0.5
        q = add_binary_product(f, "q", f.variables["z"], f.variables["c"].sel(K=1))   # q[i, l] = z[i, l] c[1, l]
        rate_gap = (Data(np.where(g, v / v[g].sum(), -v / v[~g].sum()), ("I",)) * q).sum()
        f.add_constraints("parity", rate_gap, lower=-delta, upper=delta)
    return hook


rng = np.random.default_rng(0)
group = (rng.random(60) < 0.5).astype(float)
X_fair = pd.DataFrame(np.column_stack([group, rng.random((60, 3)) < 0.5]).astype(float),
                      columns=["group", "a", "b", "c"])
y_fair = (X_fair["a"] + group + 0.5 * rng.random(60) > 1.2).astype(int)
for name, hook in (("OCT", None), ("OCT with parity", demographic_parity("group", 0.1))):
    oct_ = OCTClassifier(max_depth=2, time_limit=30, mip_gap=0, constraints=hook).fit(X_fair, y_fair)
    p = oct_.predict(X_fair)
    print(f"{name}: training accuracy {np.mean(p == y_fair):.3f}, "
          f"parity gap {abs(p[group == 1].mean() - p[group == 0].mean()):.3f}")
