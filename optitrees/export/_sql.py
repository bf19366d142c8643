"""Models as one SQL expression over a table's feature columns (SQLite, PostgreSQL, DuckDB ...).

Every number is the model's own float in its shortest round-trip text, so a
database computing in double precision reproduces the predictions: a tree is
nested ``CASE WHEN <split> <= t THEN ... ELSE ... END``; a linear leaf,
``CASE WHEN <score> > 0 THEN <class 1> ELSE <class 0> END``; a score card,
its total points plus intercept compared with 0; a rule set, the weighted vote
of eq. (2) compared with 1/2. A missing value (``NULL``) goes where the model
sends ``nan``: right at a hard split (``NULL <= t`` is not true), and in C4.5's
probabilistic form (:func:`gated_tree_sql`) down both branches by the training
shares. Column names are quoted identifiers; class labels are SQL literals.

**Size.** The text is linear in the model: every split and leaf is written once (once per class in C4.5's
form with missing values), a first-largest choice among ``k`` scores is a ``UNION ALL`` of ``k`` rows, and the
text is assembled from an explicit stack, without recursion, at any depth. So a model file of ``s`` bytes gives
SQL of a few times ``s`` characters (a float's text in the file is the float's text in the SQL; the CASE words
around it add about 40 characters a node); ``bench/load_bombs.py`` measures it.

**Columns the database must find.** SQLite reads a double-quoted name that
matches no column as a string literal, silently. Given a ``table`` name, every
column is written qualified (``"patients"."age"``), and an unknown column is an
error in SQLite too (``SELECT <expression> FROM patients``). A feature made by
one-hot encoding (``feature_encoding_``: encoded name -> raw column and
category) is written over the raw column, ``CASE WHEN "colour" = 'red' THEN
1.0 ELSE 0.0 END``, so the SQL runs on the user's raw table. The contextual
trees' network is computed in subqueries whose column names begin with a
prefix no feature name begins with, and the trees are evaluated outside them,
so a feature named like one of the SQL's own names reads the user's column.
"""

from __future__ import annotations

import numpy as np

from ..rule_set import RuleSet
from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree

__all__ = ["number", "literal", "column", "feature_columns", "linear_sql", "tree_sql", "tree_score_sql",
           "one_vs_rest_sql", "gated_tree_sql", "card_sql", "rule_set_sql", "argmax_sql", "policy_choice_sql"]


def number(x) -> str:
    """A float as SQL text that reads back as the same double (``9e999`` for infinity)."""
    x = float(x)
    if np.isnan(x):
        return "NULL"
    if np.isinf(x):
        return "9e999" if x > 0 else "-9e999"
    text = repr(x)
    return f"({text})" if text.startswith("-") else text


def literal(value) -> str:
    """A class label as an SQL literal: numbers as numbers, anything else as a quoted string."""
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return number(value)
    return "'" + str(value).replace("'", "''") + "'"


def column(name, table=None) -> str:
    """A quoted SQL identifier, qualified by the quoted ``table`` when given."""
    quoted = '"' + str(name).replace('"', '""') + '"'
    return quoted if table is None else column(table) + "." + quoted


def feature_columns(names, table=None, encoding=None) -> list[str]:
    """The SQL of each feature: its column (:func:`column`), or, for a one-hot feature of ``encoding``
    (``{name: (raw column, category)}``), 1.0 where the raw column holds the category and 0.0 elsewhere (``NULL``
    included, as ``pandas.get_dummies`` encodes a missing value)."""
    encoding = encoding or {}
    out = []
    for name in names:
        if name in encoding:
            raw, category = encoding[name]
            out.append(f"(CASE WHEN {column(raw, table)} = {literal(category)} THEN 1.0 ELSE 0.0 END)")
        else:
            out.append(column(name, table))
    return out


def linear_sql(weights, columns, constant=None) -> str:
    """``w1 * "a" + w2 * "b" + c``: the nonzero weights in feature order, left to right (as the model sums)."""
    terms = [f"{number(weights[j])} * {columns[j]}" for j in np.flatnonzero(weights)]
    if constant is not None:
        terms.append(number(constant))
    return "(" + " + ".join(terms) + ")" if terms else "0.0"


