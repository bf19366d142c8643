"""An independent reader of printed models: it evaluates what a person reads, not the fitted object.

Text formats read here (see :mod:`optitrees.export`):

* trees: ``|--- <lhs> <= <number>`` / ``|--- <lhs> >  <number>`` at inner nodes, where ``<lhs>`` is a
  feature name or a hyperplane's name ``h<k>``, defined on its ``<=`` line by
  ``    where h<k> = c * name + c * name - ...``; leaves ``|--- class: <label> ...`` or a linear
  model ``|--- score = <expr>`` followed by ``|   |--- [P(<label>) = sigmoid(score); ]class: <pos> if score > 0,
  else <neg>``;
* score cards: rows ``<rule>  <points>`` with rules ``name >= t``, ``name < t``, ``name = v``,
  a row ``intercept  <number>``, then ``score  P(...)  class`` rows.
"""

from __future__ import annotations

import re

import numpy as np

_TERM = re.compile(r"^(?P<coef>[-+0-9.eE]+) \* (?P<name>.+)$")


def linear_expression(text, columns):
    """``(weights dict, constant)`` of ``c * name + c * name - c`` (a bare name has coefficient 1)."""
    text = text.strip()
    sign = 1.0
    if text.startswith("-"):
        sign, text = -1.0, text[1:].lstrip()
    parts = re.split(r" ([+-]) ", text)
    tokens = [(sign, parts[0])] + [(1.0 if parts[k] == "+" else -1.0, parts[k + 1]) for k in range(1, len(parts), 2)]
    weights, constant = {}, 0.0
    for s, tok in tokens:
        m = _TERM.match(tok)
        if m and m.group("name") in columns:
            weights[m.group("name")] = weights.get(m.group("name"), 0.0) + s * float(m.group("coef"))
        elif tok in columns:
            weights[tok] = weights.get(tok, 0.0) + s
        else:
            constant += s * float(tok)
    return weights, constant


def _evaluate(expr, frame):
    """The printed sum as a reader adds it: the terms from the left, then the constant."""
    weights, constant = expr
    total = None
    for name, w in weights.items():
        term = w * frame[name].to_numpy(float)
        total = term if total is None else total + term
    return (np.zeros(len(frame)) if total is None else total) + constant


def tree_text_predictions(text, frame):
    """Class label (as printed) of every row of ``frame`` (a DataFrame with the printed feature names)."""
    columns = set(frame.columns)
    lines = text.splitlines()
    out = np.empty(len(frame), dtype=object)
    planes = {}

    def level(line):
        return line.index("|---") // 4

    def walk(start, rows):
        line = lines[start]
        depth = level(line)
        body = line[line.index("|---") + 5:]
        if body.startswith("class: "):
            out[rows] = body[len("class: "):].split("  ")[0].strip()
            return
        if body.startswith("value: "):
            out[rows] = float(body[len("value: "):].split("  ")[0])
            return
        if body.startswith("value = "):                # a linear value leaf (regression)
            expr = linear_expression(body[len("value = "):].split("  (training")[0], columns)
            out[rows] = _evaluate(expr, frame.iloc[rows])
            return
        if body.startswith("score = "):
            expr = linear_expression(body.split(" = ", 1)[1], columns)
            if start + 1 == len(lines) or "if score > 0" not in lines[start + 1]:     # a score leaf alone
                out[rows] = _evaluate(expr, frame.iloc[rows])
                return
            decision = lines[start + 1][lines[start + 1].index("|---") + 5:]
            m = re.match(r"(?:P\(.+\) = sigmoid\(score\); )?class: (.+) if score > 0, else (.+)$", decision)
            score = _evaluate(expr, frame.iloc[rows])
            out[rows] = np.where(score > 0, m.group(1), m.group(2))
            return
        lhs, thr, name, definition = re.match(r"(.+?) <= (\S+)(?:    where (h\d+) = (.+))?$", body).groups()
        if name is not None:
            assert lhs == name, body
            planes[name] = linear_expression(definition, columns)
        expr = planes[lhs] if lhs in planes else linear_expression(lhs, columns)
        values = _evaluate(expr, frame.iloc[rows])
        left = rows[values <= float(thr)]
        right = rows[values > float(thr)]
        # the right branch is the next line at the same level reading "lhs >  thr"
        k = start + 1
        while level(lines[k]) != depth:
            k += 1
        assert re.match(r".+ >  \S+$", lines[k][lines[k].index("|---") + 5:]), lines[k]
        walk(start + 1, left)
        walk(k + 1, right)

    walk(0, np.arange(len(frame)))
    return out


