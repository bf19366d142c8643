"""Text and dict/JSON views of fitted trees (they read the tree object only)."""

from __future__ import annotations

import numpy as np

__all__ = ["export_text", "tree_to_dict", "hyperplane_text", "export_label_tree_text", "label_tree_to_dict"]


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


def export_text(tree, feature_names, classes, decimals=3, probabilistic=True) -> str:
    """The tree as indented text, in the style of ``sklearn.tree.export_text``.

    Inner nodes show their split ``w x + b <= m`` (``m`` the split margin, see
    :class:`~optitrees.tree.ObliqueTree`); last-layer nodes show the logistic
    model ``P(classes[1]) = sigmoid(w x + b)`` and the class it predicts where
    ``w x + b`` is positive or negative (``probabilistic=False``: the linear
    classifier only, for hinge and misclassification losses).
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
            if probabilistic:
                lines.append(f"{pad}|--- node {t}: P({classes[1]}) = sigmoid({plane})")
            else:
                lines.append(f"{pad}|--- node {t}: score = {plane}")
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


def _split_text(w, thr, feature_names, decimals):
    nz = np.flatnonzero(w)
    if len(nz) == 1 and np.isclose(w[nz[0]], 1.0):
        return f"{feature_names[nz[0]]}", f"{thr:.{decimals}f}"
    return hyperplane_text(w, 0.0, feature_names, decimals).rsplit(" ", 2)[0], f"{thr:.{decimals}f}"


def export_label_tree_text(tree, feature_names, classes, decimals=3) -> str:
    """A :class:`~optitrees.tree.LabelTree` as indented text (``sklearn.tree.export_text`` style).

    Each used split reads ``lhs < threshold`` (left) / ``lhs >= threshold``
    (right); an unused split is skipped (all its points go right); each leaf
    shows its class and its training class counts.
    """
    lines = []

    def leaf(t, level):
        k = t - tree.leaves[0]
        counts = "" if tree.leaf_counts is None else f"  (training counts {tree.leaf_counts[k].astype(int).tolist()})"
        lines.append(f"{'|   ' * level}|--- class: {classes[tree.leaf_labels[k]]}{counts}")

    def visit(t, level):
        if t >= tree.leaves[0]:
            leaf(t, level)
            return
        if not tree.active[t - 1]:
            visit(2 * t + 1, level)
            return
        lhs, thr = _split_text(tree.weights[t - 1], tree.thresholds[t - 1], feature_names, decimals)
        pad = "|   " * level
        lines.append(f"{pad}|--- {lhs} <  {thr}")
        visit(2 * t, level + 1)
        lines.append(f"{pad}|--- {lhs} >= {thr}")
        visit(2 * t + 1, level + 1)

    visit(1, 0)
    return "\n".join(lines)


def label_tree_to_dict(tree, feature_names, classes) -> dict:
    """JSON-serializable description of a :class:`~optitrees.tree.LabelTree`."""
    nodes = []
    for t in tree.nodes:
        w = tree.weights[t - 1]
        nodes.append({"node": int(t), "active": bool(tree.active[t - 1]),
                      "weights": {str(feature_names[j]): float(w[j]) for j in np.flatnonzero(w)},
                      "threshold": float(tree.thresholds[t - 1]), "left": int(2 * t), "right": int(2 * t + 1),
                      "rule": "right if weights . x >= threshold (unused splits send every point right)"})
    for k, t in enumerate(tree.leaves):
        entry = {"node": int(t), "leaf": True, "class": _jsonable(classes[tree.leaf_labels[k]])}
        if tree.leaf_counts is not None:
            entry["counts"] = {str(_jsonable(c)): int(n) for c, n in zip(classes, tree.leaf_counts[k])}
        nodes.append(entry)
    return {"model": "classification_tree", "depth": tree.depth, "classes": [_jsonable(c) for c in classes],
            "nodes": nodes}
