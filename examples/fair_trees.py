"""A fair tree: OCT held to demographic parity between two groups, beside the same tree without the constraint.

The data are made so that the label leans on a feature that tracks the group (a tree free to use it treats the
groups differently). ``fairness=DemographicParity(difference_bound=0.05)`` holds the share of rows predicted
positive in the two groups within 5 points on the training rows; ``fit_report_.fairness`` gives the disparities
(equal to fairlearn's metrics on the same rows) and ``disparities`` the same figures on new rows.

Run: python examples/fair_trees.py
"""

import numpy as np

from optitrees import OCTClassifier
from optitrees.fairness import DemographicParity, disparities

rng = np.random.default_rng(0)
n = 600
group = rng.choice(["A", "B"], n, p=[0.4, 0.6])
X = np.column_stack([rng.normal(size=n) + (group == "B"), rng.normal(size=n), rng.normal(size=n)])
y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.5, n) > 0.6).astype(int)
train, test = np.arange(400), np.arange(400, n)

free = OCTClassifier(max_depth=2, time_limit=5, random_state=0).fit(X[train], y[train])
fair = OCTClassifier(max_depth=2, time_limit=5, random_state=0, fairness=DemographicParity(0.05))
fair.fit(X[train], y[train], sensitive_features=group[train])

for name, model in (("without the constraint", free), ("demographic parity 0.05", fair)):
    held_out = disparities(model, X[test], y[test], group[test])
    accuracy = np.mean(model.predict(X[test]) == y[test])
    print(f"{name}: test accuracy {accuracy:.3f}, test demographic parity difference "
          f"{held_out['demographic_parity']:.3f}")
report = fair.fit_report_.fairness
print(f"training demographic parity difference {report['demographic_parity']:.3f} "
      f"(bound {report['bound']}, kept: {report['keeps']})")
print(fair.export_text())
