"""Fit an Optimal Logistic Classification Tree and read it.

Run: python examples/fit_olct.py
"""

import warnings

from sklearn.datasets import load_breast_cancer
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

from optitrees import OLCTClassifier, export
from optitrees.exceptions import TimeLimitWarning

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X = X.iloc[:, :10]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)

warnings.simplefilter("ignore", TimeLimitWarning)          # a short limit: not proven optimal, and that's fine
clf = OLCTClassifier(max_depth=2, C=1.0, tangents="V1", time_limit=5, random_state=0).fit(X_train, y_train)

print(clf.export_text())                                   # what it prints is exactly what it predicts
print(clf.solver_result_.summary())                        # the solve
print(clf.fit_report_)                                      # which model was returned, and how it was found
print(f"exact training objective {clf.objective_:.3f} (greedy start {clf.warm_start_objective_:.3f})")
print(f"test balanced accuracy {balanced_accuracy_score(y_test, clf.predict(X_test)):.3f}")

print(clf.feature_influence().round(3))                    # w_jt * std_jt per node (seed 002, Figure 3.5)
nodes, confidence = clf.path_confidence(X_test.iloc[:3])   # confidence of each decision (Figure 3.6)
print(nodes, confidence.round(3), sep="\n")

try:
    import matplotlib

    matplotlib.use("Agg")
    export.plot_tree(clf).figure.savefig("olct_tree.png", bbox_inches="tight")
    export.plot_solve_trace(clf).figure.savefig("olct_trace.png", bbox_inches="tight")
    print("wrote olct_tree.png and olct_trace.png")
except ImportError:
    print("pip install 'optitrees[plot]' to draw the tree")
