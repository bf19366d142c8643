"""Figures: every tree model, score cards, feature influence and the solve's trace (matplotlib, optional)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

pytest.importorskip("matplotlib")
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from optitrees import GeneralizedRiskScoreClassifier, OCTHClassifier, OLCTClassifier, export  # noqa: E402
from _support import fit_quiet  # noqa: E402


@pytest.fixture(scope="module")
def cancer():
    data = load_breast_cancer(as_frame=True)
    return data.data.iloc[:120, :5], data.target.iloc[:120].to_numpy()


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_plot_tree_of_oblique_and_label_trees(cancer):
    X, y = cancer
    root = dict(time_limit=5, solver_options={"mip_max_nodes": 0}, warm_start="tao")     # the tree drawn, not solved
    for clf in (fit_quiet(OLCTClassifier(max_depth=2, **root), X, y),
                fit_quiet(OCTHClassifier(max_depth=2, **root), X, y)):
        ax = export.plot_tree(clf)
        texts = _texts(ax)
        assert sum(t.startswith("[") for t in texts) == clf.tree_.n_nodes
        assert any("<=" in t for t in texts) and any("mean" in t for t in texts)
        plt.close(ax.figure)


def test_score_card_influence_and_trace_figures(cancer):
    X, y = cancer
    card = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=2, max_score=2, tangents="V0", time_limit=5,
                                                    solver_options={"mip_max_nodes": 5}), X, y)
    ax = export.plot_score_card(card)
    assert len(ax.collections) == 2 and ax.get_ylabel() == "P(1)"
    cells = [c.get_text().get_text() for c in ax.tables[0].get_celld().values()]
    assert any(">=" in c or "<" in c for c in cells)
    plt.close(ax.figure)
    olct = fit_quiet(OLCTClassifier(max_depth=2, time_limit=5, solver_options={"mip_max_nodes": 1}, warm_start="tao"),
                     X, y)
    ax = export.plot_feature_influence(olct)
    assert ax.images[0].get_array().shape == (3, 5)
    plt.close(ax.figure)
    ax = export.plot_solve_trace(olct)
    assert len(ax.lines) == 2 and "highs" in ax.get_title()
    assert np.isfinite(ax.lines[1].get_ydata()).any()          # the bound was recorded
    plt.close(ax.figure)


def _overlaps(ax):
    """Pairs of node boxes (texts starting with a node id) whose drawn extents intersect."""
    renderer = ax.figure.canvas.get_renderer()
    ax.figure.canvas.draw()
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts if t.get_text().startswith("[")]
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


@pytest.mark.slow
def test_no_node_box_overlaps_another():
    from sklearn.datasets import load_breast_cancer

    from optitrees import C45Classifier, TAOClassifier

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    fast = dict(time_limit=5, solver_options={"mip_max_nodes": 5})
    # 30-feature hyperplanes in the OLCT's leaves (the right leaf's box used to cover the left one), a wide C4.5 tree
    for clf in (fit_quiet(OLCTClassifier(max_depth=2, **fast), X, y), fit_quiet(C45Classifier(), X, y),
                fit_quiet(OCTHClassifier(max_depth=2, **fast), X.iloc[:200], y.iloc[:200]),
                TAOClassifier(max_depth=3).fit(X, y)):
        ax = export.plot_tree(clf)
        assert _overlaps(ax) == [], type(clf).__name__
        plt.close(ax.figure)


def test_plots_say_what_they_draw_for_other_models(cancer):
    from optitrees import RuleSetClassifier, TAOClassifier

    X, y = cancer
    rules = RuleSetClassifier(n_rules=3, n_estimators=10, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="rule set"):
        export.plot_tree(rules)
    with pytest.raises(TypeError, match="rule set"):
        export.plot_score_card(rules)
    with pytest.raises(TypeError, match="no solver_result_"):
        export.plot_solve_trace(TAOClassifier(max_depth=2).fit(X, y))


def test_no_chart_for_a_fit_without_a_solve():
    from optitrees.export import plot_solve_trace
    from optitrees.solvers.results import SolverResult

    unsolved = SolverResult(solver="highs", message="the MIP was not solved: its root LP needs 3 s")
    with pytest.raises(ValueError, match="no solve trace to draw.*root LP needs 3 s"):
        plot_solve_trace(unsolved)
