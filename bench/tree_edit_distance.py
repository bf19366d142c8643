"""Decision-tree edit distances against prediction-based distances: seed 000, Table 5.1.

Breast Cancer Wisconsin Diagnostic (scikit-learn's copy of UCI wdbc), split
397 / 172 stratified as in the seed. The seed compared the 104 trees of a Monte
Carlo tree search hierarchy (3 to 13 nodes); ``--source uct`` takes the first
``--trees`` trees of a UCT-DT search on the training part (the same kind of
hierarchy: each tree adds one split to its parent), ``--source bootstrap``
C4.5 trees learned on bootstrap samples with ``max_depth`` cycling through 1, 2, 3. For every pair: the edit distances d_A1,
d_A2, d_B1, d_B2 (Spearman correlation for A2/B2, statistics of the training
part), the class-probability distance d_KL (eq. 5.7, additive smoothing
1e-5 of q) and the class-prediction distance d_p (eq. 5.8) on the test part.
Printed: the Frobenius norms of the differences of the matrices, unnormalized
and normalized by eq. 5.6, beside the seed's Table 5.1.

Run: python bench/tree_edit_distance.py [--trees 104] [--jobs 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from optitrees import C45Classifier
from optitrees.algorithms.uct_dt.tree_search import UCTSearch
from optitrees.edit_distance import COSTS, edit_distance_matrix, tree_statistics

#: Seed 000, Table 5.1: ||D_cost - D_KL|| and ||D_cost - D_p||, unnormalized / normalized.
SEED = {("A1", "KL"): (466.5, 15.1), ("A2", "KL"): (374.6, 11.3), ("B1", "KL"): (267.2, 9.5),
        ("B2", "KL"): (178.0, 12.1), ("A1", "p"): (480.4, 25.5), ("A2", "p"): (388.5, 19.9),
        ("B1", "p"): (281.2, 13.7), ("B2", "p"): (191.3, 8.7)}


def prediction_distances(trees, X):
    """``(D_KL, D_p)`` of eqs. 5.7 and 5.8 on the rows of ``X``."""
    P = np.stack([t.predict_proba(X) for t in trees])                  # (trees, m, K)
    Q = 1e-5 / P.shape[2] + (1 - 1e-5) * P
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(P > 0, P * np.log(P), 0.0).sum(axis=2)        # (trees, m)
    cross = np.einsum("imk,jmk->ijm", P, np.log(Q))
    D_kl = (plogp[:, None, :] - cross).mean(axis=2)
    labels = P.argmax(axis=2)
    D_p = (labels[:, None, :] != labels[None, :, :]).mean(axis=2)
    return D_kl, D_p


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=104)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--source", choices=["uct", "bootstrap"], default="uct")
    args = parser.parse_args()
    X, y = load_breast_cancer(return_X_y=True)
    y = 1 - y                                                         # 1 = malignant, as the seed's M
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=397, stratify=y, random_state=0)
    rng = np.random.default_rng(0)
    trees = []
    if args.source == "bootstrap":
        for k in range(args.trees):
            rows = rng.integers(0, len(ytr), len(ytr))
            trees.append(C45Classifier(max_depth=1 + k % 3).fit(Xtr[rows], ytr[rows]).tree_)
    else:
        ind = rng.permutation(len(ytr))
        search = UCTSearch(Xtr, ytr, ind[: int(0.7 * len(ind))], ind[int(0.7 * len(ind)):], n_classes=2,
                           allowed=np.ones(X.shape[1], bool), max_depth=6, rng=rng, value_pruning=False)
        search.run(args.trees * 3)
        nodes = [n for n in search.nodes if n.depth >= 1][: args.trees]
        trees = [n.state.to_tree(X.shape[1]) for n in nodes]
    sizes = np.array([t.n_nodes for t in trees])
    stats = tree_statistics(Xtr, ytr, correlation="spearman")
    D_kl, D_p = prediction_distances(trees, Xte)
    rows = []
    for cost in COSTS:
        t0 = time.perf_counter()
        D = edit_distance_matrix(trees, stats, cost=cost, n_jobs=args.jobs)
        seconds = time.perf_counter() - t0
        Dn = D / (sizes[:, None] + sizes[None, :])
        for name, ref in (("KL", D_kl), ("p", D_p)):
            seed = SEED[(cost, name)]
            rows.append({"matrix norm": f"||D_{cost} - D_{name}||",
                         "unnormalized (ours)": np.linalg.norm(D - ref), "unnormalized (seed)": seed[0],
                         "normalized (ours)": np.linalg.norm(Dn - ref), "normalized (seed)": seed[1],
                         "edit distance range": f"[{D.min():.1f}, {D.max():.1f}]", "APTED seconds": seconds})
    print(f"{len(trees)} trees ({args.source}), {sizes.min()} to {sizes.max()} nodes; "
          f"d_KL in [{D_kl.min():.2f}, {D_kl.max():.2f}], d_p in [{D_p.min():.2f}, {D_p.max():.2f}]")
    print(pd.DataFrame(rows).round(2).to_string(index=False))


if __name__ == "__main__":
    main()
