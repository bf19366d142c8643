"""The command line end to end: fit every model, save, load, predict, export, write, solvers; user errors."""

import json
import sqlite3
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from optitrees.cli import MODELS, main, parse_value


@pytest.fixture
def csv_file(tmp_path):
    """A CSV with a string target and a categorical column."""
    rng = np.random.default_rng(0)
    n = 80
    colour = rng.choice(["red", "blue", "green"], n)
    size = rng.normal(size=n)
    weight = rng.normal(size=n)
    label = np.where(size + (colour == "red") - 0.5 * weight > 0.3, "yes", "no")
    path = tmp_path / "animals.csv"
    pd.DataFrame({"colour": colour, "size": size, "weight": weight, "label": label}).to_csv(path, index=False)
    return path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_fit_save_load_predict_export(csv_file, tmp_path, capsys):
    model = tmp_path / "tree.json"
    code, out, err = run(["fit", "olct", "--csv", csv_file, "--target", "label", "--one-hot", "--max-depth", "1",
                          "--time-limit", "10", "--save", model], capsys)
    assert code == 0, err
    assert "OLCTClassifier, 64 training rows, 5 features" in out and "test balanced accuracy" in out
    assert f"saved {model}" in out and json.loads(model.read_text())["format"] == "optitrees-model"

    code, out, _ = run(["load", model], capsys)
    assert code == 0 and out.startswith("OLCTClassifier(C=1.0") and "score =" in out

    predictions = tmp_path / "predictions.csv"
    code, out, err = run(["predict", model, "--csv", csv_file, "--target", "label", "--output", predictions], capsys)
    assert code == 0, err
    from optitrees import load_model

    est = load_model(model)
    frame = pd.read_csv(csv_file)
    X = pd.get_dummies(frame.drop(columns=["label"]), columns=["colour"], dtype=float)[est.feature_names_in_]
    assert pd.read_csv(predictions)["prediction"].tolist() == est.predict(X).tolist()

    # the SQL of a --one-hot fit reads the user's raw table (the encoding written in SQL), its columns qualified
    code, sql, _ = run(["export", model, "--format", "sql", "--table", "data"], capsys)
    assert code == 0 and '"data"."colour" = ' in sql and "colour_" not in sql
    with sqlite3.connect(":memory:") as db:
        frame.drop(columns=["label"]).to_sql("data", db, index=False)
        rows = [r[0] for r in db.execute(f"SELECT {sql.strip()} FROM data")]
        assert rows == est.predict(X).tolist()
        db.execute("DROP TABLE data")
        X.to_sql("data", db, index=False)               # the encoded table lacks the raw column: an error
        with pytest.raises(sqlite3.OperationalError, match="no such column"):
            db.execute(f"SELECT {sql.strip()} FROM data")
    code, text, _ = run(["export", model], capsys)
    assert code == 0 and text.strip() == est.export_text()
    code, out, _ = run(["export", model, "--format", "json", "--output", tmp_path / "tree_dict.json"], capsys)
    assert code == 0 and json.loads((tmp_path / "tree_dict.json").read_text()) == json.loads(
        json.dumps(est.to_dict(), default=str))
    lp = tmp_path / "tree.lp"
    code, out, err = run(["export", model, "--format", "lp", "--output", lp, "--csv", csv_file, "--target", "label",
                          "--one-hot"], capsys)
    assert code == 0, err
    assert "w(1,colour_red)" in lp.read_text()


