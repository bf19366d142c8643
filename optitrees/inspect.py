"""Text and dict/JSON views of fitted trees (they read the tree object only)."""

from __future__ import annotations

import numpy as np

__all__ = ["export_text", "tree_to_dict", "hyperplane_text"]


def hyperplane_text(weights, intercept, feature_names, decimals=3) -> str:
    """``0.53 * radius - 1.2 * texture + 0.31`` with zero weights left out."""
    terms = []
    for w, name in zip(weights, feature_names):
        if round(w, decimals) == 0:
            continue
        sign = "-" if w < 0 else "+"
        terms.append(f"{sign} {abs(w):.{decimals}f} * {name}")
    terms.append(f"{'-' if intercept < 0 else '+'} {abs(intercept):.{decimals}f}")
    text = " ".join(terms)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def export_text(tree, feature_names, classes, decimals=3) -> str:
    """The tree as indented text, in the style of ``sklearn.tree.export_text``.

    Inner nodes show their split ``w x + b <= m`` (``m`` the split margin, see
    :class:`~optitrees.tree.ObliqueTree`); last-layer nodes show the logistic
    model ``P(classes[1]) = sigmoid(w x + b)`` and the class it predicts where
    ``w x + b`` is positive or negative.
    """
    lines = []
    margin = f"{tree.split_margin:.{decimals}g}"

    def visit(t, level):
        pad = "|   " * level
        w, b = tree.weights[t - 1], tree.intercepts[t - 1]
        plane = hyperplane_text(w, b, feature_names, decimals)
        if level < tree.depth - 1:
            lines.append(f"{pad}|--- node {t}: {plane} <= {margin}")
            visit(2 * t, level + 1)
            lines.append(f"{pad}|--- node {t}: {plane} > {margin}")
            visit(2 * t + 1, level + 1)
        else:
            lines.append(f"{pad}|--- node {t}: P({classes[1]}) = sigmoid({plane})")
            lines.append(f"{pad}|   |--- class: {classes[1]} if positive, else {classes[0]}")

    visit(1, 0)
    return "\n".join(lines)


def tree_to_dict(tree, feature_names, classes) -> dict:
    """JSON-serializable description: one entry per node with its sparse hyperplane."""
    nodes = []
    for t in tree.nodes:
        w = tree.weights[t - 1]
        layer = int(np.floor(np.log2(t))) + 1
        entry = {
            "node": int(t), "layer": layer,
            "weights": {str(feature_names[j]): float(w[j]) for j in np.flatnonzero(w)},
            "intercept": float(tree.intercepts[t - 1]),
        }
        if layer < tree.depth:
            entry.update(left=int(2 * t), right=int(2 * t + 1), split_margin=float(tree.split_margin))
        else:
            entry.update(positive_class=_jsonable(classes[1]), negative_class=_jsonable(classes[0]))
        nodes.append(entry)
    return {"model": "oblique_logistic_tree", "depth": tree.depth, "classes": [_jsonable(c) for c in classes],
            "nodes": nodes}


def _jsonable(v):
    return v.item() if hasattr(v, "item") else v
