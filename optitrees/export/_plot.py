"""Figures with matplotlib (the ``plot`` extra): trees, score cards, feature influence, the solve's trace.

matplotlib is imported inside each function, so the package works without it.
Every function draws into ``ax`` (a new figure when ``None``) and returns the axes.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree
from ._text import RISK_TABLE_ROWS, card_rows, linear_text
from ..readable import format_count, format_number

__all__ = ["plot_tree", "tree_layout", "plot_score_card", "plot_feature_influence", "plot_solve_trace"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:          # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'optitrees[plot]'") from exc
    return plt


def _axes(ax, size):
    if ax is not None:
        return ax
    return _pyplot().subplots(figsize=size)[1]


def _node_label(tree: Tree, t, feature_names, class_names):
    if not tree.is_leaf[t]:
        return f"[{t}] {linear_text(tree.weights[t], feature_names)} <= {format_number(tree.threshold[t])}"
    if tree.leaf_model is LeafModel.LABEL:
        counts = "/".join(format_count(n) for n in tree.value[t])
        return f"[{t}] class {class_names[tree.label[t]]}\n{counts}"
    if tree.leaf_model is LeafModel.VALUE:
        return f"[{t}] value {format_number(tree.intercept[t])}\n{format_count(tree.value[t, 0])}"
    if tree.leaf_model is LeafModel.LINEAR_VALUE:
        value = linear_text(tree.weights[t], feature_names, float(tree.intercept[t]))
        return f"[{t}] value\n{value}\n{format_count(tree.value[t, 0])}"
    score = linear_text(tree.weights[t], feature_names, float(tree.intercept[t]))
    head = f"P({class_names[1]}) = sigmoid(...)" if tree.probabilistic else "score"
    return f"[{t}] {head}\n{score}"


#: Longest line of a node's box, in characters (a long hyperplane wraps onto several lines).
LABEL_WIDTH = 40


def _wrapped_label(tree, t, feature_names, class_names):
    import textwrap

    lines = []
    for line in _node_label(tree, t, feature_names, class_names).split("\n"):
        lines += textwrap.wrap(line, LABEL_WIDTH, break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(lines)


def tree_layout(tree: Tree, labels) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Box centres ``(x, y)`` and the extent ``(width, height)`` of a drawing of ``tree`` in character and
    line units, with no two boxes overlapping.

    Every subtree gets a horizontal span as wide as its own box or as its two
    subtrees side by side, whichever is wider; a node is centred over its
    span, so the spans (and boxes) of nodes at one depth are disjoint. A depth
    is as tall as its tallest box.
    """
    box_w = np.array([max(len(line) for line in text.split("\n")) + 3.0 for text in labels])
    box_h = np.array([text.count("\n") + 1 + 1.2 for text in labels])
    span = box_w.copy()
    for t in range(tree.n_nodes - 1, -1, -1):           # children have larger ids
        if not tree.is_leaf[t]:
            span[t] = max(box_w[t], span[tree.children_left[t]] + span[tree.children_right[t]])
    x = np.zeros(tree.n_nodes)
    left_edge = np.zeros(tree.n_nodes)
    for t in range(tree.n_nodes):                        # parents before children
        x[t] = left_edge[t] + span[t] / 2
        if not tree.is_leaf[t]:
            a, b = tree.children_left[t], tree.children_right[t]
            start = left_edge[t] + (span[t] - span[a] - span[b]) / 2
            left_edge[a], left_edge[b] = start, start + span[a]
    depth = tree.node_depth
    level_h = np.zeros(depth.max() + 1)
    np.maximum.at(level_h, depth, box_h)
    top = np.concatenate([[0.0], np.cumsum(level_h + 1.0)])
    y = -(top[depth] + level_h[depth] / 2)
    return x, y, float(span[0]), float(top[-1])


