"""One model per fitted estimator: every field a model uses agrees with every other.

:func:`check_consistent` is run at the end of every ``fit`` (a fit that breaks it is a bug of the library) and on
every loaded model file (:func:`optitrees.persistence.load_model`, where a file that breaks it is refused), so
that what predicts is what prints: the text, dict and SQL forms read the same fields ``predict`` reads, and those
fields cannot say two things.

The rules, by what a model holds:

* exactly one model: ``tree_`` (or, one tree per class, ``one_vs_rest_`` with ``estimators_``), ``score_card_``,
  ``rule_set_``, or ``trees_`` with ``policy_``, as the estimator's class fits it; no second model beside it;
* every model is as wide as ``n_features_in_``; feature names are distinct, class labels too;
* label leaves predict a class of ``classes_``; linear leaves two classes; a C4.5 leaf prints the class its
  probabilities predict;
* one tree per class, each the tree of its ``estimators_[k]``, which are themselves consistent;
* a one-hot feature (``feature_encoding_``) is named ``<raw column>_<category>`` after the column its SQL reads;
* the policy network reads ``n_features_in_`` inputs and chooses among ``trees_``;
* a rule set's rules test features of the model and predict class 0 or 1.
"""

from __future__ import annotations

import numpy as np

from ..trees import LeafModel

__all__ = ["MODEL_ATTRIBUTES", "check_consistent"]

#: the attributes that hold a fitted model (one of the sets an estimator class lists in ``_model_shapes`` is set,
#: none beside it)
MODEL_ATTRIBUTES = ("tree_", "one_vs_rest_", "score_card_", "rule_set_", "trees_", "policy_")


def _trees_of(estimator) -> list:
    """``(tree, predicts classes_)`` of every tree: a one-vs-rest tree scores one class against the rest."""
    one_vs_rest = getattr(estimator, "one_vs_rest_", None)
    trees = [t for t in (getattr(estimator, "tree_", None),) if t is not None]
    trees += list(getattr(estimator, "trees_", None) or ())
    return [(t, True) for t in trees] + [(t, False) for t in (one_vs_rest.trees if one_vs_rest else ())]


def check_consistent(estimator) -> None:
    """Raise ValueError unless the fitted parts of ``estimator`` agree (the module docstring's rules)."""
    n = estimator.n_features_in_
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None and len(set(map(str, names))) != len(names):
        raise ValueError("two features have the same name")
    classes = getattr(estimator, "classes_", None)
    if classes is not None and len(np.unique(np.asarray(classes, dtype=object).astype(str))) != len(classes):
        raise ValueError("two classes have the same label")
    held = frozenset(name for name in MODEL_ATTRIBUTES if getattr(estimator, name, None) is not None)
    shapes = type(estimator)._model_shapes
    if held not in shapes:
        raise ValueError(f"a {type(estimator).__name__} holds the model {' and '.join(sorted(shapes[0]))}"
                         + (f" (or {' and '.join(sorted(shapes[1]))})" if len(shapes) > 1 else "")
                         + f", found {', '.join(sorted(held)) or 'none'}: one model predicts and prints")
    importances = getattr(estimator, "feature_importances_", None)
    if importances is not None and importances.shape != (n,):
        raise ValueError(f"feature_importances_ has shape {importances.shape}, the model {n} features")
    for tree, of_classes in _trees_of(estimator):
        _check_tree(tree, n, classes if of_classes else None)
    _check_one_vs_rest(estimator, classes)
    _check_leaf_probabilities(estimator)
    policy = getattr(estimator, "policy_", None)
    if policy is not None:
        if policy.weights[-1].shape[1] != len(estimator.trees_):
            raise ValueError(f"the policy chooses among {policy.weights[-1].shape[1]} trees, the model has "
                             f"{len(estimator.trees_)}")
        if policy.weights[0].shape[0] != n:
            raise ValueError(f"the policy reads {policy.weights[0].shape[0]} inputs, the model has {n} features")
    card = getattr(estimator, "score_card_", None)
    if card is not None and card.features.size and not 0 <= card.features.min() <= card.features.max() < n:
        raise ValueError(f"the score card names a feature outside 0..{n - 1}")
    rule_set = getattr(estimator, "rule_set_", None)
    if rule_set is not None:
        if any(f < 0 or f >= n for rule in rule_set.rules for f in rule.features):
            raise ValueError(f"a rule names a feature outside 0..{n - 1}")
        if rule_set.trust_weights.shape[1] != n:
            raise ValueError(f"the rules' trust models read {rule_set.trust_weights.shape[1]} features, the model "
                             f"has {n}")
    _check_encoding(estimator, names)


