"""Untrusted model files: a file can name only the allow-listed classes, every field is checked before anything is
built, and whatever is wrong ends in the one ``ModelFormatError`` (on the command line, one line and exit 2).

The payloads are those of the trust review: foreign classes reached through an optitrees module's namespace,
fitted entries that shadow methods, huge dtypes, deep nesting, huge integers, bad shapes and positions, pickles,
one estimator's file under another's name. The fuzz test mutates saved files of every estimator at random."""

import copy
import functools
import io
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

from _support import estimator_id, fit_quiet, quick_data, quick_estimators
from optitrees import TAOClassifier, TAORegressor
from optitrees.persistence import FORMAT_VERSION, ModelFormatError, load_model, to_json_dict

CASES = quick_estimators()


@functools.lru_cache(maxsize=None)
def saved(index: int):
    """The saved document of ``CASES[index]`` fitted on its quick data, and that data."""
    est, kind = CASES[index]
    X, y = quick_data(kind)
    return to_json_dict(fit_quiet(est, X, y)), X


@pytest.fixture(scope="module")
def tao():
    X, y = quick_data("real")
    return to_json_dict(TAOClassifier(max_depth=2, random_state=0).fit(X, y)), X


def load(document):
    return load_model(io.StringIO(document if isinstance(document, str) else json.dumps(document)))


def payloads(marker):
    """Objects and enums that name foreign classes (some through a module of optitrees that imports them)."""
    command = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    objects = ["subprocess:Popen", "os:system", "optitrees.forked:subprocess.Popen",
               "optitrees.cli._commands:subprocess.Popen", "optitrees:logging.FileHandler",
               "optitrees.persistence:io.FileIO", "optitrees.persistence:json.decoder.JSONDecoder",
               "optitrees:ctypes.CDLL", "optitrees.trees._tree:np.ndarray", "optitrees:builtins.type",
               "optitrees.trees._tree:Tree.__init__.__globals__", "optitrees", "optitrees.trees._tree",
               "optitrees.estimators.mip._oct:OCTClassifier.fit",
               # bare names, the form of format version 2: only the public names of the listed classes resolve
               "Popen", "system", "FileIO", "ndarray", "Tree.__init__.__globals__", "OCTClassifier.fit",
               "__builtins__", "Formulation", "Highs"]
    for name in objects:
        fields = {"args": command, "filename": str(marker), "file": str(marker), "mode": "w", "name": str(marker)}
        yield {"__object__": name, "fields": fields}
        yield {"__enum__": name, "value": str(marker)}


def test_no_payload_runs_or_builds_anything(tao, tmp_path):
    document, _ = tao
    marker = tmp_path / "ran"
    places = [("fitted", "tree_"), ("fitted", "fit_report_"), ("fitted", "classes_"), ("params", "max_depth"),
              ("fitted", "tree_", "fields", "leaf_model"), ("fitted", "fit_report_", "fields", "checks")]
    refused, n_payloads = 0, len(list(payloads(marker)))
    for payload in payloads(marker):
        for place in places:
            planted = copy.deepcopy(document)
            parent = planted
            for key in place[:-1]:
                parent = parent[key]
            parent[place[-1]] = payload
            with pytest.raises(ModelFormatError):
                load(planted)
            refused += 1
        top = dict(document, estimator=payload.get("__object__", "os:system"))
        with pytest.raises(ModelFormatError):
            load(top)
    assert refused == n_payloads * len(places) and n_payloads == 2 * 23 and not marker.exists()


