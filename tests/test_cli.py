import pytest

from optitrees.cli import main


def test_fit_prints_tree_status_and_accuracy(capsys):
    assert main(["fit", "--dataset", "breast_cancer", "--depth", "1", "--time-limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "node 1" in out and "solver: highs" in out and "test balanced accuracy: 0.9" in out


def test_write_and_solvers(tmp_path, capsys):
    path = tmp_path / "olct.mps"
    assert main(["write", "--dataset", "breast_cancer", "--depth", "2", str(path)]) == 0
    assert path.stat().st_size > 0
    assert main(["solvers"]) == 0
    assert "highs    available" in capsys.readouterr().out


def test_bad_arguments():
    with pytest.raises(SystemExit):
        main(["fit"])