def _tree_text(tree: Tree, leaf, split) -> str:
    """The text of ``tree`` from the root down: ``leaf(t)`` at a leaf; at a split the three pieces ``split(t)``
    around its left and right subtrees' texts. The pieces are emitted in order from an explicit stack and joined
    once, so the text costs time linear in its length at any depth (no recursion, no copying of the subtrees'
    text at every level)."""
    pieces, stack = [], [0]
    while stack:
        t = stack.pop()
        if isinstance(t, str):
            pieces.append(t)
        elif tree.is_leaf[t]:
            pieces.append(leaf(t))
        else:
            before, between, after = split(t)
            pieces.append(before)
            stack += [after, int(tree.children_right[t]), between, int(tree.children_left[t])]
    return "".join(pieces)


def _nested_case(tree: Tree, columns, leaf_sql) -> str:
    """``CASE WHEN <split> <= t THEN <left> ELSE <right> END`` from the root down, each leaf written by
    ``leaf_sql(t)``."""
    return _tree_text(tree, leaf_sql, lambda t: (
        f"CASE WHEN {linear_sql(tree.weights[t], columns)} <= {number(tree.threshold[t])} THEN ", " ELSE ", " END"))


def tree_sql(tree: Tree, columns, classes) -> str:
    """A :class:`~optitrees.trees.Tree` (axis-aligned or oblique; label, linear or value leaves) as nested CASE."""

    def leaf(t):
        if tree.leaf_model is LeafModel.LABEL:
            return literal(classes[tree.label[t]])
        if tree.leaf_model is LeafModel.VALUE:
            return number(tree.intercept[t])
        if tree.leaf_model is LeafModel.LINEAR_VALUE:
            return linear_sql(tree.weights[t], columns, float(tree.intercept[t]))
        score = linear_sql(tree.weights[t], columns, float(tree.intercept[t]))
        return f"CASE WHEN {score} > 0 THEN {literal(classes[1])} ELSE {literal(classes[0])} END"

    return _nested_case(tree, columns, leaf)


def tree_score_sql(tree: Tree, columns) -> str:
    """The score ``w x + b`` of the linear leaf a row reaches, as nested CASE (a tree with linear leaves)."""
    if tree.leaf_model is not LeafModel.LINEAR:
        raise ValueError("a score needs linear leaves")
    return _nested_case(tree, columns, lambda t: linear_sql(tree.weights[t], columns, float(tree.intercept[t])))


def one_vs_rest_sql(model, columns, classes) -> str:
    """The first class whose tree scores highest (:class:`~optitrees.trees.OneVsRestTrees`)."""
    return argmax_sql([tree_score_sql(tree, columns) for tree in model.trees], classes)


def argmax_sql(scores: list[str], classes) -> str:
    """The class of the first largest score (numpy's ``argmax``), in text linear in the number of classes: one
    row per class (its score, its position, its label) in a ``UNION ALL``, ordered by score, then position."""
    members = [f"SELECT {score} AS s, {k} AS k, {literal(c)} AS c" for k, (score, c) in enumerate(zip(scores, classes))]
    return f"(SELECT c FROM ({' UNION ALL '.join(members)}) ORDER BY s DESC, k LIMIT 1)"


def gated_tree_sql(tree: Tree, columns, classes, leaf_probabilities) -> str:
    """C4.5's prediction with missing values: class ``k`` scores ``S_k(root)``, where at a split ``S_k(t) = g *
    S_k(left) + (1 - g) * S_k(right)`` (``g`` is 1 or 0 for a known value, the split's training share of the left
    branch for ``NULL``) and at a leaf ``S_k = P(k | leaf)``; the prediction is the first largest score. Each node
    is written once per class (text linear in the tree, no recursion), in the order
    :func:`~optitrees.trees._gating.gated_mixture` computes, so the database gives ``predict``'s floats."""
    from ..trees._gating import left_share

    share = left_share(tree)
    feature = tree.feature
    gates = {}
    for t in np.flatnonzero(~tree.is_leaf):
        col, thr = columns[feature[t]], number(tree.threshold[t])
        gates[t] = (f"(CASE WHEN {col} IS NULL THEN {number(share[t])} WHEN {col} <= {thr} THEN 1.0 ELSE 0.0 END)",
                    f"(CASE WHEN {col} IS NULL THEN {number(1.0 - share[t])} WHEN {col} <= {thr} THEN 0.0 ELSE 1.0 "
                    "END)")
    mixture = {t: (f"({left} * ", f" + {right} * ", ")") for t, (left, right) in gates.items()}
    scores = [_tree_text(tree, lambda t, k=k: number(leaf_probabilities[t, k]), mixture.__getitem__)
              for k in range(len(classes))]
    return argmax_sql(scores, classes)


