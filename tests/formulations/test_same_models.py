"""The formulations the shared blocks build stay the same model as they rewrite: every family's constraint rows,
bounds, integrality and objective are fingerprinted, and the fingerprints were taken from the builds before the
blocks were written as expressions (:mod:`optitrees.mip.expressions`, commit 4a4d9da)."""

import hashlib

import numpy as np
import pytest

from optitrees import (GeneralizedRiskScoreClassifier, LossOptimalTreeRegressor, OCTClassifier, OCTHClassifier,
                       OLCTClassifier, RiskScoreClassifier)
from optitrees.fairness import DemographicParity, EqualizedOdds
from optitrees.formulations import cuts
from optitrees.formulations import oct as oct_models
from optitrees.formulations.loss_optimal.model import loss_optimal_tree


def data(seed=0, n=30, p=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    return X, np.where(X[:, 0] + rng.normal(size=n) > 0, 1, -1)


def fingerprint(f) -> str:
    """sha256 of every group's name, sets, rows, columns, coefficients and bounds, and of the objective."""
    h = hashlib.sha256()
    for g in f.constraints.values():
        h.update(g.name.encode()), h.update(repr(g.dims).encode())
        for a in (g.rows, g.cols, g.vals, g.lower, g.upper):
            h.update(np.ascontiguousarray(a).tobytes())
    for g in f.variables.values():
        h.update(g.name.encode()), h.update(repr(g.dims).encode()), h.update(g.domain.encode())
        h.update(np.ascontiguousarray(g.lower).tobytes()), h.update(np.ascontiguousarray(g.upper).tobytes())
    h.update(f.cost.tobytes()), h.update(f.quadratic.tobytes())
    return h.hexdigest()


def _mixed_binary():
    """Five features, two of them 0/1 (OGRS's binary-threshold rows, 4.16p-q)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 5))
    X[:, 1], X[:, 3] = X[:, 1] > 0, X[:, 3] > 0.3
    return X, (X[:, 0] + X[:, 1] + rng.normal(size=40) > 0.5).astype(int)


def _margot_with_square_cuts():
    """MARGOT's l2 by tangent cuts, with one more round of cuts at random points."""
    f = loss_optimal_tree(X, y, depth=2, loss="hinge", regularizer="l2", l2_method="outer")
    cuts.add_square_cuts(f, f.variables["q"], f.variables["w"], np.random.default_rng(0).normal(size=(3, 4)))
    return f


X, y = data()
X01 = (X - X.min(0)) / (X.max(0) - X.min(0))
y01 = (y > 0).astype(int)
g = np.where(X[:, 2] > 0, "a", "b")
Xb = (X > 0).astype(float)
builds = {
    "olct_d2": lambda: loss_optimal_tree(X, y, depth=2),
    "olct_d3_hinge_l0": lambda: loss_optimal_tree(X, y, depth=3, loss="hinge", feature_selection="hard",
                                                  max_features=2),
    "margot_d2": lambda: loss_optimal_tree(X, y, depth=2, loss="hinge", regularizer="l2"),
    "misclass_d2_inline": lambda: loss_optimal_tree(X, y, depth=2, loss="misclassification", score_variables=False),
    "sfs_d2": lambda: loss_optimal_tree(X, y, depth=2, feature_selection="soft", alpha=0.1, forbidden=(1,)),
    "oct_d2": lambda: oct_models.oct(X01, y01, depth=2, alpha=0.01),
    "octh_d2": lambda: oct_models.octh(X01, y01, depth=2, alpha=0.01),
    "octh_d3": lambda: oct_models.octh(X01, y01, depth=3, alpha=0.01),
    "regressor_d2": lambda: LossOptimalTreeRegressor(max_depth=2).build_formulation(X, X[:, 1] + y),
    "oct_d2_weighted_min_leaf": lambda: OCTClassifier(max_depth=2, min_samples_leaf=3).build_formulation(
        X, y01, sample_weight=np.linspace(0.5, 2.0, len(y01))),
    "octh_d2_weighted_budget": lambda: OCTHClassifier(max_depth=2, max_features=2).build_formulation(
        X, y01, sample_weight=np.linspace(0.5, 2.0, len(y01))),
    # the parity, feature-budget and monotonicity blocks
    "ors_tangents": lambda: RiskScoreClassifier(n_rules=3, method="tangents", multiplier=1.0).build_formulation(
        Xb, y01),
    "ors_fair_budget": lambda: RiskScoreClassifier(n_rules=3, fairness=DemographicParity(0.1), multiplier=1.0,
                                                   max_feature_cost=2).build_formulation(Xb, y01, sensitive_features=g),
    "ogrs_tangents_monotone": lambda: GeneralizedRiskScoreClassifier(
        n_rules=2, method="tangents", monotonic_cst=[1, 0, -1, 0]).build_formulation(X, y01),
    "ogrs_fair": lambda: GeneralizedRiskScoreClassifier(n_rules=2, fairness=EqualizedOdds(0.1)).build_formulation(
        X, y01, sensitive_features=g),
    "oct_fair_costs": lambda: OCTClassifier(max_depth=2, fairness=DemographicParity(0.05), feature_costs=[1, 2, 1, 3],
                                            max_feature_cost=3).build_formulation(X, y01, sensitive_features=g),
    "olct_fair_monotone": lambda: OLCTClassifier(max_depth=2, fairness=EqualizedOdds(0.1),
                                                 monotonic_cst=[1, 0, 0, -1]).build_formulation(
        X, y01, sensitive_features=g),
    "octh_costs": lambda: OCTHClassifier(max_depth=2, feature_costs=[1, 2, 1, 3], max_feature_cost=3).build_formulation(
        X, y01),
    # taken from the builds before OGRS (4.16), the residuals and the square cuts were written as expressions
    "ogrs_binary_symmetry": lambda: GeneralizedRiskScoreClassifier(n_rules=3, method="tangents").build_formulation(
        *_mixed_binary()),
    "margot_l2_outer_cuts": _margot_with_square_cuts,
    "regressor_squared_d2": lambda: LossOptimalTreeRegressor(max_depth=2, loss="squared").build_formulation(
        X, X[:, 1] + y),
}

EXPECTED = {
    "ors_tangents": "7236b3910dd7ea2ed50e12dc3b8e8f1365c75b3206d7dbedf3fd6e4a5e42a600",
    "ors_fair_budget": "9abf137eb78295c58134d720d69be2c1a670dd7dcd51f614b436fb48d9dbf891",
    "ogrs_tangents_monotone": "9f6333d15b2f0a342e21fd3a4a4045792b86c5edd6b606916864039318ee75d9",
    "ogrs_fair": "b3405e7ebaeeeaa5e71a8595dccc24b2acc1f9cc27707dec3458b815cb97e189",
    "oct_fair_costs": "1cece6688c96a2a6a4a118c0cd8bcbb7abfbe80a7ee3e2458470b8e72d928736",
    "olct_fair_monotone": "e62dfbaff2a8521cb8b77689484ae8b84c64428df6035b20509bffc21c50216f",
    "octh_costs": "d710a7daa15616c28713345cf6449ba88e203a33479fb97ec5b07e1d4974934f",
    "oct_d2_weighted_min_leaf": "6684305a1657b29f7b9f2c46998f82f50a74675b8890f9ca80fdf6659243ca55",
    "octh_d2_weighted_budget": "6565ea4d8288824903c6c71bbbb3c20ed99f24efbd667c57d31617be8574ed23",
    "olct_d2": "3ada7d60770d4bdb873754598a98ce84bef6c55706c86e45f882459e47b01b63",
    "olct_d3_hinge_l0": "e4529c8792559a47409e42cc44d60ecc735b32d79b58f9d95dd48420d3779a86",
    "margot_d2": "98f5213f8d909fe1b775b00b091d928db0ee6dff2b2808d5999a165ba29cc900",
    "misclass_d2_inline": "7a9255c5f3181faf4bee2c6dda6991f31cabe9872343c66e09fc91efac2d735b",
    "sfs_d2": "6ec8049feaead1bf9ba987593bb453ded8451d35e46bcffb1f4e24cc372eb0b7",
    "oct_d2": "3b9eb4fe83d1e3b6433a27ca07ed30c5bf53b2fd66898cd4297323862e5207e5",
    "octh_d2": "a070d41a51fcb93f1a61a51ebbd3eed6122b953fc07f72affb1de7d94e07fea9",
    "octh_d3": "b41f614b5c4c159b8ca2d1471d7b3a5fd6ce1a052a57c70d176b3d74e2aa3ae8",
    "regressor_d2": "fa35c49c4abf777fdcb63cc81160723e6970853a5b5f599f863792a6fdc40ec1",
    "ogrs_binary_symmetry": "d6ad11719e59a471f440cbaef18a141158206b5b1d6db2f50803c5655d4b67f0",
    "margot_l2_outer_cuts": "ef5a3a63506d495193ac7f118f1f234bc961e408bc4fd0f43720f2cc7ae979c0",
    "regressor_squared_d2": "c8cae9e6bfdb7d6412534e81c0e4bbdae5c3ceb3c0e59eb24df154e40618e682",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_model_is_the_one_built_before(name):
    assert fingerprint(builds[name]()) == EXPECTED[name]
