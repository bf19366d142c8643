"""Text of trees and score cards; every number is printed as the shortest text of the model's own float."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..readable import format_count, format_number
from ..rule_set import RuleSet
from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree

#: rows of a printed risk table at most (centred where the class changes; the totals beyond them in two lines)
RISK_TABLE_ROWS = 1001

__all__ = ["RISK_TABLE_ROWS", "linear_text", "tree_text", "one_vs_rest_text", "card_text", "card_rows", "rule_set_text"]


def linear_text(weights, feature_names, constant=None) -> str:
    """``0.53 * radius - 1.2 * texture + 0.31``: every nonzero weight, then the constant (if given).

    A lone unit weight reads as the feature name. Only exact zeros are left out.
    """
    terms = []
    nz = np.flatnonzero(weights)
    if nz.size == 1 and weights[nz[0]] == 1.0 and constant is None:
        return str(feature_names[nz[0]])
    for j in nz:
        w = float(weights[j])
        terms.append(("-" if w < 0 else "+", f"{format_number(abs(w))} * {feature_names[j]}"))
    if constant is not None:
        terms.append(("-" if constant < 0 else "+", format_number(abs(constant))))
    if not terms:
        return "0"
    text = " ".join(f"{sign} {body}" for sign, body in terms)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def tree_text(tree: Tree, feature_names, class_names, scores_only: bool = False) -> str:
    """A :class:`~optitrees.trees.Tree` as indented text, in the style of ``sklearn.tree.export_text``.

    Inner nodes read ``lhs <= t`` (left branch) / ``lhs >  t`` (right branch)
    with ``lhs`` a feature name, or, for an oblique split, a name ``h1``, ``h2``
    ... whose weighted sum of features is written once, on the left branch's
    line (``h1 <= t    where h1 = 0.5 * x0 - 0.25 * x1``). Label leaves read
    ``class: <label>`` with their training counts; value leaves (regression)
    ``value: <number>`` with their training samples, linear value leaves
    ``value = <linear expression>`` with theirs; a linear leaf writes its
    score in full (``score = ...``), then the rule on the next line:
    ``class: <class 1> if score > 0, else <class 0>``, preceded by
    ``P(<class 1>) = sigmoid(score);`` for logistic leaves. With
    ``scores_only`` a linear leaf writes its score alone (the trees of a
    one-vs-rest model, :func:`one_vs_rest_text`). The text is built without recursion; each line is indented by
    its depth, so its length is at most the nodes times (4 x depth + a line), the depth of a loaded tree bounded by
    :attr:`optitrees.persistence.Limits.tree_depth`.
    """
    lines = []
    planes = []
    stack = [(0, 0)]                    # (node, level) to print, or (line, None): no recursion at any depth
    while stack:
        t, level = stack.pop()
        if level is None:
            lines.append(t)
            continue
        pad = "|   " * level
        if tree.is_leaf[t]:
            lines.extend(_leaf_lines(tree, t, pad, feature_names, class_names, scores_only))
            continue
        thr = format_number(tree.threshold[t])
        if np.count_nonzero(tree.weights[t]) == 1 and tree.weights[t].max() == 1.0:
            lhs, where = linear_text(tree.weights[t], feature_names), ""
        else:
            planes.append(t)
            lhs = f"h{len(planes)}"
            where = f"    where {lhs} = {linear_text(tree.weights[t], feature_names)}"
        lines.append(f"{pad}|--- {lhs} <= {thr}{where}")
        stack += [(tree.children_right[t], level + 1), (f"{pad}|--- {lhs} >  {thr}", None),
                  (tree.children_left[t], level + 1)]
    return "\n".join(lines)


def _leaf_lines(tree: Tree, t: int, pad: str, feature_names, class_names, scores_only: bool) -> list[str]:
    """The lines of leaf ``t`` (see :func:`tree_text`)."""
    if tree.leaf_model is LeafModel.LABEL:
        counts = ", ".join(f"{c} {format_count(n)}" for c, n in zip(class_names, tree.value[t]))
        return [f"{pad}|--- class: {class_names[tree.label[t]]}  (training counts: {counts})"]
    if tree.leaf_model is LeafModel.VALUE:
        return [f"{pad}|--- value: {format_number(tree.intercept[t])}  "
                f"(training samples: {format_count(tree.value[t, 0])})"]
    if tree.leaf_model is LeafModel.LINEAR_VALUE:
        value = linear_text(tree.weights[t], feature_names, float(tree.intercept[t]))
        return [f"{pad}|--- value = {value}  (training samples: {format_count(tree.value[t, 0])})"]
    lines = [f"{pad}|--- score = {linear_text(tree.weights[t], feature_names, float(tree.intercept[t]))}"]
    if not scores_only:
        prob = f"P({class_names[1]}) = sigmoid(score); " if tree.probabilistic else ""
        lines.append(f"{pad}|   |--- {prob}class: {class_names[1]} if score > 0, else {class_names[0]}")
    return lines


def card_rows(card: ScoreCard, feature_names):
    """``(rule text, points)`` of every rule."""
    return [(card.rule_text(k, feature_names), int(card.points[k])) for k in range(card.n_rules)]


def card_text(card: ScoreCard, feature_names, class_names, digits: int = 4) -> str:
    """The card (rules and points, intercept, the multiplier when it is not 1), then its risk table: every
    reachable total score, its probability of ``class_names[1]``, ``sigmoid((score + intercept) / multiplier)``
    (``digits`` significant digits), and the class it predicts. Beyond :data:`RISK_TABLE_ROWS` totals, the table
    keeps those nearest the change of class and says the class of the others in one line each side
    (``every total from -40000 to -502: class no``), so the text stays as long as the card, whatever its
    points."""
    rows = card_rows(card, feature_names)
    width = max([len(r) for r, _ in rows] + [len("intercept")])
    lines = [f"{'rule':<{width}}  points"]
    lines += [f"{r:<{width}}  {p:+d}" for r, p in rows]
    lines.append(f"{'intercept':<{width}}  {format_number(card.intercept)}")
    if card.multiplier != 1.0:
        lines.append(f"{'multiplier':<{width}}  {format_number(card.multiplier)}")
    lines.append("")
    totals = card.reachable_totals(RISK_TABLE_ROWS)
    log_odds = (totals + card.intercept) / card.multiplier
    head = f"P({class_names[1]})"
    width = max(len(head), digits + 6)
    lines.append(f"score  {head:<{width}}  class")
    low, high = card.total_range()
    if totals[0] > low:
        lines.append(f"every total from {low} to {totals[0] - 1}: class {class_names[int(log_odds[0] > 0)]}")
    for t, lo, p in zip(totals, log_odds, expit(log_odds)):
        lines.append(f"{t:>5d}  {p:<{width}.{digits}g}  {class_names[1] if lo > 0 else class_names[0]}")
    if totals[-1] < high:
        lines.append(f"every total from {totals[-1] + 1} to {high}: class {class_names[int(log_odds[-1] > 0)]}")
    return "\n".join(lines)


def rule_set_text(rule_set: RuleSet, feature_names, class_names) -> str:
    """A :class:`~optitrees.rule_set.RuleSet`: the combination rule of eq. (2), then each rule and when it is trusted.

    ``rule m: IF <cond> AND <cond> THEN <class> (ELSE <class>)`` followed by
    ``trusted if <w . x + b> > 0``; conditions read ``name > t`` or ``name <= t``.
    """
    neg, pos = class_names[0], class_names[1]
    cw, iw = format_number(rule_set.correct_weight), format_number(rule_set.incorrect_weight)
    lines = [f"P({pos}) = sum(weight * vote) / sum(weight) over the {rule_set.n_rules} rules; "
             f"vote = 1 if the rule says {pos}, else 0; weight = {cw} if the rule is trusted, else {iw}",
             f"class: {pos} if P({pos}) > 0.5, else {neg}"]
    for m, rule in enumerate(rule_set.rules, start=1):
        cond = " AND ".join(rule.conditions(feature_names)) or "true"
        lines.append(f"rule {m}: IF {cond} THEN {class_names[rule.then]} (ELSE {class_names[1 - rule.then]})")
        trust = linear_text(rule_set.trust_weights[m - 1], feature_names, float(rule_set.trust_intercept[m - 1]))
        lines.append(f"    trusted if {trust} > 0")
    return "\n".join(lines)


def one_vs_rest_text(model, feature_names, class_names) -> str:
    """A :class:`~optitrees.trees.OneVsRestTrees` as text: the rule, then each class's tree with score leaves.

    The first line reads ``prediction: the first class with the largest score
    (classes: a, b, c)``; then, per class, ``score of class <label>:`` and its
    tree (:func:`tree_text` with ``scores_only``).
    """
    lines = ["prediction: the first class with the largest score (classes: "
             + ", ".join(str(c) for c in class_names) + ")"]
    for label, tree in zip(class_names, model.trees):
        lines.append(f"score of class {label}:")
        lines.append(tree_text(tree, feature_names, ["rest", label], scores_only=True))
    if model.probabilistic:
        lines.append("P(class) = sigmoid(its score), divided by the sum of sigmoid(score) over the classes")
    return "\n".join(lines)
