"""The classes a model file may name, each with the schema of its fields.

A file names a class by its public name (``Tree``, ``OLCTClassifier``; format version 2) or, in files of version 1,
by the ``module:QualName`` it was saved under (translated by the frozen tables of :mod:`._legacy_names`); the name
is looked up in :data:`OBJECTS`, :data:`ENUMS` or :data:`ESTIMATOR_CLASSES` as a whole string, so a file can reach
only the classes listed here, whatever the library's modules import. Every field is read by its
:class:`~._schema.Spec` before the object is built; dataclasses are built by their own constructor (whose checks,
such as a tree's structure, then run), the policy network field by field, then checked.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from dataclasses import MISSING, dataclass, fields as dataclass_fields, is_dataclass
from typing import Callable

from ..algorithms.contextual.bandit import TrainingHistory
from ..algorithms.contextual.policy_network import PolicyNetwork
from ..estimators import FitOutcome, FitReport, RegressionPruning
from ..estimators.registry import ESTIMATORS
from ..fairness import (ConditionalStatisticalParity, DemographicParity, EqualizedOdds, FalsePositiveRateParity,
                        TruePositiveRateParity)
from ..formulations.oblique_regression import RegressionLoss
from ..rule_set import Rule, RuleSet
from ..scaling import Scaling
from ..scorecard import ScoreCard
from ..solvers.results import SolutionStatus, SolverResult, TerminationCondition
from ..trees import OneVsRestTrees, Tree
from ..trees._tree import LeafModel
from ._legacy_names import public_name_of
from ._schema import (BOOL, FLOAT, GENERATOR, INT, PLAIN, STR, Array, DictOf, ListOf, Optional, Reader, Spec,
                      TupleOf, _kind)

__all__ = ["qualified", "ENUMS", "OBJECTS", "ESTIMATOR_CLASSES", "FITTED", "Member", "Instance", "read_estimator",
           "saved_class", "without_paths"]


def qualified(cls) -> str:
    """The name a file gives ``cls``: its public name (``Tree``, ``OLCTClassifier``), the same wherever its module
    lives (format version 2; version 1 gave ``module:QualName``, read through :mod:`._legacy_names`)."""
    return cls.__qualname__


#: the enums a file may name (fitted fields, parameters and the values in reports)
ENUMS = {qualified(cls): cls for cls in (FitOutcome, SolutionStatus, TerminationCondition, LeafModel,
                                         RegressionPruning, RegressionLoss, Scaling)}
#: the estimators, by their saved names
ESTIMATOR_CLASSES = {qualified(cls): cls for cls in ESTIMATORS.values()}


def _lookup(table: dict, name, reader: Reader, where: str, what: str):
    if not isinstance(name, str):
        reader.fail(where, f"a class name must be a string, found {_kind(name)}")
    found = table.get(name)
    if found is None and ":" in name:                      # a version-1 name: module:QualName
        found = table.get(public_name_of(name) or "")
        module = name.partition(":")[0]
        if found is None and not (module == "optitrees" or module.startswith("optitrees.")):
            reader.fail(where, f"the file names a class outside optitrees: {name!r}")
    if found is None:
        reader.fail(where, f"{name!r} is not {what} a model file may hold")
    return found


class _Tagged(Spec):
    """A value that names its class: ``{tag: "module:Name", payload: ...}``, the class one of ``classes``, looked
    up in :meth:`table` (subclasses give ``tag``, ``payload``, ``kind`` of class for messages, ``what`` one is)."""

    tag = payload = kind = what = ""

    def __init__(self, *classes):
        self.classes = classes
        self.expected = self.what + " " + " or ".join(c.__name__ for c in classes)

    @abstractmethod
    def table(self) -> dict:
        """The saved names of the classes this kind of value may name."""

    def named_class(self, value, reader, where):
        """The class ``value`` names, after checking its form and that it is one of ``classes``."""
        if not (isinstance(value, dict) and set(value) == {self.tag, self.payload}):
            reader.fail(where, f"expected {self.expected}, found {_kind(value)}")
        cls = _lookup(self.table(), value[self.tag], reader, where, self.kind)
        if cls not in self.classes:
            reader.fail(where, f"expected {self.expected}, found {self.what} {cls.__name__}")
        return cls


class Member(_Tagged):
    """A member of one of ``enums`` (saved as ``{"__enum__": "module:Name", "value": ...}``)."""

    tag, payload, kind, what = "__enum__", "value", "an enum", "a member of"

    def table(self) -> dict:
        return ENUMS

    def read(self, value, reader, where, depth):
        cls = self.named_class(value, reader, where)
        try:
            return cls(value["value"])
        except (ValueError, TypeError):
            reader.fail(where, f"{value['value']!r} is not a value of {cls.__name__}")


@dataclass(frozen=True)
class ObjectSchema:
    """The fields of a saved class and how it is built from them."""

    fields: dict
    #: checks across fields once the object is built (raise ValueError); dataclasses check in their constructor
    check: Callable | None = None


def _policy_network_shapes(net: PolicyNetwork) -> None:
    layers = list(zip(net.weights, net.biases))
    if not layers or len(net.weights) != len(net.biases):
        raise ValueError("a policy network needs one bias per weight matrix, and at least one layer")
    for k, (w, b) in enumerate(layers):
        if w.ndim != 2 or b.shape != (w.shape[1],) or (k and w.shape[0] != net.weights[k - 1].shape[1]):
            raise ValueError(f"layer {k}'s weights {w.shape} and bias {b.shape} do not chain")
    shapes = [p.shape for p in net.parameters()]
    if [m.shape for m in net._m] != shapes or [v.shape for v in net._v] != shapes:
        raise ValueError("the optimizer's moments must match the parameters' shapes")


_FLOATS = Array("fiub")
_OPT_FLOAT = Optional(FLOAT)
_TREE = Array("fiub", 1)

#: every class of optitrees a file may name as an object, with its fields
OBJECTS: dict[str, tuple[type, ObjectSchema]] = {qualified(cls): (cls, schema) for cls, schema in [
    (Tree, ObjectSchema({
        "children_left": Array("iu", 1), "children_right": Array("iu", 1), "weights": Array("fiub", 2),
        "threshold": _TREE, "intercept": Optional(_TREE), "value": Optional(Array("fiub", 2)),
        "label": Optional(Array("iu", 1)), "leaf_model": Member(LeafModel), "probabilistic": BOOL})),
    (OneVsRestTrees, ObjectSchema({"trees": None})),          # filled below: it holds Trees
    (ScoreCard, ObjectSchema({
        "features": Array("iu", 1), "thresholds": Array("fiu", 1), "greater": Array("b", 1),
        "points": Array("iu", 1), "intercept": FLOAT, "binary": Optional(Array("b", 1)),
        "per_unit": Optional(Array("b", 1)), "multiplier": FLOAT, "unit_range": Optional(Array("fiu", 2))})),
    (Rule, ObjectSchema({"features": TupleOf(INT), "lower": TupleOf(FLOAT), "upper": TupleOf(FLOAT),
                         "then": INT})),
    (RuleSet, ObjectSchema({"rules": None, "trust_weights": Array("fiu", 2), "trust_intercept": Array("fiu", 1),
                            "correct_weight": FLOAT, "incorrect_weight": FLOAT})),
    (SolverResult, ObjectSchema({
        "solver": STR, "solver_version": STR, "termination": Member(TerminationCondition),
        "solution_status": Member(SolutionStatus), "objective": _OPT_FLOAT, "bound": _OPT_FLOAT, "gap": _OPT_FLOAT,
        "node_count": Optional(INT), "timings": PLAIN, "solution_source": Optional(STR),
        "x": Optional(Array("fiub", 1)), "message": STR, "checks": PLAIN, "trace": PLAIN, "pool": PLAIN})),
    (FitReport, ObjectSchema({
        "estimator": STR, "outcome": Member(FitOutcome), "method": STR, "returned": STR, "objective": _OPT_FLOAT,
        "seconds": FLOAT, "time_limit": _OPT_FLOAT, "rows": INT, "distinct_rows": INT, "weighted": BOOL,
        "starts": PLAIN, "objectives": PLAIN, "solved_by": Optional(STR), "certified_by": Optional(STR),
        "bound": _OPT_FLOAT, "stages": PLAIN, "checks": PLAIN, "notes": TupleOf(STR),
        "bound_source": Optional(STR), "mip_rows": Optional(INT), "restriction": Optional(STR),
        "fairness": Optional(PLAIN), "feature_cost": Optional(PLAIN),
        "monotonicity": Optional(PLAIN), "plan": Optional(PLAIN)})),
    *[(notion, ObjectSchema({"difference_bound": FLOAT}))
      for notion in (DemographicParity, TruePositiveRateParity, FalsePositiveRateParity, EqualizedOdds)],
    (ConditionalStatisticalParity, ObjectSchema({"difference_bound": FLOAT, "legitimate": PLAIN})),
    (TrainingHistory, ObjectSchema({"train": PLAIN, "validation": PLAIN, "best_epoch": INT, "stopped": STR})),
    (PolicyNetwork, ObjectSchema({
        "rng": GENERATOR, "weights": ListOf(Array("f", 2)), "biases": ListOf(Array("f", 1)), "dropout": FLOAT,
        "beta1": FLOAT, "beta2": FLOAT, "eps": FLOAT, "_m": ListOf(Array("f")), "_v": ListOf(Array("f")),
        "steps": INT, "_cache": Optional(PLAIN)}, check=_policy_network_shapes)),
]}


class Instance(_Tagged):
    """An object of one of ``classes`` (saved as ``{"__object__": "module:Name", "fields": {...}}``): an
    :data:`OBJECTS` class or an estimator."""

    tag, payload, kind, what = "__object__", "fields", "a class", "a"

    def table(self) -> dict:
        return _CLASSES

    def read(self, value, reader, where, depth):
        cls = self.named_class(value, reader, where)
        fields = value["fields"]
        if not isinstance(fields, dict):
            reader.fail(where, f"a {cls.__name__}'s fields must be a JSON object, found {_kind(fields)}")
        depth = reader.enter(where, depth)
        if cls in ESTIMATORS.values():
            params = cls().get_params(deep=False)
            return read_estimator(cls, {k: v for k, v in fields.items() if k in params},
                                  {k: v for k, v in fields.items() if k not in params}, reader, where, depth)
        return _read_object(cls, OBJECTS[qualified(cls)][1], fields, reader, where, depth)


def _read_object(cls, schema: ObjectSchema, saved: dict, reader: Reader, where: str, depth: int):
    unknown = set(saved) - set(schema.fields)
    if unknown:
        reader.fail(where, f"a {cls.__name__} has no fields {sorted(unknown)}")
    defaults = ({f.name: f for f in dataclass_fields(cls)} if is_dataclass(cls) else {})
    values = {}
    for name, spec in schema.fields.items():
        if name in saved:
            values[name] = spec.read(saved[name], reader, f"{where}.{name}", depth)
        elif name in defaults and (defaults[name].default is not MISSING
                                   or defaults[name].default_factory is not MISSING):
            continue                           # a field added after the file was written: its default
        else:
            reader.fail(where, f"a {cls.__name__} needs the field {name!r}")
    try:
        if is_dataclass(cls):
            obj = cls(**values)
        else:
            obj = cls.__new__(cls)
            for name, value in values.items():
                object.__setattr__(obj, name, value)
            schema.check(obj)
    except (ValueError, TypeError, IndexError) as exc:
        reader.fail(where, f"not a valid {cls.__name__}: {exc}")
    if isinstance(obj, Tree) and obj.max_depth > reader.limits.tree_depth:
        reader.fail(where, f"a tree of depth {obj.max_depth}, deeper than {reader.limits.tree_depth} "
                           "(Limits.tree_depth)")
    return obj


#: every class a file may name as an object, by its saved name
_CLASSES = {**{name: cls for name, (cls, _) in OBJECTS.items()}, **ESTIMATOR_CLASSES}

# the fields that hold other saved objects
OBJECTS[qualified(OneVsRestTrees)][1].fields["trees"] = TupleOf(Instance(Tree))
OBJECTS[qualified(RuleSet)][1].fields["rules"] = ListOf(Instance(Rule))

#: every fitted attribute an estimator may hold, by name (each name means one thing in every estimator)
FITTED: dict[str, Spec] = {
    "classes_": Array("biufUO", 1), "n_features_in_": INT, "feature_names_in_": Array("O", 1),
    "feature_importances_": _FLOATS, "fit_report_": Instance(FitReport), "solver_result_": Instance(SolverResult),
    "tree_": Instance(Tree), "trees_": ListOf(Instance(Tree)), "one_vs_rest_": Instance(OneVsRestTrees),
    "score_card_": Instance(ScoreCard), "rule_set_": Instance(RuleSet), "policy_": Instance(PolicyNetwork),
    "history_": Instance(TrainingHistory), "estimators_": ListOf(Instance(*ESTIMATORS.values())),
    "C_": _FLOATS, "feature_scale_": _FLOATS, "forest_scale_": _FLOATS, "input_mean_": _FLOATS,
    "input_scale_": _FLOATS, "lasso_coef_": _FLOATS, "node_std_": _FLOATS, "nominal_": Array("b", 1),
    "tree_usage_": Array("iu", 1), "cv_results_": PLAIN, "fitness_history_": PLAIN, "p_values_": PLAIN,
    "cart_check_": PLAIN,
    "start_objectives_": PLAIN, "feature_encoding_": DictOf(STR, TupleOf(STR)), "formulation_summary_": STR,
    "method_": STR, "proven_": BOOL, "truncated_": BOOL,
    "greedy_objective_": FLOAT, "lam_": FLOAT, "max_features_": PLAIN, "budget_results_": PLAIN,
    "max_total_features_": PLAIN, "total_budget_results_": PLAIN,
    "objective_": FLOAT, "start_objective_": FLOAT, "validation_f1_": FLOAT,
    "validation_score_": FLOAT, "warm_start_objective_": FLOAT, "grown_leaves_": INT, "max_depth_": INT,
    "n_candidate_rules_": INT, "n_epochs_": INT, "n_iterations_": INT, "n_leaves_": INT, "search_depth_": INT,
    "search_nodes_": INT,
}

# a fitted name: scikit-learn's convention (a trailing underscore), never private, never a dunder
_FITTED_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*_$")


#: solver option names that make a solver write or read a file (``log_file``, ``solution_file``, ``tmpdir`` ...)
_PATH_OPTION = re.compile(r"file|path|dir", re.IGNORECASE)


def without_paths(solver_options):
    """``(solver_options without the options naming a file or folder, their names)``: a saved model never carries
    them, so its later fits write nowhere (other values are returned as they are)."""
    if not isinstance(solver_options, dict):
        return solver_options, []
    dropped = [k for k in solver_options if isinstance(k, str) and _PATH_OPTION.search(k)]
    return {k: v for k, v in solver_options.items() if k not in dropped}, dropped


def _refuse_paths(params: dict, reader: Reader, where: str) -> None:
    """Refuse saved ``solver_options`` that name a file or folder (``log_file``, ...): a later
    ``clone(model).fit()`` would write there."""
    _, dropped = without_paths(params.get("solver_options"))
    if dropped:
        reader.fail(f"{where}.solver_options[{dropped[0]!r}]", "a model file cannot set a solver option naming a "
                                                               "file or folder (a later fit would write there)")


def read_estimator(cls, params: dict, fitted: dict, reader: Reader, where: str, depth: int):
    """An estimator of ``cls`` with the saved ``params`` (plain data, given to its constructor) and ``fitted``
    attributes (each a :data:`FITTED` name of its spec, none that the class itself defines)."""
    if not isinstance(params, dict) or not isinstance(fitted, dict):
        reader.fail(where, "the parameters and fitted attributes must be JSON objects")
    known = cls().get_params(deep=False)
    unknown = set(params) - set(known)
    if unknown:
        reader.fail(where, f"{cls.__name__} has no parameters {sorted(unknown)}")
    values = {k: (_NOTION if k == "fairness" else PLAIN).read(v, reader, f"{where}.params.{k}", depth)
              for k, v in params.items()}
    _refuse_paths(values, reader, f"{where}.params")
    estimator = cls(**values)
    for name, value in fitted.items():
        if not (isinstance(name, str) and _FITTED_NAME.match(name)) or name not in FITTED:
            reader.fail(where, f"{name!r} is not a fitted attribute a model file may hold")
        if hasattr(cls, name) or name in known:
            reader.fail(where, f"the fitted entry {name!r} would hide {cls.__name__}'s own {name!r}")
        setattr(estimator, name, Optional(FITTED[name]).read(value, reader, f"{where}.{name}", depth))
    return estimator


#: a ``fairness`` parameter: one of the notions, or none
_NOTION = Optional(Instance(DemographicParity, TruePositiveRateParity, FalsePositiveRateParity, EqualizedOdds,
                            ConditionalStatisticalParity))


def saved_class(cls) -> bool:
    """Whether ``cls`` is one a file may hold (the writer leaves out any other)."""
    return qualified(cls) in OBJECTS or qualified(cls) in ENUMS or qualified(cls) in ESTIMATOR_CLASSES
