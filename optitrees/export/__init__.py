"""Text, dict/JSON and figures of fitted trees and score cards.

Each function takes a fitted estimator (its ``tree_`` or ``score_card_``, with
its feature names and classes) or a :class:`~optitrees.trees.Tree` /
:class:`~optitrees.scorecard.ScoreCard` with names given. What is printed is
the model: numbers are the model's own floats in their shortest exact text,
no contributing term is dropped, and thresholds sit strictly between training
values, so evaluating the printed model gives the model's predictions.

>>> from sklearn.datasets import load_iris
>>> from optitrees import OCTClassifier, export
>>> X, y = load_iris(return_X_y=True, as_frame=True)
>>> clf = OCTClassifier(max_depth=1, time_limit=10).fit(X, y)
>>> text = export.export_text(clf)                 # e.g. "|--- petal length (cm) <= 4.45" ...
>>> text.startswith("|--- petal") and "class:" in text
True
"""

from __future__ import annotations

from ..readable import printable
from ..rule_set import RuleSet
from ..scorecard import ScoreCard
from ..trees import OneVsRestTrees, Tree
from . import _plot
from ._dict import card_dict, one_vs_rest_dict, rule_set_dict, tree_dict
from ._sql import card_sql, feature_columns, one_vs_rest_sql, rule_set_sql, tree_sql
from ._text import card_text, linear_text, one_vs_rest_text, rule_set_text, tree_text

__all__ = ["export_text", "export_dict", "export_sql", "plot_tree", "plot_score_card", "plot_feature_influence",
           "plot_solve_trace", "tree_text", "card_text", "tree_dict", "card_dict", "linear_text", "rule_set_text",
           "rule_set_dict"]


def _resolve(model, feature_names, class_names):
    """``(Tree or ScoreCard, feature names, class names)`` of an estimator or a model object."""
    obj = (getattr(model, "tree_", None) or getattr(model, "score_card_", None) or getattr(model, "rule_set_", None)
           or getattr(model, "one_vs_rest_", None) or model)
    if not isinstance(obj, (Tree, ScoreCard, RuleSet, OneVsRestTrees)):
        raise TypeError("expected a fitted optitrees estimator, a Tree, a ScoreCard, a RuleSet or OneVsRestTrees, "
                        f"got {type(model).__name__}")
    if feature_names is None:
        names = getattr(model, "feature_names_in_", None)
        if isinstance(obj, (Tree, OneVsRestTrees)):
            n = obj.n_features
        elif isinstance(obj, RuleSet):
            n = obj.trust_weights.shape[1]
        else:
            n = int(max(obj.features, default=-1)) + 1
        n = getattr(model, "n_features_in_", n)
        feature_names = list(names) if names is not None else [f"x{j}" for j in range(n)]
    if class_names is None:
        classes = getattr(model, "classes_", None)
        k = obj.n_classes if isinstance(obj, (Tree, OneVsRestTrees)) else 2
        class_names = list(classes) if classes is not None else list(range(k))
    return obj, list(feature_names), list(class_names)


def export_text(model, feature_names=None, class_names=None) -> str:
    """The model as text: an indented tree (``sklearn.tree.export_text`` style), a score card with its risk table,
    or a rule set with its correctness models. Feature and class names are written by
    :func:`~optitrees.readable.printable` (a newline or a terminal escape in a name reads as its escape)."""
    obj, names, classes = _resolve(model, feature_names, class_names)
    names, classes = [printable(n) for n in names], [printable(c) for c in classes]
    if isinstance(obj, OneVsRestTrees):
        return one_vs_rest_text(obj, names, classes)
    if isinstance(obj, RuleSet):
        return rule_set_text(obj, names, classes)
    return tree_text(obj, names, classes) if isinstance(obj, Tree) else card_text(obj, names, classes)


