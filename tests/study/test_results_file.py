"""A study's results cannot go stale or corrupt: rows keyed by everything that decided them, the configuration
checked on every run, a cut line found, one schema for every model, one study per file, workers that end with
the study, and the native searches (OCT's ConTree) on a Dask cluster."""

import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import pandas as pd
import pytest

from optitrees.study import (COLUMNS, DataSource, ModelSpec, ResultsFileError, Study, StudyLockedError, run_study)
from optitrees.study import _runner
from optitrees.study._results import ResultsFile


def study(depth=2, **data):
    return Study(datasets=(DataSource("iris", **data),), models=(ModelSpec("tao", "tao", {"max_depth": depth}),
                                                                ModelSpec("c45", "c45")),
                 seeds=(0,), test_size=0.3)


@pytest.fixture
def counted(monkeypatch):
    calls = []
    run = _runner.run_task
    monkeypatch.setattr(_runner, "run_task", lambda task: calls.append(task.key) or run(task))
    return calls


def test_a_changed_parameter_refits_under_the_same_label(tmp_path, counted):
    results = tmp_path / "results.csv"
    first = run_study(study(depth=1), results, progress=False)
    with pytest.warns(UserWarning, match="1 row\\(s\\) were fitted under other settings.*iris, seed 0, tao"):
        second = run_study(study(depth=3), results, progress=False)
    assert counted == [("iris", 0, "tao"), ("iris", 0, "c45"), ("iris", 0, "tao")]
    tao = [t[t.model == "tao"].iloc[0] for t in (first, second)]
    assert tao[0].fit_key != tao[1].fit_key and len(second) == 2
    assert second[second.model == "c45"].fit_key.tolist() == first[first.model == "c45"].fit_key.tolist()
    assert len(pd.read_csv(results)) == 3                  # the depth-1 row is kept in the file, not returned
    counted.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_study(study(depth=3), results, progress=False)
        run_study(study(depth=1), results, progress=False)         # back to depth 1: its row is found again
    assert counted == []


def test_changed_data_refit(tmp_path, counted):
    results = tmp_path / "results.csv"
    run_study(study(), results, progress=False)
    with pytest.warns(UserWarning, match="other settings"):
        run_study(study(positive=("virginica",)), results, progress=False)
    assert len(counted) == 4


def test_the_configuration_is_checked_when_every_row_is_done(tmp_path, counted):
    results = tmp_path / "results.csv"
    csv = tmp_path / "toy.csv"
    pd.DataFrame({"a": range(30), "y": [0, 1, 2] * 10}).to_csv(csv, index=False)
    toy = DataSource("toy", csv=str(csv), target="y")
    run_study(Study(datasets=(toy,), models=(ModelSpec("c45", "c45"),)), results, progress=False)
    with pytest.raises(ValueError, match="unknown model 'c4.5'"):
        run_study(Study(datasets=(toy,), models=(ModelSpec("c45", "c4.5"),)), results, progress=False)
    with pytest.raises(ValueError, match="no parameters \\['depth'\\]"):
        run_study(Study(datasets=(toy,), models=(ModelSpec("c45", "c45", {"depth": 2}),)), results, progress=False)
    csv.unlink()
    with pytest.raises(Exception, match="toy.csv"):
        run_study(Study(datasets=(toy,), models=(ModelSpec("c45", "c45"),)), results, progress=False)
    assert len(counted) == 1


def test_a_cut_last_line_is_dropped_and_refitted(tmp_path, counted):
    results = tmp_path / "results.csv"
    table = run_study(study(), results, progress=False)
    data = results.read_bytes()
    results.write_bytes(data[:-20])                        # killed while writing its last row
    counted.clear()
    with pytest.warns(UserWarning, match="last line was cut"):
        again = run_study(study(), results, progress=False)
    assert len(counted) == 1 and len(again) == 2
    pd.testing.assert_frame_equal(again.drop(columns=["fit_seconds", "search_seconds"]),
                                  table.drop(columns=["fit_seconds", "search_seconds"]))
    assert results.read_bytes().count(b"\n") == 3 and results.read_bytes().endswith(b"\n")


def test_a_file_of_another_layout_or_with_a_broken_row_is_refused(tmp_path):
    results = tmp_path / "results.csv"
    results.write_text("dataset,seed,model,accuracy\niris,0,tao,0.9\n")
    with pytest.raises(ResultsFileError, match="columns"):
        run_study(study(), results, progress=False)
    results.write_text(",".join(COLUMNS) + "\n" + ",".join(["x"] * (len(COLUMNS) + 1)) + "\n")
    with pytest.raises(ResultsFileError, match="line 2: 20 fields"):
        run_study(study(), results, progress=False)


def test_one_schema_for_a_rule_set_a_tree_and_a_regressor(tmp_path):
    results = tmp_path / "results.csv"
    mixed = Study(datasets=(DataSource("breast_cancer"),),
                  models=(ModelSpec("rules", "rule-set", {"n_estimators": 5, "n_rules": 3}),
                          ModelSpec("tao", "tao", {"max_depth": 1})), test_size=0.3)
    run_study(mixed, results, progress=False)
    run_study(Study(datasets=(DataSource("diabetes"),), models=(ModelSpec("cart", "cart-regressor",
                                                                          {"max_depth": 2}),)),
              results, progress=False)
    table = pd.read_csv(results)
    assert list(table.columns) == COLUMNS and len(table) == 3
    assert table.features_per_split.isna().tolist() == [True, False, False]
    assert table.r2.notna().tolist() == [False, False, True]