def test_the_command_line_refuses_a_payload_in_one_line(tao, tmp_path, capsys):
    document, _ = tao
    marker = tmp_path / "ran"
    planted = copy.deepcopy(document)
    planted["fitted"]["tree_"] = next(payloads(marker)) | {"__object__": "optitrees.forked:subprocess.Popen"}
    path = tmp_path / "model.json"
    path.write_text(json.dumps(planted))
    nested = tmp_path / "deep.json"
    nested.write_text('{"format": "optitrees-model", "version": 1, "estimator": ' + "[" * 100_000 + "]" * 100_000
                      + "}")
    from optitrees.cli import main

    assert main(["load", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a class a model file may hold" in err and not marker.exists()
    # the command itself, in its own interpreter: JSON nested 100,000 deep is one line too, not a traceback
    run = subprocess.run([sys.executable, "-m", "optitrees", "load", str(nested)], capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr


@pytest.mark.parametrize("name", ["predict", "fit", "get_params", "__class__", "__dict__", "_probe", "max_depth",
                                  "feature_importances", "classes", "tree__x_", "n_nodes_"])
def test_a_fitted_entry_cannot_shadow_a_method_or_parameter(tao, name):
    document, _ = tao
    planted = copy.deepcopy(document)
    planted["fitted"][name] = 1
    with pytest.raises(ModelFormatError, match="fitted"):
        load(planted)


def _with(document, path, value):
    planted = copy.deepcopy(document)
    parent = planted
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return planted


@pytest.mark.parametrize("path, value, message", [
    (("fitted", "classes_", "dtype"), "<U2000000000", "dtype"),
    (("fitted", "classes_", "dtype"), "V8", "dtype"),
    (("fitted", "classes_", "dtype"), "datetime64[ns]", "dtype"),
    (("fitted", "tree_", "fields", "threshold", "shape"), [float("nan")], "shape"),
    (("fitted", "tree_", "fields", "threshold", "shape"), [10 ** 12], "holds"),
    (("fitted", "tree_", "fields", "threshold", "nan"), [10 ** 12], "positions"),
    (("fitted", "tree_", "fields", "threshold", "__ndarray__"), ["1.0", 2, 3, 4, 5, 6, 7], "numbers"),
    (("fitted", "tree_", "fields", "children_left", "__ndarray__"), [1.5, -1, -1, -1, -1, -1, -1], "integers"),
    (("fitted", "tree_", "fields", "children_left", "__ndarray__"), [1, 2, -1, -1, -1, -1, -1], "Tree"),
    (("fitted", "tree_"), "a tree", "expected a Tree"),
    (("fitted", "tree_", "fields", "leaf_model", "value"), "poem", "LeafModel"),
    (("fitted", "n_features_in_"), 10 ** 30, "64 bits"),
    (("fitted", "n_features_in_"), 7, "disagree"),
    (("fitted", "tree_", "fields", "label", "__ndarray__"), [0, 0, 1, 0, 1, 5, 0], "class index"),
    (("fitted", "classes_", "__ndarray__"), [0], "holds"),
    (("fitted", "fit_report_", "fields", "rows"), True, "integer"),
    (("fitted", "feature_encoding_"), {"x9_red": {"__tuple__": ["x9", "red"]}}, "feature_encoding_"),
    (("fitted", "fit_report_", "fields", "planted"), 1, "no fields"),
    (("params", "no_such_parameter"), 1, "no parameters"),
    (("params", "max_depth"), {"__object__": "optitrees.trees._tree:Tree", "fields": {}}, "plain data"),
    (("planted",), 1, "unknown entries"),
])
def test_malformed_fields_end_in_the_format_error(tao, path, value, message):
    document, _ = tao
    planted = _with(document, path, value)
    with pytest.raises(ModelFormatError, match=message):
        load(json.dumps(planted, allow_nan=True))


def test_malformed_files_end_in_the_format_error(tao, tmp_path):
    document, X = tao
    text = json.dumps(document)
    bad = {
        "deep": '{"format": "optitrees-model", "version": 1, "fitted": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "deep within limits of JSON": json.dumps(_with(document, ("fitted", "fit_report_", "fields", "checks"),
                                                       functools.reduce(lambda v, _: [v], range(200), 0))),
        "huge integer": text.replace(f'"version": {FORMAT_VERSION}', f'"version": {FORMAT_VERSION}' + "0" * 100_000),
        "huge integer in a field": json.dumps(document).replace('"max_depth": 2', '"max_depth": 2' + "0" * 5_000),
        "pickle": pickle.dumps(TAOClassifier()),
        "binary": bytes(range(256)),
        "cut": text[: len(text) // 2],
        "empty": "",
        "a list": "[1, 2]",
    }
    assert bad["huge integer"] != text
    for name, content in bad.items():
        with pytest.raises(ModelFormatError):
            load_model(content if isinstance(content, bytes) else io.StringIO(content))
        path = tmp_path / f"{name}.json"
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
        with pytest.raises(ModelFormatError):
            load_model(path)


def test_a_regressor_file_under_a_classifier_name_is_refused():
    X, y = quick_data("target")
    document = to_json_dict(TAORegressor(max_depth=2, random_state=0).fit(X, y))
    document["estimator"] = document["estimator"].replace("TAORegressor", "TAOClassifier").replace(
        "_regression_tree", "_local_search")
    with pytest.raises(ModelFormatError):
        load(document)


# --------------------------------------------------------------------------- fuzz
_VALUES = [None, True, -1, 0, 3, 2 ** 70, 1e308, -0.5, "x", "predict", [], {}, [1, 2, 3], {"a": 1},
           {"__float__": "nan"}, {"__float__": "bogus"}, {"__tuple__": [1]}, {"__dict__": [[1, 2]]},
           {"__dict__": [[[1], 2]]}, {"__ndarray__": [], "dtype": "<f8", "shape": [0]},
           {"__ndarray__": [1], "dtype": "<U2000000000", "shape": [1]},
           {"__ndarray__": [1, 2], "dtype": "<i8", "shape": [2], "nan": [0]},
           {"__object__": "optitrees.trees._tree:Tree", "fields": {}},
           {"__object__": "optitrees.forked:subprocess.Popen", "fields": {"args": ["true"]}},
           {"__enum__": "optitrees.trees._tree:LeafModel", "value": "label"},
           {"__enum__": "optitrees:os.system", "value": "x"},
           {"__generator__": "PCG64", "state": {}}]


def _nodes(value, path=()):
    """Every (path, value) of a JSON document."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):
            yield from _nodes(v, (*path, i))


def _mutate(document, rng):
    planted = copy.deepcopy(document)
    nodes = list(_nodes(planted))[1:]
    path, value = nodes[rng.integers(len(nodes))]
    parent = planted
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = rng.integers(5)
    if action == 0:                                   # another value
        parent[key] = copy.deepcopy(_VALUES[rng.integers(len(_VALUES))])
    elif action == 1:                                 # removed
        del parent[key]
    elif action == 2 and isinstance(value, dict):     # a new entry
        value[str(rng.choice(["predict", "tree_", "__class__", "zz_", "fields", "dtype", "nan"]))] = \
            copy.deepcopy(_VALUES[rng.integers(len(_VALUES))])
    elif action == 3 and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[key] = value * float(rng.choice([-1, 0, 2, 1e300])) + int(rng.integers(-2, 3))
    elif isinstance(value, list) and value:           # one item fewer, or one more
        if rng.random() < 0.5:
            value.pop()
        else:
            value.append(copy.deepcopy(value[0]))
    else:
        parent[key] = copy.deepcopy(_VALUES[rng.integers(len(_VALUES))])
    return planted


@pytest.mark.parametrize("index", range(len(CASES)), ids=[estimator_id(c) for c in CASES])
def test_mutated_files_load_and_predict_or_end_in_the_format_error(index, tmp_path):
    document, X = saved(index)
    rng = np.random.default_rng(index)
    outcomes = {"refused": 0, "loaded": 0}
    for _ in range(80):
        planted = _mutate(document, rng)
        try:
            text = json.dumps(planted)
        except (ValueError, OverflowError):
            continue
        try:
            loaded = load(text)
        except ModelFormatError:
            outcomes["refused"] += 1
            continue
        with np.errstate(all="ignore"):   # mutated numbers may overflow; what matters is that predict works
            loaded.predict(X)             # a file that loads gives a model that predicts the user's rows
        outcomes["loaded"] += 1
    assert outcomes["refused"] > 20, outcomes