def plot_tree(tree: Tree, feature_names, class_names, ax=None, fontsize=8):
    """Draw a :class:`~optitrees.trees.Tree`: each node's rule or leaf model, left branches on the left
    (a point goes left when the node's rule holds). Node ids are shown in brackets; long hyperplanes wrap,
    and :func:`tree_layout` places the boxes so that none overlaps another."""
    labels = [_wrapped_label(tree, t, feature_names, class_names) for t in range(tree.n_nodes)]
    x, y, width, height = tree_layout(tree, labels)
    char_in, line_in = 0.62 * fontsize / 72, 1.25 * fontsize / 72       # a character's width, a line's height
    if ax is None:                       # axes filling the figure: one data unit is one character / line
        ax = _pyplot().figure(figsize=(max(3.0, width * char_in + 0.2),
                                       max(1.5, height * line_in + 0.2))).add_axes((0.01, 0.01, 0.98, 0.98))
    for t in range(tree.n_nodes):
        if not tree.is_leaf[t]:
            for child, text in ((tree.children_left[t], "yes"), (tree.children_right[t], "no")):
                ax.plot([x[t], x[child]], [y[t], y[child]], color="0.6", zorder=1)
                ax.text((x[t] + x[child]) / 2, (y[t] + y[child]) / 2, text, fontsize=fontsize - 1,
                        ha="center", color="0.4")
        ax.text(x[t], y[t], labels[t], ha="center", va="center", fontsize=fontsize, zorder=2,
                bbox=dict(boxstyle="round", fc="#e8f0fb" if tree.is_leaf[t] else "white", ec="0.5"))
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0)
    ax.axis("off")
    return ax


def plot_score_card(card: ScoreCard, feature_names, class_names, ax=None):
    """The card's rules and points as a table above its risk curve (total score -> probability of
    ``class_names[1]``), with the totals that predict ``class_names[1]`` marked."""
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4.5))
    rows = card_rows(card, feature_names) + [("intercept", format_number(card.intercept))]
    table = ax.table(cellText=[[r, str(p)] for r, p in rows], colLabels=["rule", "points"], loc="top",
                     cellLoc="left", colWidths=[0.75, 0.25])
    table.scale(1, 1.2)
    totals = card.reachable_totals(RISK_TABLE_ROWS)
    log_odds = (totals + card.intercept) / card.multiplier
    p = expit(log_odds)
    positive = log_odds > 0
    ax.plot(totals, p, color="0.5", zorder=1)
    ax.scatter(totals[~positive], p[~positive], label=f"predicts {class_names[0]}", zorder=2)
    ax.scatter(totals[positive], p[positive], label=f"predicts {class_names[1]}", zorder=2)
    ax.set_xlabel("total score")
    ax.set_ylabel(f"P({class_names[1]})")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right")
    return ax


def plot_feature_influence(influence, ax=None):
    """Heat map of the feature influence per node (seed 002, Figure 3.5), a DataFrame nodes x features
    such as :meth:`~optitrees.estimators.LossOptimalTreeClassifier.feature_influence` returns."""
    values = np.asarray(influence, dtype=float)
    ax = _axes(ax, (max(4.0, 0.5 * values.shape[1] + 2), 0.6 * values.shape[0] + 1.5))
    top = np.abs(values).max(initial=0.0) or 1.0
    image = ax.imshow(values, cmap="RdBu_r", vmin=-top, vmax=top, aspect="auto")
    ax.set_yticks(range(values.shape[0]), [f"node {t}" for t in influence.index])
    ax.set_xticks(range(values.shape[1]), list(influence.columns), rotation=60, ha="right")
    ax.figure.colorbar(image, ax=ax, label="w * std")
    return ax


def plot_solve_trace(result, ax=None):
    """Incumbent and best bound over the solve's time, from ``SolverResult.trace``."""
    ax = _axes(ax, (6, 3.5))
    trace = [(t, inc, bd) for t, inc, bd in result.trace]
    if trace:
        t = np.array([p[0] for p in trace])
        inc = np.array([np.nan if p[1] is None else p[1] for p in trace])
        bound = np.array([np.nan if p[2] is None else p[2] for p in trace])
        ax.step(t, inc, where="post", label="incumbent")
        ax.step(t, bound, where="post", label="best bound")
    ax.set_xlabel("seconds")
    ax.set_ylabel("objective")
    ax.set_title(f"{result.solver}: {result.status}")
    ax.legend()
    return ax