def test_two_studies_cannot_write_one_file(tmp_path):
    results = tmp_path / "results.csv"
    with ResultsFile(results) as held:
        held.open()
        with pytest.raises(StudyLockedError, match="another study is writing"):
            run_study(study(), results, progress=False)
    assert len(run_study(study(), results, progress=False)) == 2      # the lock ends with the other study


def _descendants(pid):
    found, todo = [], [pid]
    while todo:
        here = todo.pop()
        try:
            with open(f"/proc/{here}/task/{here}/children") as fh:
                kids = [int(k) for k in fh.read().split()]
        except OSError:
            kids = []
        found += kids
        todo += kids
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
                    reason="reads the process tree from Linux's /proc")
def test_workers_end_when_the_study_is_killed(tmp_path):
    script = textwrap.dedent(f"""
        from optitrees.study import DataSource, ModelSpec, Study, run_study
        slow = ModelSpec("tmo", "tmo", {{"max_depth": 3, "n_estimators": 400, "n_generations": 400}})
        study = Study(datasets=(DataSource("breast_cancer"),), models=(slow,), seeds=(0, 1, 2, 3))
        run_study(study, {str(tmp_path / 'results.csv')!r}, n_jobs=2, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        waited = time.monotonic()
        workers = []
        while len(workers) < 2 and time.monotonic() - waited < 120:
            time.sleep(0.2)
            workers = [p for p in _descendants(proc.pid) if _alive(p)]
        assert len(workers) >= 2, "the study started no workers"
        time.sleep(1.0)
        workers = [p for p in _descendants(proc.pid) if _alive(p)]
        assert proc.poll() is None and len(workers) >= 2        # killed while its fits run
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # the workers look for their study every 0.25 s; 20 s is room for a loaded machine
        waited = time.monotonic()
        while any(_alive(p) for p in workers) and time.monotonic() - waited < 20:
            time.sleep(0.2)
        assert not any(_alive(p) for p in workers)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_oct_runs_on_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    exact = Study(datasets=(DataSource("iris"),), models=(ModelSpec("oct", "oct", {"max_depth": 1}),),
                  time_limit=30)
    local = run_study(exact, tmp_path / "local.csv", progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = run_study(exact, tmp_path / "dask.csv", client=client, progress=False)
    assert remote.outcome.tolist() == local.outcome.tolist() and remote.accuracy.tolist() == local.accuracy.tolist()


def test_two_labels_of_the_same_model_keep_a_row_each(tmp_path, counted):
    twins = Study(datasets=(DataSource("iris"),), models=(ModelSpec("a", "tao", {"max_depth": 1}),
                                                          ModelSpec("b", "tao", {"max_depth": 1})))
    table = run_study(twins, tmp_path / "results.csv", progress=False)
    assert table.model.tolist() == ["a", "b"] and len(counted) == 2 and table.fit_key.nunique() == 2


def test_labels_that_read_as_one_number_stay_two_models(tmp_path):
    twins = Study(datasets=(DataSource("iris"),), models=(ModelSpec("1e3", "tao", {"max_depth": 1}),
                                                          ModelSpec("1000", "tao", {"max_depth": 2})))
    table = run_study(twins, tmp_path / "results.csv", progress=False)
    assert sorted(table.model.tolist()) == ["1000", "1e3"] and table.fit_key.nunique() == 2
    assert table.groupby("model").size().tolist() == [1, 1]


def test_repeated_seeds_are_refused():
    with pytest.raises(ValueError, match="seeds must be distinct"):
        Study(datasets=(DataSource("iris"),), models=(ModelSpec("tao", "tao"),), seeds=(0, 0))


def test_the_key_holds_every_deciding_version_and_labels_cannot_collide(monkeypatch, tmp_path):
    task = _runner.tasks(study())[0]
    before = task.fit_key("digest")
    versions = dict(_runner.library_versions())
    assert {"optitrees", "numpy", "scikit-learn", "highspy"} <= set(versions)
    monkeypatch.setattr(_runner, "library_versions", lambda: dict(versions, **{"scikit-learn": "0.0"}))
    assert task.fit_key("digest") != before
    # the data's digest: labels holding the old separator, and a number against its text, differ
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    pd.DataFrame({"x": [1.0, 2.0], "y": ["p\x1fq", "r"]}).to_csv(a, index=False)
    pd.DataFrame({"x": [1.0, 2.0], "y": ["p", "q\x1fr"]}).to_csv(b, index=False)
    assert DataSource("a", csv=str(a)).digest() != DataSource("a", csv=str(b)).digest()


def test_a_fifo_as_the_results_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "results.csv"
    os.mkfifo(fifo)
    with pytest.raises(ResultsFileError, match="not a regular file"):
        run_study(study(), fifo, progress=False)
