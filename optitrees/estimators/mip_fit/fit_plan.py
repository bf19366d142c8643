"""The plan of a MIP fit, decided before any stage runs: which stages run for this family, size and backend, and the
share of the time limit each may use (:class:`FitPlan`, ``fit_report_.plan``; the seconds each took are
``fit_report_.stages``).

One function decides it (:func:`plan_fit`) from what the fit is asked (:class:`~.settings.FitSettings`: its shares,
its starts, a user's constraints or a parity constraint) and the data (its rows); :class:`~.pipeline.MIPFit` reads
every ``runs`` and ``share`` from it. What the plan cannot know before the fit, it names as a condition in the
stage's ``why``: whether the backend can get the full MIP past its root in its time (the reduce stage, after the
presolve) and whether an exact search proves the optimum first.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ...budget import UNLIMITED_START_SECONDS
from .settings import FitSettings

__all__ = ["Stage", "PlannedStage", "FitPlan", "plan_fit", "MIN_ROUND_SECONDS"]

#: The shortest neighbourhood round worth starting (a solve set up in less would not get past HiGHS's root): the
#: plan runs the rounds only where their share of the solve's planned time gives one round at least this.
MIN_ROUND_SECONDS = 1.0


class Stage(Enum):
    """The stages of a MIP fit a plan decides, by the name ``fit_report_.stages`` gives their seconds under."""

    PRESOLVE = "presolve"                     # reported under the estimator's own name (FitSettings.presolve_stage)
    STARTS = "starts"
    START_REFINEMENT = "start refinement"
    BOUND = "bound"
    NEIGHBOURHOOD = "neighbourhood search"
    SOLVE = "solve"
    RESERVE = "reserve"


@dataclass(frozen=True)
class PlannedStage:
    """One stage of the plan.

    Attributes
    ----------
    name : str
        Its name in ``fit_report_.stages``.
    runs : bool
    share : float or None
        The most it may use: a share of the whole time limit counted from when it begins (the neighbourhood rounds:
        of the solve's time; the solve: the least it gets, all that the stages before it leave); ``None``: no share
        applies (no time limit, or the stage does not run).
    why : str
        Why it runs or not, and on what it still depends.
    """

    name: str
    runs: bool
    share: float | None
    why: str


@dataclass(frozen=True)
class FitPlan:
    """The stages of one fit, in the order they run (:func:`plan_fit`)."""

    stages: tuple[PlannedStage, ...]

    def __getitem__(self, stage: Stage) -> PlannedStage:
        return self.stages[list(Stage).index(stage)]

    def runs(self, stage: Stage) -> bool:
        return self[stage].runs

    def share(self, stage: Stage) -> float:
        """The share of ``stage`` (0 where it does not run or has none)."""
        planned = self[stage]
        return planned.share if planned.runs and planned.share is not None else 0.0

    def as_report(self) -> dict:
        """``{name: {"runs", "share", "why"}}``, as ``fit_report_.plan`` keeps it."""
        return {s.name: {"runs": s.runs, "share": s.share, "why": s.why} for s in self.stages}


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def plan_fit(settings: FitSettings, time_limit: float | None) -> FitPlan:
    """The plan of a fit of ``settings`` within ``time_limit`` seconds (``None``: none).

    The rules, one per stage:

    * **presolve** (the estimator's held-out choices, e.g. ``max_features="auto"``): its share is the estimator's
      (``FitSettings.presolve_share``, which the estimator sets from its parameters and the training rows: 0 where
      it has nothing to choose, or too few rows to choose on);
    * **starts**: the greedy one always; TAO / TMO as ``warm_start`` asks, within ``Shares.starts`` (or
      ``tmo_starts``) of the limit, or of ``UNLIMITED_START_SECONDS`` without one;
    * **start refinement**: with more than the greedy start and no user constraints (a start that satisfies them
      stays the start), within ``Shares.start_refinement``;
    * **bound**: where the family has its own lower bound, within ``Shares.bound``;
    * **neighbourhood rounds**: with a time limit, a start handed to the solver, a share for them and a MIP that may
      see some rows only (no user constraints, no parity constraint), ``Shares.neighbourhood`` of the solve's time;
    * **solve**: what the stages before it leave, less the reserve;
    * **reserve**: ``Shares.reserve`` of the limit (at least ``min(1 s, limit / 4)``) for polishing, decoding, the
      refinement and the report.

    >>> from optitrees.formulations.oct.solution import OCT_FAMILY
    >>> plan = plan_fit(FitSettings("OCTClassifier", OCT_FAMILY, "highs", start_methods=("greedy", "tao")), 10.0)
    >>> plan.runs(Stage.STARTS), plan.share(Stage.STARTS), plan.runs(Stage.START_REFINEMENT)
    (True, 0.25, True)
    """
    shares, methods = settings.shares, settings.start_methods
    limited = time_limit is not None
    presolve_share = float(settings.presolve_share)
    searched = tuple(m for m in methods if m != "greedy")
    stages = [
        PlannedStage(settings.presolve_stage, presolve_share > 0, presolve_share if presolve_share > 0 else None,
                     settings.presolve_why or ("the estimator has nothing to choose before the MIP"
                                               if presolve_share <= 0 else "the estimator's choice before the MIP")),
        PlannedStage(Stage.STARTS.value, True, shares.of_starts(methods),
                     (f"the greedy start, then {' and '.join(m.upper() for m in searched)}" if searched else
                      "the greedy start only (warm_start asks for no other)")
                     + f", within {_percent(shares.of_starts(methods))} of the "
                     + ("limit" if limited else f"starts' own bound of {UNLIMITED_START_SECONDS:g} s")
                     + (f"; all but {_percent(shares.after_starts)} of the limit where the backend puts the MIP "
                        "out of reach" if limited else "")),
    ]
    refines = shares.start_refinement > 0 and settings.constraints is None and bool(searched)
    stages.append(PlannedStage(Stage.START_REFINEMENT.value, refines, shares.start_refinement if refines else None,
                               "the best start refined on every row" if refines else
                               "off: " + ("a user's constraints keep the start as it is" if settings.constraints
                                          is not None else "only the greedy start runs" if not searched else
                                          "its share is 0")))
    bound = settings.family.lower_bound is not None
    stages.append(PlannedStage(Stage.BOUND.value, bound, shares.bound if bound else None,
                               "the family's own lower bound" if bound else "off: the family has no bound of its own"))
    before = presolve_share + (shares.of_starts(methods) if searched else 0.0) \
        + (shares.start_refinement if refines else 0.0) + (shares.bound if bound else 0.0)
    solve_share = max(0.0, 1.0 - before - shares.reserve) if limited else None
    round_seconds = None if not limited else shares.neighbourhood * solve_share * time_limit
    rounds = shares.neighbourhood > 0 and limited and settings.hand_start and not settings.whole_model \
        and round_seconds >= MIN_ROUND_SECONDS
    stages.append(PlannedStage(
        Stage.NEIGHBOURHOOD.value, rounds, shares.neighbourhood if rounds else None,
        f"MIP rounds near the best start, {_percent(shares.neighbourhood)} of the solve's time, where the family's "
        "MIP routes rows (a tree)" if rounds else "off: " + (
            "no time limit" if not limited else "no start is handed to the solver" if not settings.hand_start else
            "the MIP must see every row (a user's constraints or a parity constraint)" if settings.whole_model else
            "its share is 0" if shares.neighbourhood <= 0 else
            f"their share of the solve's planned {solve_share * time_limit:.2g} s is shorter than one round "
            f"({MIN_ROUND_SECONDS:g} s)")))
    first = "unless an exact search of the family proves the optimum first"
    stages.append(PlannedStage(Stage.SOLVE.value, True, solve_share,
                               f"the full MIP until the limit less the reserve, {first}, or the backend cannot get "
                               "past its root in that time (then representative rows, or the starts' model)"
                               if limited and settings.constraints is None else
                               f"the full MIP{'' if limited else ' without a time limit'}, {first}"))
    stages.append(PlannedStage(Stage.RESERVE.value, limited, shares.reserve if limited else None,
                               "kept for polishing, decoding, the refinement and the report" if limited else
                               "no time limit"))
    return FitPlan(tuple(stages))