@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_model_fits_from_the_command_line(model, tmp_path, capsys):
    regression = model.endswith("regressor")
    data = ["--dataset", "diabetes"] if regression else ["--dataset", "breast_cancer"]
    quick = {"olct": ["--max-depth", "1", "--time-limit", "5"],
             "olct-cv": ["--max-depth", "1", "--Cs", "(0.1, 1.0)", "--n-folds", "2", "--time-limit", "5"],
             "margot": ["--max-depth", "1", "--time-limit", "5"],
             "loss-optimal": ["--max-depth", "1", "--time-limit", "5"], "oct": ["--max-depth", "1"],
             "octh": ["--max-depth", "1", "--time-limit", "5", "--solver-options", "{'mip_max_nodes': 0}"],
             "risk-score": ["--n-rules", "2", "--time-limit", "5"],
             "generalized-risk-score": ["--n-rules", "2", "--time-limit", "5"], "tao": ["--max-depth", "2"],
             "tmo": ["--n-estimators", "4", "--n-generations", "1"], "c45": [], "uct-dt": ["--n-iterations", "10"],
             "rule-set": ["--n-estimators", "5", "--n-rules", "3"],
             "contextual-tree": ["--n-estimators", "3", "--max-epochs", "2", "--hidden-layer-sizes", "(4,)"],
             "contextual-tree-regressor": ["--n-estimators", "3", "--max-epochs", "2", "--hidden-layer-sizes", "(4,)"],
             "cart-regressor": ["--max-depth", "3"], "tao-regressor": ["--max-depth", "3"],
             "optimal-tree-regressor": ["--max-depth", "2", "--n-thresholds", "8"],
             "loss-optimal-regressor": ["--max-depth", "1", "--solver-options", "{'mip_max_nodes': 5}"]}
    if model == "risk-score":          # 0/1 features: a CSV of breast cancer's features above their medians
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True, as_frame=True)
        frame = (X.iloc[:, :6] > X.iloc[:, :6].median()).astype(int).assign(target=y)
        frame.to_csv(tmp_path / "binary.csv", index=False)
        data = ["--csv", tmp_path / "binary.csv"]
    code, out, err = run(["fit", model, *data, *quick[model], "--save", tmp_path / "m.json"], capsys)
    assert code == 0, err
    assert "test R^2" in out if regression else "test accuracy" in out
    code, out, err = run(["predict", tmp_path / "m.json", *data], capsys)
    assert code == 0 and out.startswith("prediction\r\n"), err


def test_write_and_solvers(tmp_path, capsys):
    path = tmp_path / "olct.mps"
    code, out, _ = run(["write", "olct", "--dataset", "breast_cancer", "--max-depth", "2", path], capsys)
    assert code == 0 and path.stat().st_size > 0
    margot = tmp_path / "margot.lp"
    code, _, _ = run(["write", "margot", "--dataset", "breast_cancer", "--max-depth", "1", "--solver", "scip",
                      margot], capsys)
    text = margot.read_text()
    assert "hinge(1,0)" in text and "+ 2.0 w(1,mean_radius) ^2" in text   # names; exact quadratic (SCIP reads "x ^2")
    code, out, _ = run(["solvers"], capsys)
    assert code == 0 and out.startswith("highs    available 1.")


def test_fit_multiclass_oct_on_iris(capsys):
    code, out, _ = run(["fit", "oct", "--dataset", "iris", "--max-depth", "2", "--alpha", "0.01",
                        "--min-samples-leaf", "3", "--time-limit", "5"], capsys)
    assert code == 0 and "OCTClassifier, 120 training rows" in out and "class: virginica" in out


def test_help_shows_every_parameter_with_its_default(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "tmo", "--help"])
    out = capsys.readouterr().out
    from optitrees import TMOClassifier

    for param, default in TMOClassifier().get_params().items():
        assert f"--{param.replace('_', '-')} VALUE" in out
    assert "default: 0.2)" in out and "(default: 0.75)" in out


