"""Studies of many fits: datasets x seeds x models (with cross-validated grids), run in parallel processes or on a
Dask cluster, results written as each fit finishes and resumed after an interruption.

>>> from optitrees.study import DataSource, ModelSpec, Study, run_study
>>> study = Study(datasets=(DataSource("iris"),), models=(ModelSpec("tao", "tao", {"max_depth": 2}),), seeds=(0, 1))
>>> import tempfile, os
>>> table = run_study(study, os.path.join(tempfile.mkdtemp(), "results.csv"), progress=False)
>>> table[["dataset", "seed", "model"]].values.tolist()
[['iris', 0, 'tao'], ['iris', 1, 'tao']]
"""

from ._figures import instance_matrix, plot_gap_curve, plot_performance_profile
from ._results import COLUMNS, ResultsFileError, StudyLockedError
from ._runner import KEY, TIMING_COLUMNS, Task, run_study, run_task, tasks
from ._spec import DataSource, ModelSpec, Study, load_config

__all__ = ["DataSource", "ModelSpec", "Study", "load_config", "run_study", "run_config", "run_task", "tasks", "Task",
           "KEY", "TIMING_COLUMNS", "COLUMNS", "ResultsFileError", "StudyLockedError", "plot_performance_profile",
           "plot_gap_curve", "instance_matrix"]


def run_config(path, n_jobs: int = 1, client=None, progress: bool = True):
    """Run the study of a TOML file (:func:`load_config`); its results go to the file's ``results`` CSV."""
    study, results = load_config(path)
    return run_study(study, results, n_jobs=n_jobs, client=client, progress=progress)
