"""Hyperplanes a person can read: a budget of features per split on the oblique and logistic trees, chosen on
held-out folds by default (OLCT) or set by hand.

Run: python examples/readable_trees.py
"""

import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

from optitrees import OCTHClassifier, OLCTClassifier, TAOClassifier

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
warnings.simplefilter("ignore")                            # short limits: not proven optimal, and that's fine

models = {
    # the default, max_features="auto": the fewest features per hyperplane that keep the held-out accuracy
    "OLCT, budget chosen on held-out folds": OLCTClassifier(max_depth=2, time_limit=5, random_state=0),
    "OLCT, no budget": OLCTClassifier(max_depth=2, max_features=None, time_limit=5, random_state=0),
    "OLCT, 2 features per hyperplane": OLCTClassifier(max_depth=2, max_features=2, time_limit=5, random_state=0),
    "OCT-H, 2 per split": OCTHClassifier(max_depth=2, max_features=2, time_limit=5, random_state=0),
    "oblique TAO, 2 per split": TAOClassifier(max_depth=2, oblique=True, max_features=2, random_state=0),
}
kept = []
for name, model in models.items():
    model.fit(X_train, y_train)
    per_node = np.count_nonzero(model.tree_.weights, axis=1)
    bacc = balanced_accuracy_score(y_test, model.predict(X_test))
    print(f"{name}: features per node {per_node.tolist()}, test balanced accuracy {bacc:.3f}")
    budget = getattr(model, "max_features_", model.get_params().get("max_features"))   # the chosen one for "auto"
    kept.append(budget is None or bool(per_node.max() <= np.max(budget)))
print(f"chosen on held-out folds: {models['OLCT, budget chosen on held-out folds'].max_features_[0]} features "
      "per hyperplane")
print(f"every budget kept: {all(kept)}")

print()
print(models["OLCT, 2 features per hyperplane"].export_text())     # what it prints is exactly what it predicts