def card_sql(card: ScoreCard, columns, classes) -> str:
    """A score card: ``classes[1]`` where ``(total points + intercept) / multiplier > 0``."""
    terms = []
    for j, thr, greater, points, per_unit in zip(card.features, card.thresholds, card.greater, card.points,
                                                 card.per_unit):
        col = columns[j]
        if per_unit:
            value = col
        else:
            hit, miss = ("1.0", "0.0") if greater else ("0.0", "1.0")
            value = f"(CASE WHEN {col} >= {number(thr)} THEN {hit} ELSE {miss} END)"
        terms.append(f"{value} * {number(points)}")
    total = " + ".join(terms) if terms else "0.0"
    score = f"(({total}) + {number(card.intercept)}) / {number(card.multiplier)}"
    return f"CASE WHEN {score} > 0 THEN {literal(classes[1])} ELSE {literal(classes[0])} END"


def rule_set_sql(rule_set: RuleSet, columns, classes) -> str:
    """A rule set: ``classes[1]`` where the trusted-weighted vote of eq. (2) exceeds 1/2."""
    votes, weights = [], []
    for m, rule in enumerate(rule_set.rules):
        tests = [f"{columns[j]} {op} {number(v)}" for j, op, v in rule.tests()]
        fires = " AND ".join(tests) if tests else "1 = 1"
        # a NULL feature: the test is not true, so the rule does not fire (numpy: nan > t is False)
        output = f"(CASE WHEN {fires} THEN {float(rule.then)!r} ELSE {float(1 - rule.then)!r} END)"
        trust = linear_sql(rule_set.trust_weights[m], columns, float(rule_set.trust_intercept[m]))
        weight = (f"(CASE WHEN {trust} > 0 THEN {number(rule_set.correct_weight)} "
                  f"ELSE {number(rule_set.incorrect_weight)} END)")
        votes.append(f"{weight} * {output}")
        weights.append(weight)
    proba = f"({' + '.join(votes)}) / ({' + '.join(weights)})"
    return f"CASE WHEN {proba} > 0.5 THEN {literal(classes[1])} ELSE {literal(classes[0])} END"


def _alias_prefix(names) -> str:
    """``optitrees_``, lengthened with underscores until no feature name begins with it."""
    prefix = "optitrees_"
    while any(str(n).lower().startswith(prefix) for n in names):
        prefix += "_"
    return prefix


def policy_choice_sql(net, input_mean, input_scale, columns, branches: list[str], names=()) -> str:
    """The contextual tree (seed 002, ch. 5): the policy network's first largest logit picks the branch.

    The network is written layer by layer in nested subqueries (inputs standardized by ``input_mean`` and
    ``input_scale``, ReLU hidden layers, linear logits), so each unit is computed once; it gives the index of
    the chosen tree, and ``CASE <index> WHEN k THEN branches[k] ...`` evaluates tree ``k``'s SQL outside the
    subqueries, against the row's own columns. The subqueries' names begin with a prefix none of the feature
    ``names`` begins with.
    """
    prefix = _alias_prefix(names)

    def alias(kind, k):
        return f"{prefix}{kind}{k}"

    inputs = [f"(({columns[j]} - {number(input_mean[j])}) / {number(input_scale[j])}) AS {alias('z', j)}"
              for j in range(len(columns))]
    query = f"SELECT {', '.join(inputs)}"
    previous = [alias("z", j) for j in range(len(columns))]
    last = len(net.weights) - 1
    for layer, (W, b) in enumerate(zip(net.weights, net.biases)):
        units = []
        unit_names = []
        for u in range(W.shape[1]):
            terms = [f"{previous[i]} * {number(W[i, u])}" for i in range(W.shape[0])]
            pre = f"({' + '.join(terms) if terms else '0.0'}) + {number(b[u])}"
            name = alias("l" if layer == last else f"h{layer}_", u)
            units.append(f"{pre} AS {name}" if layer == last else
                         f"(CASE WHEN {pre} > 0 THEN {pre} ELSE 0.0 END) AS {name}")
            unit_names.append(name)
        query = f"SELECT {', '.join(units)} FROM ({query})"
        previous = unit_names
    whens = []
    for k in range(len(previous) - 1):
        conditions = [f"{previous[k]} > {previous[j]}" for j in range(k)] + \
                     [f"{previous[k]} >= {previous[j]}" for j in range(k + 1, len(previous))]
        whens.append(f"WHEN {' AND '.join(conditions)} THEN {k}")
    choice = f"(SELECT CASE {' '.join(whens)} ELSE {len(previous) - 1} END FROM ({query}))"
    cases = " ".join(f"WHEN {k} THEN {branch}" for k, branch in enumerate(branches))
    return f"(CASE {choice} {cases} END)"