def _check_tree(tree, n, classes) -> None:
    if tree.n_features != n:
        raise ValueError(f"a tree splits on {tree.n_features} features, the model has {n}")
    if classes is None:
        return
    if tree.leaf_model is LeafModel.LABEL:
        labels = tree.label[tree.is_leaf]
        if labels.size and (labels.min() < 0 or labels.max() >= len(classes)):
            raise ValueError(f"a leaf predicts class index {labels.max()}, the model has {len(classes)} classes")
    elif tree.leaf_model is LeafModel.LINEAR and len(classes) != 2:
        raise ValueError(f"linear leaves decide between two classes, the model has {len(classes)}")


def _check_one_vs_rest(estimator, classes) -> None:
    one_vs_rest = getattr(estimator, "one_vs_rest_", None)
    if one_vs_rest is None:
        return
    if classes is not None and one_vs_rest.n_classes != len(classes):
        raise ValueError(f"{one_vs_rest.n_classes} one-vs-rest trees for {len(classes)} classes")
    subs = getattr(estimator, "estimators_", None) or []
    if len(subs) != one_vs_rest.n_classes:
        raise ValueError(f"{len(subs)} estimators_ for {one_vs_rest.n_classes} one-vs-rest trees")
    for k, (sub, tree) in enumerate(zip(subs, one_vs_rest.trees)):
        if type(sub) is not type(estimator):
            raise ValueError(f"estimators_[{k}] is a {type(sub).__name__}, not a {type(estimator).__name__}")
        check_consistent(sub)
        if sub.tree_ is None or any(not np.array_equal(getattr(sub.tree_, f), getattr(tree, f), equal_nan=True)
                                    for f in ("children_left", "children_right", "weights", "threshold",
                                              "intercept")):
            raise ValueError(f"estimators_[{k}]'s tree is not the one-vs-rest model's tree {k}")


def _check_leaf_probabilities(estimator) -> None:
    """A model that predicts from its leaves' class probabilities (C4.5) prints each leaf's label: the two agree."""
    probabilities = getattr(estimator, "leaf_probabilities", None)
    tree = getattr(estimator, "tree_", None)
    if probabilities is None or tree is None or tree.leaf_model is not LeafModel.LABEL:
        return
    leaves = tree.is_leaf
    if tree.value.shape[1] != len(estimator.classes_):
        raise ValueError(f"the leaves count {tree.value.shape[1]} classes, the model has {len(estimator.classes_)}")
    if np.any(np.argmax(probabilities()[leaves], axis=1) != tree.label[leaves]):
        raise ValueError("a leaf's printed class is not the class its probabilities predict")


def _check_encoding(estimator, names) -> None:
    encoding = getattr(estimator, "feature_encoding_", None)
    if not encoding:
        return
    if names is None or not set(encoding) <= set(names):
        raise ValueError("feature_encoding_ names features the model does not have")
    features = set(names)
    for name, (raw, category) in encoding.items():
        if name != f"{raw}_{category}":
            raise ValueError(f"feature {name!r} is encoded as column {raw!r} = {category!r}: a one-hot feature is "
                             "named after its column and category")
        if raw in features:
            raise ValueError(f"column {raw!r} is both a feature and the source of one-hot feature {name!r}")
