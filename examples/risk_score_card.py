"""A risk score card a clinician can read: rules, points and a risk table.

Run: python examples/risk_score_card.py
"""

import warnings

from sklearn.datasets import load_breast_cancer

from optitrees import GeneralizedRiskScoreClassifier, RiskScoreClassifier
from optitrees.exceptions import TimeLimitWarning

warnings.simplefilter("ignore", TimeLimitWarning)
X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X = X[["mean radius", "mean texture", "mean concavity", "worst smoothness"]].iloc[:200]
y = y.iloc[:200].map({0: "malignant", 1: "benign"})

# rules "x >= threshold" learned with their points (model 4.16); thresholds sit between data values
card = GeneralizedRiskScoreClassifier(n_rules=3, max_score=3, tangents="V1", time_limit=4, random_state=0)
card.fit(X, y)
print(card.export_text())
print(card.risk_table())                                   # total score -> probability and predicted class
print("flipped first rule (Theorem 4.1), same predictions:",
      (card.flip_rule(0).predict(X) == card.predict(X)).all())

# the optimal risk score on binary features (model 4.5)
binary = (X > X.median()).astype(int)
ors = RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=4, random_state=0).fit(binary, y)
print(ors.export_text())
print(ors.solver_result_.summary())
