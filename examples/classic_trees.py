"""C4.5 with missing values and soft components, UCT-DT, and the edit distance between trees (seed 000).

Run: python examples/classic_trees.py
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from optitrees import C45Classifier, UCTDTClassifier
from optitrees.edit_distance import edit_distance_matrix, tree_edit_distance, tree_statistics

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

# C4.5 (gain ratio, pessimistic pruning with the Laplace correction); 10% of the cells missing
holes = X_train.mask(np.random.default_rng(0).random(X_train.shape) < 0.1)
c45 = C45Classifier(confidence_factor=0.25).fit(holes, y_train)
print(f"C4.5 on data with 10% missing cells: {c45.n_leaves_} leaves, test accuracy {c45.score(X_test, y_test):.3f}")
print(c45.export_text())

# Soft trees for uncertain measurements: soft search, soft training propagation, soft evaluation
soft = C45Classifier(search_uncertainty=0.05, propagation_uncertainty=0.05, evaluation_uncertainty=0.05)
soft.fit(X_train, y_train)
print(f"soft C4.5: {soft.n_leaves_} leaves, test accuracy {soft.score(X_test, y_test):.3f}")

# UCT-DT: Monte Carlo tree search over trees, the best by validation F1
uct = UCTDTClassifier(n_iterations=300, random_state=0).fit(X_train, y_train)
print(f"UCT-DT: {uct.tree_.n_leaves} leaves, validation F1 {uct.validation_f1_:.3f}, "
      f"test accuracy {uct.score(X_test, y_test):.3f}, {uct.search_nodes_} trees searched")

# Edit distance (cost B2: substitutions discounted by threshold closeness and feature correlation)
stats = tree_statistics(X_train.to_numpy(), y_train.to_numpy(), correlation="spearman")
cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_train, y_train)
print(f"d_B2(C4.5, UCT-DT) = {tree_edit_distance(c45, uct, stats):.2f}, "
      f"d_B2(C4.5, CART) = {tree_edit_distance(c45, cart, stats):.2f}")
print(np.round(edit_distance_matrix([c45, soft, uct, cart], stats, cost="A1", normalize=True), 2))
