"""Figures of a study's table: performance profiles and cumulative gap curves (seed 002's definitions)."""

from __future__ import annotations


from ..evaluation import cumulative_gap, performance_profile

__all__ = ["instance_matrix", "plot_performance_profile", "plot_gap_curve"]


def instance_matrix(table, metric: str):
    """``(values[instance, model], models)``: one row per (dataset, seed), one column per model."""
    wide = table.pivot_table(index=["dataset", "seed"], columns="model", values=metric, aggfunc="first")
    return wide.to_numpy(float), list(wide.columns)


def plot_performance_profile(table, metric: str = "fit_seconds", ax=None):
    """Dolan-More profile of ``metric`` (lower is better, e.g. fit seconds): the share of instances on which
    each model is within a factor tau of the best (:func:`optitrees.evaluation.performance_profile`)."""
    from ..export._plot import _pyplot

    values, models = instance_matrix(table, metric)
    taus, rho = performance_profile(values)
    ax = ax or _pyplot().subplots(figsize=(5, 3.5))[1]
    for k, model in enumerate(models):
        ax.step(taus, rho[:, k], where="post", label=model)
    ax.set_xscale("log")
    ax.set_xlabel("tau (ratio to the best)")
    ax.set_ylabel("share of instances")
    ax.set_ylim(0, 1.02)
    ax.legend()
    return ax


def plot_gap_curve(table, metric: str = "balanced_accuracy", ax=None):
    """Cumulative gap curve of ``metric`` (higher is better): the share of instances on which each model is
    within t of the best (seed 002, Figure 3.9a; :func:`optitrees.evaluation.cumulative_gap`)."""
    from ..export._plot import _pyplot

    values, models = instance_matrix(table, metric)
    thresholds, fraction = cumulative_gap(values)
    ax = ax or _pyplot().subplots(figsize=(5, 3.5))[1]
    for k, model in enumerate(models):
        ax.plot(thresholds, fraction[:, k], label=model)
    ax.set_xlabel(f"gap to the best {metric.replace('_', ' ')}")
    ax.set_ylabel("share of instances")
    ax.set_ylim(0, 1.02)
    ax.legend()
    return ax
