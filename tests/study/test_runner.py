"""The study runner: the right rows, resuming without refitting, the same table on a Dask cluster, TOML configs."""

import numpy as np
import pandas as pd
import pytest

from optitrees.study import (KEY, TIMING_COLUMNS, DataSource, ModelSpec, Study, load_config, plot_gap_curve,
                             plot_performance_profile, run_study, tasks)
from optitrees.study import _runner


def tiny_study():
    return Study(datasets=(DataSource("iris"), DataSource("breast_cancer")),
                 models=(ModelSpec("tao", "tao", {"max_depth": 2}, grid={"alpha": [0.0, 0.05]}),
                         ModelSpec("c45", "c45", standardize=True)),
                 seeds=(0, 1), cv=2, test_size=0.3)


def test_rows_and_resume_without_refitting(tmp_path, monkeypatch):
    results = tmp_path / "results.csv"
    calls = []
    run = _runner.run_task
    monkeypatch.setattr(_runner, "run_task", lambda task: calls.append(task.key) or run(task))
    table = run_study(tiny_study(), results, progress=False)
    assert len(calls) == 8 and len(table) == 8
    assert table[KEY].values.tolist() == [[d, s, m] for d in ("breast_cancer", "iris") for s in (0, 1)
                                          for m in ("c45", "tao")]
    tao = table[table.model == "tao"]
    assert set(tao.params) <= {'{"alpha": 0.0}', '{"alpha": 0.05}'} and tao.cv_score.notna().all()
    assert (table.train_rows + table.test_rows).tolist() == [569] * 4 + [150] * 4
    assert table.balanced_accuracy.between(0.5, 1).all() and table.auc[table.dataset == "breast_cancer"].gt(0.8).all()
    # interrupted: the last three rows were never written; the second run fits only those
    pd.read_csv(results, dtype={"fit_key": str}).iloc[:5].to_csv(results, index=False)
    calls.clear()
    again = run_study(tiny_study(), results, progress=False)
    assert len(calls) == 3 and again.drop(columns=TIMING_COLUMNS).equals(table.drop(columns=TIMING_COLUMNS))
    calls.clear()
    run_study(tiny_study(), results, progress=False)
    assert calls == []


def test_the_same_table_in_parallel_and_on_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    local = run_study(tiny_study(), tmp_path / "local.csv", progress=False).drop(columns=TIMING_COLUMNS)
    parallel = run_study(tiny_study(), tmp_path / "parallel.csv", n_jobs=2, progress=False)
    # one worker process: the tasks still travel to another interpreter and back (a second worker only imports
    # optitrees once more)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = run_study(tiny_study(), tmp_path / "dask.csv", client=client, progress=False)
    pd.testing.assert_frame_equal(local, parallel.drop(columns=TIMING_COLUMNS))
    pd.testing.assert_frame_equal(local, remote.drop(columns=TIMING_COLUMNS))


def test_toml_config_and_bad_studies(tmp_path):
    frame = pd.DataFrame({"a": np.arange(40) % 7, "b": np.arange(40) % 3, "y": (np.arange(40) % 7 > 3).astype(int)})
    frame.to_csv(tmp_path / "toy.csv", index=False)
    (tmp_path / "study.toml").write_text('''
[study]
seeds = [0, 1]
cv = 2
results = "out.csv"

[[datasets]]
csv = "toy.csv"
target = "y"

[[models]]
label = "tao-d1"
model = "tao"
params = { max_depth = 1 }
''')
    study, results = load_config(tmp_path / "study.toml")
    assert results == tmp_path / "out.csv" and study.seeds == (0, 1) and study.datasets[0].name == "toy.csv"
    assert len(tasks(study)) == 2
    from optitrees.cli import main

    assert main(["study", str(tmp_path / "study.toml"), "--quiet"]) == 0
    assert len(pd.read_csv(results)) == 2
    results.unlink()
    assert main(["study", str(tmp_path / "study.toml"), "--quiet", "--dask-workers", "2"]) == 0
    assert len(pd.read_csv(results)) == 2
    with pytest.raises(ValueError, match="a grid needs cv >= 2"):
        Study(datasets=(DataSource("iris"),), models=(ModelSpec("t", "tao", grid={"alpha": [0, 1]}),), cv=1)
    with pytest.raises(ValueError, match="distinct"):
        Study(datasets=(DataSource("iris"),), models=(ModelSpec("t", "tao"), ModelSpec("t", "c45")))
    with pytest.raises(ValueError, match="TAOClassifier has no parameters \\['depth'\\]"):
        ModelSpec("t", "tao", {"depth": 2}).estimator(0)
    (tmp_path / "bad.toml").write_text("[study\n")
    with pytest.raises(ValueError, match="is not TOML"):
        load_config(tmp_path / "bad.toml")


def test_profile_and_gap_figures_read_the_table():
    import matplotlib

    matplotlib.use("Agg")
    table = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "seed": [0, 0, 0, 0], "model": ["x", "y", "x", "y"],
                          "fit_seconds": [1.0, 2.0, 4.0, 2.0], "balanced_accuracy": [0.9, 0.8, 0.7, 0.75]})
    ax = plot_performance_profile(table)
    x_line = ax.get_lines()[0]
    assert x_line.get_ydata()[0] == 0.5 and x_line.get_ydata()[-1] == 1.0      # best on a; within 2x on b
    ax = plot_gap_curve(table)
    assert [line.get_label() for line in ax.get_lines()] == ["x", "y"]


def test_a_source_made_binary_and_sparsity_column(tmp_path):
    from optitrees.study import run_task, Task

    source = DataSource("iris", positive=("virginica",))
    X, y = source.load()
    assert sorted(set(y)) == [0, 1] and y.sum() == 50
    row = run_task(Task(source, ModelSpec("tao", "tao", {"max_depth": 2, "oblique": True}), 0, 0.3, 2, None))
    assert row["features_per_split"] >= 1 and 0 <= row["auc"] <= 1


def test_rows_with_missing_features_can_be_dropped(tmp_path):
    pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "y": [0, 1, 0, 1]}).to_csv(tmp_path / "m.csv", index=False)
    X, y = DataSource("m", csv=str(tmp_path / "m.csv"), target="y", drop_missing=True).load()
    assert X.tolist() == [[1.0], [3.0], [4.0]] and y.tolist() == [0, 0, 1]
