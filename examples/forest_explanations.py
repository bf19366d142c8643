"""Readable models drawn from a random forest (seed 004 and seed 002, ch. 5).

1. RuleSetClassifier: 5 rules of a 100-tree forest of depth 3, selected by
   LASSO, each with a model of when it is right; the printed rule set is the
   model, and `explain` shows which rules a patient's prediction trusted.
2. ContextualTreeClassifier (CCT): a policy picks, per point, the one forest
   tree that classifies and explains it.
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from optitrees import ContextualTreeClassifier, RuleSetClassifier

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
y = np.array(["malignant", "benign"])[y]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

rules = RuleSetClassifier(n_rules=5, random_state=0).fit(X_train, y_train)
print(f"{rules.n_candidate_rules_} distinct rules in the forest, {rules.rule_set_.n_rules} kept")
print(rules.export_text())
auc = roc_auc_score(y_test == "malignant", rules.predict_proba(X_test)[:, 1])
print(f"test AUC {auc:.3f}, test accuracy {rules.score(X_test, y_test):.3f}")
patient = rules.explain(X_test.iloc[:1])
print("patient 0:", rules.predict(X_test.iloc[:1])[0])
print(patient[["rule", "fires", "predicts", "trusted", "weight"]].to_string(index=False))

cct = ContextualTreeClassifier(n_estimators=50, max_epochs=100, random_state=0).fit(X_train, y_train)
print(f"\nCCT: test accuracy {cct.score(X_test, y_test):.3f} (CART of depth {cct.max_depth_}: "
      f"{cct.cart_.score(X_test.to_numpy() / cct.forest_scale_, y_test):.3f}); "
      f"{np.count_nonzero(cct.tree_usage_)} of {len(cct.trees_)} trees in use")
first = cct.explain(X_test.iloc[:1]).iloc[0]
print(f"patient 0 is classified {first['prediction']} by tree {first['tree']}: {first['path']}")
