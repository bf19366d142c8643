"""A tree under a feature-cost budget: what measuring each feature costs, and the most the model may spend.

Breast-cancer features measured on a cell image: say the size features (radius, perimeter, area) come from a
cheap automatic contour (cost 1), the texture and smoothness features need a second pass (cost 2), and the
shape features (compactness, concavity, concave points, symmetry, fractal dimension) a specialist's reading
(cost 5). ``max_feature_cost=4`` lets the tree read features costing at most 4 together; the MIP holds the budget
(``feature_read`` and the ``feature_cost`` row are in its formulation) and picks which features to pay for.

Run: python examples/feature_costs.py
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

from optitrees import OCTHClassifier

data = load_breast_cancer()
names = list(data.feature_names[:10])                     # the mean of each measurement
X, y = data.data[:, :10], data.target
costs = {name: 1 if name.split()[-1] in ("radius", "perimeter", "area") else
         2 if name.split()[-1] in ("texture", "smoothness") else 5 for name in names}
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

free = OCTHClassifier(max_depth=2, time_limit=10, random_state=0, feature_costs=[costs[n] for n in names])
capped = OCTHClassifier(max_depth=2, time_limit=10, random_state=0, feature_costs=[costs[n] for n in names],
                        max_feature_cost=4)
for label, model in (("no budget", free), ("budget 4", capped)):
    model.fit(X_train, y_train)
    spent = model.fit_report_.feature_cost
    print(f"{label}: test balanced accuracy "
          f"{balanced_accuracy_score(y_test, model.predict(X_test)):.3f}; reads "
          f"{', '.join(names[int(f[1:])] for f in spent['features'])} (cost {spent['cost']:g})")
print(f"budget kept: {capped.fit_report_.feature_cost['keeps']}")
f = capped.build_formulation(X_train, y_train)
print(f"the budget's rows in the formulation: {[n for n in f.constraints if n.startswith(('reads', 'feature_cost'))]}")
read = (capped.tree_.weights[~capped.tree_.is_leaf] != 0).any(axis=0)
print(f"cost of the features the printed tree reads: {sum(costs[names[j]] for j in np.flatnonzero(read)):g}")
