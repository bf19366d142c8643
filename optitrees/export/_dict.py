"""JSON-ready descriptions of trees and score cards, holding the models' own numbers."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..rule_set import RuleSet
from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree
from ._text import RISK_TABLE_ROWS

__all__ = ["tree_dict", "one_vs_rest_dict", "card_dict", "rule_set_dict"]


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def _weights(row, feature_names):
    return {str(feature_names[j]): float(row[j]) for j in np.flatnonzero(row)}


def tree_dict(tree: Tree, feature_names, class_names) -> dict:
    """One entry per node.

    Inner nodes: ``weights`` (nonzero only), ``threshold`` (a point goes
    ``left`` when ``weights . x <= threshold``, else ``right``); in
    linear-model trees also ``node_intercept``, the offset of the node's own
    classifier (its training loss and path confidence, not its routing).
    Label leaves: ``class`` and training ``counts``. Value leaves
    (regression): ``value`` and training ``samples``; linear value leaves,
    ``value: {weights, intercept}`` (the leaf predicts ``weights . x + intercept``). Linear leaves:
    ``weights``, ``intercept``, and ``positive_class`` when
    ``weights . x + intercept > 0`` (``probability: "sigmoid"`` for logistic leaves).
    """
    classes = [_plain(c) for c in class_names]
    nodes = []
    for t in range(tree.n_nodes):
        entry = {"id": t}
        if not tree.is_leaf[t]:
            entry.update(weights=_weights(tree.weights[t], feature_names), threshold=float(tree.threshold[t]),
                         left=int(tree.children_left[t]), right=int(tree.children_right[t]))
            if tree.leaf_model is LeafModel.LINEAR:
                entry["node_intercept"] = float(tree.intercept[t])
        elif tree.leaf_model is LeafModel.VALUE:
            entry.update(value=float(tree.intercept[t]), samples=float(tree.value[t, 0]))
        elif tree.leaf_model is LeafModel.LINEAR_VALUE:
            entry.update(value={"weights": _weights(tree.weights[t], feature_names),
                                "intercept": float(tree.intercept[t])}, samples=float(tree.value[t, 0]))
        elif tree.leaf_model is LeafModel.LABEL:
            entry.update({"class": classes[tree.label[t]],
                          "counts": {str(c): (int(round(n)) if abs(n - round(n)) < 1e-9 else float(n))
                                     for c, n in zip(classes, tree.value[t])}})
        else:
            entry.update(weights=_weights(tree.weights[t], feature_names), intercept=float(tree.intercept[t]),
                         positive_class=classes[1], negative_class=classes[0])
            if tree.probabilistic:
                entry["probability"] = "sigmoid"
        nodes.append(entry)
    return {"model": "tree", "leaf_model": tree.leaf_model.value, "root": 0, "classes": classes,
            "max_depth": tree.max_depth, "nodes": nodes}


def one_vs_rest_dict(model, feature_names, class_names) -> dict:
    """One :func:`tree_dict` per class (its classes ``["rest", label]``); the prediction is the first class whose
    tree's leaf gives the largest ``weights . x + intercept``."""
    classes = [_plain(c) for c in class_names]
    return {"model": "one_vs_rest", "prediction": "argmax of the scores", "classes": classes,
            "probability": "normalized sigmoid" if model.probabilistic else None,
            "trees": [tree_dict(tree, feature_names, ["rest", label]) for label, tree in zip(class_names, model.trees)]}


def card_dict(card: ScoreCard, feature_names, class_names) -> dict:
    """Rules (feature, kind, threshold, direction, points), intercept, multiplier (log-odds are
    ``(total + intercept) / multiplier``) and the risk table with the predicted class (at most
    :data:`~optitrees.export._text.RISK_TABLE_ROWS` totals; ``risk_beyond``: the ranges of totals beyond them and
    their class)."""
    classes = [_plain(c) for c in class_names]
    totals = card.reachable_totals(RISK_TABLE_ROWS)
    log_odds = (totals + card.intercept) / card.multiplier
    low, high = card.total_range()
    beyond = ([{"from": low, "to": int(totals[0]) - 1, "class": classes[int(log_odds[0] > 0)]}]
              if totals[0] > low else []) + \
             ([{"from": int(totals[-1]) + 1, "to": high, "class": classes[int(log_odds[-1] > 0)]}]
              if totals[-1] < high else [])
    return {"model": "risk_score", "positive_class": classes[1], "negative_class": classes[0],
            "rules": [{"rule": card.rule_text(k, feature_names), "feature": str(feature_names[card.features[k]]),
                       "kind": "per_unit" if card.per_unit[k] else "threshold",
                       "threshold": float(card.thresholds[k]), "greater_or_equal": bool(card.greater[k]),
                       "points": int(card.points[k])} for k in range(card.n_rules)],
            "intercept": card.intercept, "multiplier": card.multiplier,
            "risk": [{"score": int(t), "probability": float(p), "class": classes[1] if lo > 0 else classes[0]}
                     for t, lo, p in zip(totals, log_odds, expit(log_odds))], "risk_beyond": beyond}


def rule_set_dict(rule_set: RuleSet, feature_names, class_names) -> dict:
    """Rules (conditions ``{feature, op, value}`` with op ``">"`` or ``"<="``, ``then``, ``else``, and the
    correctness model ``trust``: trusted when ``weights . x + intercept > 0``) and the weights of eq. (2)."""
    classes = [_plain(c) for c in class_names]
    rules = []
    for m, rule in enumerate(rule_set.rules):
        conditions = [{"feature": str(feature_names[j]), "op": op, "value": float(v)} for j, op, v in rule.tests()]
        rules.append({"conditions": conditions, "then": classes[rule.then], "else": classes[1 - rule.then],
                      "trust": {"weights": _weights(rule_set.trust_weights[m], feature_names),
                                "intercept": float(rule_set.trust_intercept[m])}})
    return {"model": "rule_set", "positive_class": classes[1], "negative_class": classes[0],
            "correct_weight": rule_set.correct_weight, "incorrect_weight": rule_set.incorrect_weight,
            "rules": rules}