@pytest.mark.parametrize("argv, message", [
    (["fit", "olct", "--csv", "{missing}"], "no such file"),
    (["fit", "olct", "--csv", "{csv}", "--target", "nope"], "has no column 'nope'"),
    (["fit", "olct", "--csv", "{csv}", "--target", "label"], "column 'colour' is not numeric"),
    (["fit", "olct", "--dataset", "iris", "--max-depth", "x"], "option --max-depth of OLCTClassifier must be an int"),
    (["fit", "risk-score", "--dataset", "iris"], "Only binary classification is supported: RiskScoreClassifier got 3"),
    (["fit", "olct"], "exactly one of --dataset, --csv or --libsvm"),
    (["fit", "nope", "--dataset", "iris"], "invalid choice: 'nope'"),
    (["fit", "tao", "--dataset", "iris", "--save", "{tmp}/model.txt"], "must end in .json"),
    (["write", "olct", "--dataset", "breast_cancer", "{tmp}/model.txt"], "must end in .lp or .mps"),
    (["predict", "{tmp}/absent.json", "--dataset", "iris"], "no such file"),
    (["predict", "{csv}", "--dataset", "iris"], "not JSON"),
    (["export", "{csv}", "--format", "sql"], "not JSON"),
])
def test_user_errors_are_one_line_and_a_nonzero_exit(argv, message, csv_file, tmp_path, capsys):
    argv = [a.format(csv=csv_file, missing=tmp_path / "missing.csv", tmp=tmp_path) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:                   # argparse's own errors
        code = exc.code
    _, err = capsys.readouterr()
    assert code != 0
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


def test_the_installed_command_gives_no_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-m", "optitrees", "fit", "tao", "--csv", str(tmp_path / "x.csv")],
                            capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.strip() == f"optitrees: error: no such file: {tmp_path / 'x.csv'}"


def test_values_parse_as_python_literals():
    assert parse_value("3") == 3 and parse_value("0.5") == 0.5 and parse_value("none") is None
    assert parse_value("true") is True and parse_value("10,1") == (10, 1) and parse_value("(8,)") == (8,)
    assert parse_value("V0") == "V0" and parse_value("{'mip_max_nodes': 0}") == {"mip_max_nodes": 0}


def test_drop_missing_and_positive(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=90), "b": rng.normal(size=90),
                          "label": np.array(["low", "mid", "high"])[np.arange(90) % 3]})
    frame.loc[[4, 9], "b"] = np.nan
    path = tmp_path / "three.csv"
    frame.to_csv(path, index=False)
    code, _, err = run(["fit", "tao", "--csv", path, "--target", "label", "--max-depth", "1", "--test-size", "0"],
                       capsys)
    assert code == 2 and "missing values (NaN) in column(s) 'b' (2 rows)" in err and err.count("\n") == 1
    model = tmp_path / "model.json"
    code, out, err = run(["fit", "tao", "--csv", path, "--target", "label", "--max-depth", "1", "--drop-missing",
                          "--positive", "high,mid", "--test-size", "0", "--save", model], capsys)
    assert code == 0, err
    assert "88 training rows" in out
    from optitrees import load_model

    assert load_model(model).classes_.tolist() == [0, 1]
    code, _, err = run(["fit", "tao", "--csv", path, "--target", "label", "--positive", "none-such",
                        "--drop-missing"], capsys)
    assert code == 2 and "no label is one of ['none-such']" in err


def test_a_missing_solver_is_one_line_and_exit_2(monkeypatch, capsys):
    from optitrees.solvers.pyomo_backend import PyomoBackend

    monkeypatch.setattr(PyomoBackend, "available", lambda self: (False, f"not installed: {self.install_hint}"))
    code = main(["fit", "olct", "--dataset", "breast_cancer", "--max-depth", "1", "--solver", "glpk"])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "solver 'glpk' is not available" in err and "glpk-utils" in err


# ------------------------------------------------------------ what the command line writes is true
def _saved_tao(path, X, y):
    from optitrees import TAOClassifier
    from optitrees.persistence import save_model

    save_model(TAOClassifier(max_depth=2, random_state=0).fit(X, y), path)
    return path


