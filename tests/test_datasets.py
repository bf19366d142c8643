"""Dataset loaders: scikit-learn built-ins, CSV and LIBSVM files, manifests; each bad-file case."""

import pandas as pd
import pytest

from optitrees.datasets import load


def test_builtin_datasets_have_named_labels():
    X, y = load("breast_cancer")
    assert X.shape == (569, 30) and set(y) == {"malignant", "benign"} and y.name == "diagnosis"
    X, y = load("iris")
    assert X.shape == (150, 4) and set(y) == {"setosa", "versicolor", "virginica"}


def test_csv_with_and_without_target(tmp_path):
    path = tmp_path / "data.csv"
    pd.DataFrame({"a": [1, 2, 3], "label": ["x", "y", "x"], "b": [0.5, 0.1, 0.2]}).to_csv(path, index=False)
    X, y = load(csv=path, target="label")
    assert list(X.columns) == ["a", "b"] and y.tolist() == ["x", "y", "x"]
    X, y = load(csv=path, one_hot=True)
    assert list(X.columns) == ["a", "label_x", "label_y"] and y.name == "b"
    with pytest.raises(ValueError, match="has no column 'nope'"):
        load(csv=path, target="nope")


def test_bad_requests():
    with pytest.raises(ValueError, match="exactly one"):
        load()
    with pytest.raises(ValueError, match="unknown dataset"):
        load("mnist")


# ---------------------------------------------------------------- files: CSV, LIBSVM, manifests, bad files
import gzip  # noqa: E402
import json  # noqa: E402

from optitrees.datasets import DataFileError, load_csv, load_libsvm, load_manifest  # noqa: E402


def test_bundled_sets_by_name():
    X, y = load("wine")
    assert X.shape == (178, 13) and y.name == "cultivar" and len(set(y)) == 3
    X, y = load("diabetes")
    assert X.shape == (442, 10) and y.dtype.kind == "f"


def test_gzipped_csv_and_one_hot(tmp_path):
    path = tmp_path / "data.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("colour,size,label\nred,1.5,yes\nblue,2.0,no\nred,0.5,no\n")
    with pytest.raises(DataFileError, match=r"data.csv.gz: column 'colour' is not numeric \(e.g. 'red'\)"):
        load_csv(path, target="label")
    X, y = load_csv(path, target="label", one_hot=True)
    assert list(X.columns) == ["size", "colour_blue", "colour_red"] and X["colour_red"].tolist() == [1, 0, 1]
    assert y.tolist() == ["yes", "no", "no"]


def test_bad_csv_files_name_the_file_and_the_line(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataFileError, match="empty.csv is empty"):
        load_csv(empty)
    header = tmp_path / "header.csv"
    header.write_text("a,b\n")
    with pytest.raises(DataFileError, match="header.csv has a header but no data rows"):
        load_csv(header)
    long_row = tmp_path / "long.csv"
    long_row.write_text("a,b,y\n1,2,0\n1,2,0,9\n")
    with pytest.raises(DataFileError, match="long.csv: Expected 3 fields in line 3, saw 4"):
        load_csv(long_row)
    short_row = tmp_path / "short.csv"
    short_row.write_text("a,b,y\n1,2,0\n3,1\n4,4,1\n")
    with pytest.raises(DataFileError, match="short.csv, line 3: 2 fields where the header has 3"):
        load_csv(short_row)
    missing_cell = tmp_path / "gap.csv"              # an empty cell is a missing value, not a ragged row
    missing_cell.write_text("a,b,y\n1,,0\n3,1,1\n")
    X, _ = load_csv(missing_cell)
    assert X["b"].isna().tolist() == [True, False]
    with pytest.raises(DataFileError, match="gap.csv has no column 'label'; its columns: a, b, y"):
        load_csv(missing_cell, target="label")
    no_label = tmp_path / "nolabel.csv"
    no_label.write_text("a,y\n1,0\n2,\n")
    with pytest.raises(DataFileError, match="nolabel.csv, line 3: the target column 'y' is empty"):
        load_csv(no_label)
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_csv(tmp_path / "absent.csv")


def test_libsvm_plain_and_gzip(tmp_path):
    text = "+1 1:0.5 3:1\n-1 2:2.5\n+1 3:-1 # a comment\n"
    plain = tmp_path / "a.libsvm"
    plain.write_text(text)
    zipped = tmp_path / "a.libsvm.gz"
    with gzip.open(zipped, "wt") as f:
        f.write(text)
    for path in (plain, zipped):
        X, y = load_libsvm(path)
        assert list(X.columns) == ["x1", "x2", "x3"]
        assert X.to_numpy().tolist() == [[0.5, 0, 1], [0, 2.5, 0], [0, 0, -1]] and y.tolist() == [1, -1, 1]
    bad = tmp_path / "bad.libsvm"
    bad.write_text("+1 1:0.5\n-1 2:abc\n")
    with pytest.raises(DataFileError, match=r"bad.libsvm, line 2: not 'label index:value ...': '-1 2:abc'"):
        load_libsvm(bad)
    empty = tmp_path / "empty.libsvm"
    empty.write_text("")
    with pytest.raises(DataFileError, match="empty"):
        load_libsvm(empty)


def test_manifest_directory(tmp_path):
    pd.DataFrame({"f": [1.0, 2.0, 3.0], "g": ["u", "v", "u"], "target": [0, 1, 0]}).to_csv(
        tmp_path / "toy.csv.gz", index=False)
    (tmp_path / "svm.txt").write_text("1 1:1\n0 1:2\n")
    (tmp_path / "MANIFEST.json").write_text(json.dumps([{"name": "toy", "file": "toy.csv.gz", "task": "binary"},
                                                        {"name": "svm", "file": "svm.txt", "format": "libsvm"}]))
    X, y = load_manifest(tmp_path, "toy", one_hot=True)
    assert list(X.columns) == ["f", "g_u", "g_v"] and y.tolist() == [0, 1, 0]
    X, y = load(name="svm", manifest=tmp_path / "MANIFEST.json")
    assert X.shape == (2, 1)
    with pytest.raises(ValueError, match="no dataset 'nope' .* it has: svm, toy"):
        load_manifest(tmp_path, "nope")


def test_the_shared_manifest_when_present():
    from _support import SHARED_DATASETS as shared

    if not (shared / "MANIFEST.json").exists():
        pytest.skip("../shared/datasets is not beside the repository")
    X, y = load_manifest(shared, "haberman")
    assert len(X) == len(y) > 200
