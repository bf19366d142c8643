"""Loading, ``predict``, ``export_text`` and ``export_sql`` cost time and memory linear in a model file: one small bomb
of each kind is refused with ``ModelFormatError`` (``bench/load_bombs.py`` builds them at full size), and what is
linear stays so."""

import base64
import io
import json
import os
import sqlite3
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from export._printed import card_text_predictions
from optitrees import TAOClassifier, export
from optitrees.persistence import Limits, ModelFormatError, load_model, save_model, to_json_dict
from optitrees.scorecard import ScoreCard
from optitrees.trees import Tree
from optitrees.trees._one_vs_rest import OneVsRestTrees

#: the loader's budget without its fixed allowance, so that bombs of a few kB exceed it
TIGHT = Limits(memory_fixed=0)


@pytest.fixture(scope="module")
def tao():
    X, y = load_iris(return_X_y=True)
    return TAOClassifier(max_depth=2, random_state=0).fit(X, y), X


def text_of(document) -> bytes:
    return json.dumps(document).encode()


def test_a_plain_model_loads_within_the_tight_budget(tao):
    est, X = tao
    loaded = load_model(text_of(to_json_dict(est)), TIGHT)
    assert np.array_equal(loaded.predict(X), est.predict(X))


def test_a_text_array_is_charged_its_declared_width(tao):
    est, _ = tao
    document = to_json_dict(est)
    # 3 classes of 4,000 characters declared: 48 kB of numpy for a few hundred bytes of text
    document["fitted"]["classes_"] = {"__ndarray__": ["a", "b", "c"], "dtype": "<U4000", "shape": [3]}
    size = len(text_of(document))
    with pytest.raises(ModelFormatError, match="Limits.memory_per_byte"):
        load_model(text_of(document), Limits(memory_fixed=0, memory_per_byte=(4 * 4000 * 3) // size - 1))
    assert load_model(text_of(document)).classes_.dtype == np.dtype("<U4000")      # within the default budget


def test_json_values_costlier_than_the_text_are_refused_before_parsing(tao):
    est, _ = tao
    document = to_json_dict(est)
    document["fitted"]["fit_report_"]["fields"]["notes"] = {"__tuple__": [{}] * 2000}
    with pytest.raises(ModelFormatError, match="JSON values would take"):
        load_model(text_of(document), TIGHT)


@pytest.mark.parametrize("not_saved, message", [([1, 2], "not_saved"), ({"x": 3}, "not_saved"),
                                                ({"x": "y" * 100}, None)])
def test_not_saved_is_read_against_its_schema(tao, not_saved, message):
    est, X = tao
    document = dict(to_json_dict(est), not_saved=not_saved)
    if message is None:
        assert np.array_equal(load_model(text_of(document)).predict(X), est.predict(X))
    else:
        with pytest.raises(ModelFormatError, match=message):
            load_model(text_of(document))


def test_a_pipeline_archive_that_unpacks_beyond_the_budget_is_refused(tao):
    est, _ = tao
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("schema.json", b"0" * (4 << 20))                      # 4 MB in about 4 kB
    document = dict(to_json_dict(est), pipeline={"final_step": "model", "format": "skops",
                                                 "steps": base64.b64encode(archive.getvalue()).decode()})
    with pytest.raises(ModelFormatError, match="unpack to 4,194,304 bytes"):
        load_model(text_of(document), TIGHT)


def chain(depth, n_features, n_classes):
    """A tree of ``depth`` splits each with one leaf on the left: inner node k is 2k, its leaf 2k + 1."""
    n = 2 * depth + 1
    left = np.full(n, -1)
    right = np.full(n, -1)
    left[0:2 * depth:2] = np.arange(1, 2 * depth, 2)
    right[0:2 * depth:2] = np.arange(2, 2 * depth + 1, 2)
    weights = np.zeros((n, n_features))
    weights[0:2 * depth:2, 0] = 1.0
    return Tree(children_left=left, children_right=right, weights=weights, threshold=np.arange(n) / 50.0,
                value=np.ones((n, n_classes)), label=np.arange(n) % n_classes)


def test_a_tree_deeper_than_the_limit_is_refused_and_one_within_it_predicts_and_prints_linearly(tao):
    est, X = tao
    document = to_json_dict(est)
    deep = TAOClassifier()
    vars(deep).update({k: v for k, v in vars(est).items() if k.endswith("_")})
    deep.tree_ = chain(Limits().tree_depth + 1, X.shape[1], 3)
    with pytest.raises(ModelFormatError, match="Limits.tree_depth"):
        load_model(text_of(to_json_dict(deep)))
    deep.tree_ = chain(Limits().tree_depth, X.shape[1], 3)
    buffer = io.StringIO()
    save_model(deep, buffer)
    loaded = load_model(buffer.getvalue().encode())
    rows = np.column_stack([np.linspace(0, 25, 300), np.tile(X[:, 1:], (2, 1))])
    assert np.array_equal(loaded.predict(rows), deep.tree_.predict(rows))
    text = loaded.export_text()                           # no recursion: any depth prints
    assert text.count("|--- class:") == Limits().tree_depth + 1
    sql = export.export_sql(loaded)
    assert len(sql) < 200 * loaded.tree_.n_nodes          # linear in the nodes, not nodes x depth
    assert document["estimator"] == to_json_dict(loaded)["estimator"]


def test_the_sql_of_many_classes_grows_linearly():
    rng = np.random.default_rng(0)

    def stump(k):
        return Tree(children_left=[1, -1, -1], children_right=[2, -1, -1], weights=[[1.0, 0], [0.5, k], [k, 1]],
                    threshold=[0.0, 0, 0], intercept=[0, rng.normal(), rng.normal()], leaf_model="linear")

    lengths = {}
    for n in (10, 40):
        model = OneVsRestTrees(trees=tuple(stump(k) for k in range(n)))
        lengths[n] = len(export.export_sql(model, ["a", "b"], [f"c{k}" for k in range(n)]))
    assert lengths[40] < 4.5 * lengths[10]
    X = rng.normal(size=(200, 2))
    with sqlite3.connect(":memory:") as db:
        pd.DataFrame(X, columns=["a", "b"]).to_sql("data", db, index=False)
        got = [r[0] for r in db.execute(f"SELECT {export.export_sql(model, ['a', 'b'], list(range(40)))} "
                                        "FROM data")]
    assert got == model.predict(X).tolist()


def test_a_score_card_of_huge_points_prints_a_bounded_risk_table_that_still_predicts():
    card = ScoreCard(features=[0, 1], thresholds=[0.5, 0.5], greater=[True, True], points=[20_000_000, -20_000_000],
                     intercept=-3.5)
    text = export.export_text(card, ["a", "b"], ["no", "yes"])
    assert len(text.splitlines()) < 1100
    frame = pd.DataFrame({"a": [0.0, 1.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0, 1.0]})
    _, labels = card_text_predictions(text, frame)
    assert labels.tolist() == ["yes" if v > 0 else "no" for v in card.decision_function(frame.to_numpy())]
    risk = export.export_dict(card, ["a", "b"], ["no", "yes"])
    assert len(risk["risk"]) == 1001 and [r["class"] for r in risk["risk_beyond"]] == ["no", "yes"]


@pytest.mark.parametrize("dtype", ["f8\n", "<U3\n", "i8 "])
def test_a_dtype_with_trailing_characters_is_a_format_error(tao, dtype):
    est, _ = tao
    document = to_json_dict(est)
    document["fitted"]["classes_"]["dtype"] = dtype
    with pytest.raises(ModelFormatError, match="dtype"):
        load_model(text_of(document))


def test_special_files_are_refused_in_one_error(tmp_path):
    if os.path.exists("/proc/self/pagemap"):
        with pytest.raises(ModelFormatError):
            load_model("/proc/self/pagemap")
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)
    with pytest.raises(ModelFormatError, match="not a regular file"):
        load_model(fifo)


def test_a_save_that_fails_half_way_keeps_the_old_model(tao, tmp_path, monkeypatch):
    est, X = tao
    path = tmp_path / "model.json"
    save_model(est, path)
    before = path.read_bytes()

    def half_then_fail(document, out, **kwargs):
        out.write(json.dumps(document)[:100])
        raise KeyboardInterrupt

    monkeypatch.setattr("optitrees.persistence.json.dump", half_then_fail)
    with pytest.raises(KeyboardInterrupt):
        save_model(est, path)
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["model.json"]
    monkeypatch.undo()
    path.chmod(0o640)
    save_model(est, path)                                  # a save that completes keeps the file's permissions
    assert path.stat().st_mode & 0o777 == 0o640 and load_model(path).predict(X).tolist() == est.predict(X).tolist()