def one_vs_rest_text_predictions(text, frame):
    """Class label (as printed) of every row: each ``score of class <label>:`` section's tree gives its score,
    the first class with the largest score wins."""
    lines = text.splitlines()
    assert lines[0].startswith("prediction: the first class with the largest score"), lines[0]
    heads = [k for k, line in enumerate(lines) if line.startswith("score of class ")]
    labels, scores = [], []
    for h, end in zip(heads, heads[1:] + [len(lines)]):
        labels.append(lines[h][len("score of class "):-1])
        body = [line for line in lines[h + 1:end] if line.startswith("|")]
        scores.append(tree_text_predictions("\n".join(body), frame).astype(float))
    return np.array(labels, dtype=object)[np.argmax(np.column_stack(scores), axis=1)]


def tree_dict_predictions(d, frame, scores=None):
    """Class labels from a tree's ``to_dict()`` description (``scores=True``: the linear leaves' scores)."""
    nodes = {n["id"]: n for n in d["nodes"]}
    out = np.empty(len(frame), dtype=object)

    def walk(i, rows):
        n = nodes[i]
        if "class" in n:
            out[rows] = n["class"]
            return
        if "value" in n:                        # a regression leaf: a number, or a linear model
            value = n["value"]
            out[rows] = _evaluate((value["weights"], value["intercept"]), frame.iloc[rows]) \
                if isinstance(value, dict) else value
            return
        values = _evaluate((n["weights"], n.get("intercept", 0.0)), frame.iloc[rows])
        if "threshold" not in n:                # a linear leaf
            out[rows] = np.where(values > 0, n["positive_class"], n["negative_class"]) if scores is None else values
            return
        walk(n["left"], rows[values <= n["threshold"]])
        walk(n["right"], rows[values > n["threshold"]])

    walk(d["root"], np.arange(len(frame)))
    return out


def one_vs_rest_dict_predictions(d, frame):
    """Class labels from a one-vs-rest ``to_dict()``: the first class whose tree scores highest."""
    assert d["model"] == "one_vs_rest"
    scores = np.column_stack([tree_dict_predictions(t, frame, scores=True).astype(float) for t in d["trees"]])
    return np.array(d["classes"], dtype=object)[np.argmax(scores, axis=1)]


def _rule_mask(rule, frame):
    if rule.startswith("each unit of "):
        return frame[rule[len("each unit of "):]].to_numpy(float)
    m = re.match(r"(.+) (>=|<|=) (\S+)$", rule)
    name, op, value = m.groups()
    x = frame[name].to_numpy(float)
    v = float(value)
    return {">=": x >= v, "<": x < v, "=": x == v}[op]