def test_a_missing_feature_is_an_error_even_beside_a_text_column_its_name_begins_with(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"age_years": rng.normal(size=60), "height": rng.normal(size=60)})
    y = (X["age_years"] > 0).astype(int)
    model = _saved_tao(tmp_path / "model.json", X, y)
    data = tmp_path / "rows.csv"
    pd.DataFrame({"age": ["young", "old"] * 5, "height": rng.normal(size=10)}).to_csv(data, index=False)
    code, _, err = run(["predict", model, "--csv", data], capsys)
    assert code == 2 and "no column 'age_years'" in err and len(err.strip().splitlines()) == 1


def test_predictions_read_back_one_per_row_and_formulas_are_defused(tmp_path, capsys):
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=90), "b": rng.normal(size=90)})
    labels = np.array(["line\rbreak", "=HYPERLINK(\"http://x\")", "plain, \"quoted\""], dtype=object)
    y = labels[np.digitize(X["a"], [-0.4, 0.4])]
    model = _saved_tao(tmp_path / "model.json", X, y)
    data, out = tmp_path / "rows.csv", tmp_path / "predictions.csv"
    X.to_csv(data, index=False)
    code, _, err = run(["predict", model, "--csv", data, "--output", out], capsys)
    from optitrees.persistence import load_model

    expected = load_model(model).predict(X)
    read = pd.read_csv(out, keep_default_na=False)["prediction"]
    assert code == 0 and len(read) == len(X) == 90
    assert read.tolist() == ["'" + v if v.startswith("=") else v for v in expected]
    assert "begin like a spreadsheet formula" in err


def test_names_from_a_file_reach_the_terminal_escaped(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"age\n|--- class: fake": rng.normal(size=60), "\x1b[31mred": rng.normal(size=60)})
    y = np.where(X.iloc[:, 0] + X.iloc[:, 1] > 0, "yes\x1b[0m", "no")
    model = _saved_tao(tmp_path / "model.json", X, y)
    for argv in (["load", model], ["export", model, "--format", "text"], ["export", model, "--format", "sql"]):
        if argv[-1] == "sql":                             # SQL to a terminal is escaped; to a pipe it is exact
            code, piped, _ = run(argv, capsys)
            assert code == 0 and "\x1b" in piped
            monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
        code, out, _ = run(argv, capsys)
        assert code == 0 and "\x1b" not in out and "\\x1b" in out
        assert not any(line.lstrip("| ").startswith("|--- class: fake") for line in out.splitlines())


def test_a_too_deep_tree_or_a_bad_dtype_or_a_special_file_is_one_line_and_exit_2(tmp_path, capsys):
    from sklearn.datasets import load_iris

    from optitrees.persistence import to_json_dict
    from optitrees.trees import Tree

    X, y = load_iris(return_X_y=True)
    model = _saved_tao(tmp_path / "model.json", X, y)
    document = json.loads(model.read_text())
    bad_dtype = dict(document, fitted=dict(document["fitted"], classes_=dict(document["fitted"]["classes_"],
                                                                              dtype="<i8\n")))
    (tmp_path / "dtype.json").write_text(json.dumps(bad_dtype))
    from optitrees.persistence import load_model

    est = load_model(model)
    depth = 3000
    n = 2 * depth + 1
    left, right = np.full(n, -1), np.full(n, -1)
    left[0:2 * depth:2], right[0:2 * depth:2] = np.arange(1, n - 1, 2), np.arange(2, n, 2)
    weights = np.zeros((n, 4))
    weights[0:2 * depth:2, 0] = 1.0
    est.tree_ = Tree(children_left=left, children_right=right, weights=weights, threshold=np.zeros(n),
                     value=np.ones((n, 3)), label=np.zeros(n, int))
    (tmp_path / "deep.json").write_text(json.dumps(to_json_dict(est)))
    files = [tmp_path / "dtype.json", tmp_path / "deep.json"]
    files += ["/proc/self/pagemap"] if sys.platform.startswith("linux") else []
    for path in files:
        code, _, err = run(["load", path], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (path, err)
