"""Trees found by local and memetic search, and an OCT proven optimal by ConTree.

Run: python examples/local_search_trees.py
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from optitrees import OCTClassifier, TAOClassifier, TMOClassifier

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)

# TAO: CART improved node by node on the exact training error (axis-aligned, then oblique splits)
for oblique in (False, True):
    tao = TAOClassifier(max_depth=3, oblique=oblique, random_state=0).fit(X_train, y_train)
    print(f"TAO oblique={oblique}: training objective {tao.objective_:.4f} (CART {tao.start_objective_:.4f}), "
          f"test accuracy {tao.score(X_test, y_test):.3f}")

# TMO (Algorithm 3 of the seed, a smaller population here): a forest's trees crossed over and improved by TAO
tmo = TMOClassifier(max_depth=3, n_estimators=20, n_generations=3, random_state=0).fit(X_train, y_train)
print(f"TMO: best training accuracy per generation {[round(f, 4) for f in tmo.fitness_history_]}, "
      f"test accuracy {tmo.score(X_test, y_test):.3f}")
print(tmo.export_text())

# OCT at depth 2: ConTree finds the optimum and proves it; no MIP is built
oct_ = OCTClassifier(max_depth=2, alpha=0.01, time_limit=30).fit(X_train, y_train)
print(oct_.solver_result_.summary())
print(f"certified by {oct_.fit_report_.certified_by}, method {oct_.method_}")