def export_dict(model, feature_names=None, class_names=None) -> dict:
    """The model as a JSON-serializable dict (see :func:`tree_dict`, :func:`card_dict` and :func:`rule_set_dict`)."""
    obj, names, classes = _resolve(model, feature_names, class_names)
    if isinstance(obj, OneVsRestTrees):
        return one_vs_rest_dict(obj, names, classes)
    if isinstance(obj, RuleSet):
        return rule_set_dict(obj, names, classes)
    return tree_dict(obj, names, classes) if isinstance(obj, Tree) else card_dict(obj, names, classes)


def export_sql(model, feature_names=None, class_names=None, table=None) -> str:
    """The model's prediction as one SQL expression over columns named by the features (see
    :mod:`optitrees.export._sql`): ``SELECT <expression> AS prediction FROM data`` gives ``predict`` on each row.

    With ``table``, every column is qualified by it (``"data"."age"``), so a column the table lacks is an error
    in every database (SQLite reads an unknown bare ``"age"`` as the string ``'age'``). A model with a
    ``feature_encoding_`` (fitted by ``optitrees fit --one-hot``) is written over the raw columns.

    >>> from sklearn.datasets import load_iris
    >>> from optitrees import TAOClassifier
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> print(export_sql(TAOClassifier(max_depth=1, random_state=0).fit(X, y)))
    CASE WHEN (1.0 * "petal width (cm)") <= 0.8 THEN 0 ELSE 1 END
    """
    obj, names, classes = _resolve(model, feature_names, class_names)
    columns = feature_columns(names, table, getattr(model, "feature_encoding_", None))
    if isinstance(obj, OneVsRestTrees):
        return one_vs_rest_sql(obj, columns, classes)
    if isinstance(obj, RuleSet):
        return rule_set_sql(obj, columns, classes)
    return tree_sql(obj, columns, classes) if isinstance(obj, Tree) else card_sql(obj, columns, classes)


def plot_tree(model, feature_names=None, class_names=None, ax=None, fontsize=8):
    """Draw a tree model (needs matplotlib); returns the axes."""
    obj, names, classes = _resolve(model, feature_names, class_names)
    if not isinstance(obj, Tree):
        other = "plot_score_card for a score card" if isinstance(obj, ScoreCard) else \
            "plot_tree on each of estimators_ for one tree per class" if isinstance(obj, OneVsRestTrees) else \
            "export_text or export_dict for a rule set"
        raise TypeError(f"plot_tree draws trees; use {other}")
    return _plot.plot_tree(obj, names, classes, ax=ax, fontsize=fontsize)


def plot_score_card(model, feature_names=None, class_names=None, ax=None):
    """Draw a score card and its risk curve (needs matplotlib); returns the axes."""
    obj, names, classes = _resolve(model, feature_names, class_names)
    if not isinstance(obj, ScoreCard):
        other = "plot_tree for a tree" if isinstance(obj, (Tree, OneVsRestTrees)) else \
            "export_text or export_dict for a rule set"
        raise TypeError(f"plot_score_card draws score cards; use {other}")
    return _plot.plot_score_card(obj, names, classes, ax=ax)


def plot_feature_influence(model, ax=None):
    """Heat map of a loss-optimal tree's feature influence per node (an estimator or its
    ``feature_influence()`` DataFrame)."""
    influence = model.feature_influence() if hasattr(model, "feature_influence") else model
    return _plot.plot_feature_influence(influence, ax=ax)


def plot_solve_trace(model, ax=None):
    """Incumbent and bound over time of an estimator's solve (or of a ``SolverResult``)."""
    result = getattr(model, "solver_result_", model)
    if not hasattr(result, "trace"):
        raise TypeError(f"plot_solve_trace draws a solve; {type(model).__name__} has no solver_result_ "
                        "(it is not fitted, or not fitted by a solver)")
    if not result.trace:
        why = f" ({result.message})" if result.message else ""
        raise ValueError(f"no solve trace to draw: the solver ran no MIP in this fit{why}; fit_report_ says what "
                         "the fit returned")
    return _plot.plot_solve_trace(result, ax=ax)
