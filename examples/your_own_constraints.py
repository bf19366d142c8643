"""Your own constraints on an optimal tree: a hook that adds variables and rows to the formulation before the fit.

Two hooks on OLCT (seed 002, model 3.17) for breast cancer:

1. at most two features in the whole tree: a binary ``u[j]`` per feature (a new variable group), ``|w[t, j]| <= W u[j]``
   for every node, and ``sum_j u[j] <= 2``;
2. a sign (monotonicity) constraint: no node may give a larger radius a lower score (``w[t, radius] >= 0``).

and one on OCT: demographic parity of the leaves' predictions between two groups (a new group ``q[i, l] = z[i, l]
c[1, l]``, linearized, and ``|rate(A) - rate(B)| <= 0.1``).

The fit runs the hook before any start, completes each start for the new variables (or solves without it and
says so), and returns a tree that satisfies the constraints; ``build_formulation`` gives the very model it solves.

Run: python examples/your_own_constraints.py
"""

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer

from optitrees import OCTClassifier, OLCTClassifier, solvers

data = load_breast_cancer(as_frame=True)
features = ["mean radius", "mean texture", "mean concavity", "mean symmetry", "worst smoothness"]
X, y = data.data[features].iloc[::10], data.target.iloc[::10]        # 57 rows


def at_most_two_features(f, weight_bound=10.0):
    """``u[j] = 1`` when any node uses feature j; at most two are used (|w| <= W u: W is the model's bound)."""
    n_nodes, n_features = len(f.sets["T"]), len(f.sets["J"])
    u = f.add_variables("u", ("J",), 0, 1, "binary")
    w = f.variables["w"]
    pair = np.stack([w.columns, np.broadcast_to(u.columns, (n_nodes, n_features))], axis=-1)
    f.add_constraints("use_up", ("T", "J"), [(pair, np.broadcast_to([1.0, -weight_bound], pair.shape))], upper=0.0)
    f.add_constraints("use_lo", ("T", "J"), [(pair, np.broadcast_to([1.0, weight_bound], pair.shape))], lower=0.0)
    f.add_constraints("cap", (), [(u.columns.reshape(1, -1), np.ones((1, n_features)))], upper=2)


def radius_never_lowers_the_score(f):
    """``w[t, mean_radius] >= 0`` at every node (labels in ``J`` are the feature names made safe)."""
    j = f.index("J", "mean_radius")
    f.add_constraints("radius_sign", ("T",), [(f.variables["w"].columns[:, j], 1.0)], lower=0.0)


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
res = solvers.solve(f, time_limit=10)
print(f"solved by hand: {res.status}, objective {res.objective:.4f}")


# OCT with demographic parity: the rate of positive predictions differs by at most 0.1 between the groups
def demographic_parity(group, delta):
    def hook(f):
        data = f.problem.data                        # the (merged, weighted) rows the model is written on
        in_group = data.X[:, f.index("J", group)] > 0.5
        weight = data.weight if data.weighted else np.ones(len(in_group))
        z, c = f.variables["z"], f.variables["c"]
        positive = np.broadcast_to(c.columns[1], z.shape)
        q = f.add_variables("q", ("I", "L"), 0.0, 1.0)          # q = z c[1]: the point is predicted positive at l
        f.add_constraints("q_z", ("I", "L"), [(q.columns, 1.0), (z.columns, -1.0)], upper=0.0)
        f.add_constraints("q_c", ("I", "L"), [(q.columns, 1.0), (positive, -1.0)], upper=0.0)
        f.add_constraints("q_zc", ("I", "L"), [(q.columns, 1.0), (z.columns, -1.0), (positive, -1.0)], lower=-1.0)
        rate = np.where(in_group, weight / weight[in_group].sum(), -weight / weight[~in_group].sum())
        f.add_constraints("parity", (), [(q.columns.reshape(1, -1), np.broadcast_to(rate[:, None], z.shape)
                                          .reshape(1, -1))], lower=-delta, upper=delta)
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
