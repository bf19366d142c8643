import pytest

from optitrees.cli import main


def test_fit_prints_tree_status_and_accuracy(capsys):
    assert main(["fit", "--dataset", "breast_cancer", "--depth", "1", "--time-limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "P(malignant) = sigmoid(" in out and "solver: highs" in out and "test balanced accuracy: 0.9" in out
    assert "returned: " in out


def test_write_and_solvers(tmp_path, capsys):
    path = tmp_path / "olct.mps"
    assert main(["write", "--dataset", "breast_cancer", "--depth", "2", str(path)]) == 0
    assert path.stat().st_size > 0
    assert main(["solvers"]) == 0
    assert "highs    available" in capsys.readouterr().out


def test_bad_arguments():
    with pytest.raises(SystemExit):
        main(["fit"])


def test_fit_multiclass_oct_on_iris(capsys):
    assert main(["fit", "--dataset", "iris", "--model", "oct", "--depth", "2", "--alpha", "0.01",
                 "--min-samples-leaf", "3", "--time-limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "OCTClassifier depth 2" in out and "class: virginica" in out and "petal" in out


def test_write_margot_and_reject_multiclass(tmp_path, capsys):
    path = tmp_path / "margot.lp"
    assert main(["write", "--dataset", "breast_cancer", "--model", "margot", "--depth", "1", "--solver", "scip",
                 str(path)]) == 0
    text = path.read_text()
    assert "hinge(1,0)" in text and "+2 w(1,mean_radius) * w(1,mean_radius)" in text   # names; exact quadratic
    outer = tmp_path / "margot_outer.lp"
    assert main(["write", "--dataset", "breast_cancer", "--model", "margot", "--depth", "1", str(outer)]) == 0
    assert "square_cut_0(1,mean_radius)" in outer.read_text() and " * " not in outer.read_text()  # HiGHS's model
    with pytest.raises(SystemExit, match="use --model oct"):
        main(["write", "--dataset", "iris", "--model", "olct", str(tmp_path / "x.lp")])