def card_text_predictions(text, frame):
    """``(total points + intercept, class label from the risk table)`` per row, from a card's text."""
    lines = text.splitlines()
    assert lines[0].split()[0] == "rule"
    total = np.zeros(len(frame))
    k = 1
    while not lines[k].startswith("intercept"):
        rule, points = lines[k].rsplit(None, 1)
        total += int(points) * _rule_mask(rule.strip(), frame)
        k += 1
    intercept = float(lines[k].split()[-1])
    multiplier = 1.0
    if lines[k + 1].startswith("multiplier"):
        k += 1
        multiplier = float(lines[k].split()[-1])
    table, ranges = {}, []
    for line in lines[k + 1:]:
        parts = line.split()
        beyond = re.fullmatch(r"every total from (-?\d+) to (-?\d+): class (.+)", line)
        if beyond:
            ranges.append((int(beyond.group(1)), int(beyond.group(2)), beyond.group(3)))
        elif len(parts) >= 3 and re.fullmatch(r"-?\d+", parts[0]):
            table[int(parts[0])] = parts[2]

    def label(t):
        if t in table:
            return table[t]
        return next(c for low, high, c in ranges if low <= t <= high)

    labels = np.array([label(int(t)) for t in total], dtype=object)
    return (total + intercept) / multiplier, labels


def card_dict_predictions(d, frame):
    """Class labels from a card's ``to_dict()`` description."""
    total = np.zeros(len(frame))
    for r in d["rules"]:
        x = frame[r["feature"]].to_numpy(float)
        if r.get("kind") == "per_unit":
            total += r["points"] * x
            continue
        sat = x >= r["threshold"] if r["greater_or_equal"] else x < r["threshold"]
        total += r["points"] * sat
    return np.where(total + d["intercept"] > 0, str(d["positive_class"]), str(d["negative_class"]))


_RULE_LINE = re.compile(r"^rule \d+: IF (?P<cond>.+) THEN (?P<then>.+) \(ELSE (?P<else>.+)\)$")
_WEIGHTS_LINE = re.compile(r"weight = (?P<cw>\S+) if the rule is trusted, else (?P<iw>\S+)$")


def _condition_mask(cond, frame):
    if cond == "true":
        return np.ones(len(frame), bool)
    mask = np.ones(len(frame), bool)
    for part in cond.split(" AND "):
        name, op, value = re.match(r"(.+) (>|<=) (\S+)$", part).groups()
        x = frame[name].to_numpy(float)
        mask &= x > float(value) if op == ">" else x <= float(value)
    return mask


def rule_set_text_predictions(text, frame):
    """``(P(positive), class label)`` per row from a rule set's text (seed 004's eq. 2 as printed)."""
    lines = text.splitlines()
    weights = _WEIGHTS_LINE.search(lines[0])
    cw, iw = float(weights["cw"]), float(weights["iw"])
    pos, neg = re.match(r"class: (.+) if P\(.+\) > 0.5, else (.+)$", lines[1]).groups()
    columns = set(frame.columns)
    num, den = np.zeros(len(frame)), np.zeros(len(frame))
    for k in range(2, len(lines), 2):
        m = _RULE_LINE.match(lines[k])
        fires = _condition_mask(m["cond"], frame)
        says = np.where(fires, m["then"], m["else"])
        trust = re.match(r"^    trusted if (.+) > 0$", lines[k + 1]).group(1)
        w = np.where(_evaluate(linear_expression(trust, columns), frame) > 0, cw, iw)
        num += w * (says == pos)
        den += w
    p = num / den
    return p, np.where(p > 0.5, pos, neg)


def rule_set_dict_predictions(d, frame):
    """Class labels from a rule set's ``to_dict()`` description."""
    num, den = np.zeros(len(frame)), np.zeros(len(frame))
    for r in d["rules"]:
        fires = np.ones(len(frame), bool)
        for c in r["conditions"]:
            x = frame[c["feature"]].to_numpy(float)
            fires &= x > c["value"] if c["op"] == ">" else x <= c["value"]
        score = np.full(len(frame), r["trust"]["intercept"])
        for name, w in r["trust"]["weights"].items():
            score = score + w * frame[name].to_numpy(float)
        w = np.where(score > 0, d["correct_weight"], d["incorrect_weight"])
        num += w * (np.where(fires, str(r["then"]), str(r["else"])) == str(d["positive_class"]))
        den += w
    return np.where(num / den > 0.5, str(d["positive_class"]), str(d["negative_class"]))
