"""Running a bench study through ``optitrees.study`` on one process and on a 2-worker Dask LocalCluster."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from optitrees.study import DataSource, Study, run_study

RESULTS = Path(__file__).resolve().parent / "results"
KEY = ["dataset", "seed", "model"]


def manifest_study(sets: dict, models, test_size: float, time_limit: float) -> Study:
    """A study of ``../shared/datasets`` entries (``{name: positive labels}``, one-hot features, rows with a
    missing feature dropped) x 5 seeds x ``models``."""
    from _data import SHARED

    data = tuple(DataSource(name, manifest=str(SHARED), one_hot=True, positive=tuple(pos), drop_missing=True)
                 for name, pos in sets.items())
    return Study(datasets=data, models=models, seeds=(0, 1, 2, 3, 4), test_size=test_size, cv=2,
                 time_limit=time_limit)


def gaps(table: pd.DataFrame, metric: str):
    """``(wide, gap)``: ``metric`` per instance (dataset, seed) x model, and each model's gap to the best."""
    wide = table.pivot_table(index=["dataset", "seed"], columns="model", values=metric)
    return wide, wide.max(axis=1).to_numpy()[:, None] - wide.to_numpy()


def draw(table: pd.DataFrame, accuracy: str, profiled: str, titles: tuple, path: Path):
    """The seed's three panels: the gap curve of ``accuracy``, the performance profiles of fit time and of
    ``profiled`` (lower is better; zeros count as 0.001)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from optitrees.study import plot_gap_curve, plot_performance_profile

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    plot_gap_curve(table, accuracy, ax=axes[0])
    plot_performance_profile(table, "fit_seconds", ax=axes[1])
    plot_performance_profile(table.assign(**{profiled: table[profiled].clip(lower=1e-3)}), profiled, ax=axes[2])
    for ax, title in zip(axes, titles):
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def print_wall(name: str, mode: str, fits: int):
    if wall(name, mode) is not None:
        print(f"\nwall time ({mode}): {wall(name, mode):.0f} s for {fits} fits")


def run(study, name: str, mode: str) -> float:
    """Run ``study`` from scratch into ``results/<name>_<mode>.csv``; write and return its wall time."""
    path = RESULTS / f"{name}_{mode}.csv"
    if path.exists():
        path.unlink()
    t0 = time.perf_counter()
    if mode == "local":
        run_study(study, path, n_jobs=1)
    else:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            run_study(study, path, client=client)
    wall = time.perf_counter() - t0
    (RESULTS / f"{name}_{mode}.wall").write_text(f"{wall:.1f}\n")
    return wall


def results_table(name: str, mode: str) -> pd.DataFrame:
    return pd.read_csv(RESULTS / f"{name}_{mode}.csv").sort_values(KEY).reset_index(drop=True)


def wall(name: str, mode: str):
    path = RESULTS / f"{name}_{mode}.wall"
    return float(path.read_text()) if path.exists() else None


def compare(name: str, metric: str):
    """How many fits gave the same ``metric`` on one process and on the cluster, and the two wall times."""
    a, b = results_table(name, "local"), results_table(name, "dask")
    same = (a[metric].round(12) == b[metric].round(12)).mean()
    print(f"\nwall time: one process {wall(name, 'local'):.0f} s, 2 Dask workers {wall(name, 'dask'):.0f} s "
          f"({wall(name, 'local') / wall(name, 'dask'):.2f}x) for {len(a)} fits")
    print(f"same {metric} in both runs: {same:.0%} of the fits (a fit stopped by its wall-clock limit may differ)")


def main(doc: str, name: str, study, summary, metric: str, time_limit: float):
    """The command line of a study bench: ``--time-limit``, ``--mode both|local|dask``, ``--summary-only``.

    ``study(time_limit)`` builds the study, ``summary(mode)`` prints and draws its results, ``metric`` is the
    column compared between the two runs.
    """
    import argparse

    from _data import require_shared

    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=time_limit)
    parser.add_argument("--mode", choices=("both", "local", "dask"), default="both")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    require_shared()
    modes = ("local", "dask") if args.mode == "both" else (args.mode,)
    for mode in modes:
        if not args.summary_only:
            print(f"{mode}: {run(study(args.time_limit), name, mode):.0f} s", flush=True)
        summary(mode)
    if len(modes) == 2:
        compare(name, metric)
