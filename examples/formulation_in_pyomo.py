"""The formulation as a first-class object: build it, change it in Pyomo, solve it on two backends, export it.

Run: python examples/formulation_in_pyomo.py
"""

import numpy as np
import pyomo.environ as pyo
from sklearn.datasets import load_breast_cancer

from optitrees import OCTClassifier, solvers
from optitrees.formulations.oct.solution import decode

data = load_breast_cancer(as_frame=True)
X = data.data[["mean radius", "mean texture", "mean concavity"]].iloc[:40]
y = data.target.iloc[:40]

# the exact model OCTClassifier would solve, feature names in its index set J
est = OCTClassifier(max_depth=2, alpha=0.01)
f = est.build_formulation(X, y)
print(f.summary())
f.write("oct.lp")
f.write("oct.mps")                                         # files read a(1,mean_radius)-style names

# the same model in Pyomo, with a constraint of ours: the root may not split on mean texture
m = f.to_pyomo()
m.no_texture_at_root = pyo.Constraint(expr=m.a[1, "mean_texture"] == 0)
for name in ["highs"] + [s for s in ("scip",) if s in solvers.available()]:
    res = solvers.solve(m, solver=name, mip_gap=0, time_limit=60)
    tree, checks = decode(f, res.x)
    print(f"{name:6s} {res.status}: objective {res.objective:.4f}, root feature {X.columns[tree.feature[0]]}, "
          f"routing agrees with z: {checks['routing_mismatches'] == 0}")

# or add the constraint through the estimator's hook and fit as usual
def no_texture_at_root(f):
    f.fix("a", 0.0, mask=np.outer(f.sets["T"] == 1, f.sets["J"] == "mean_texture"))

clf = OCTClassifier(max_depth=2, alpha=0.01, time_limit=60, constraints=no_texture_at_root).fit(X, y)
print(clf.export_text())
