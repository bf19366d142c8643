"""Learners and heuristics that are not formulations.

==========================  ==============================================================
module                      what it holds
==========================  ==============================================================
:mod:`.budget`              the time budget of a whole fit, shared by its phases
:mod:`.node_fit`            per-node convex fits of loss-optimal trees and their objectives
:mod:`.greedy`              the greedy top-down start of loss-optimal trees
:mod:`.refine`              Remark 1: refit the last layer of a loss-optimal tree
:mod:`.cart`                CART and greedy oblique starts of OCT / OCT-H
:mod:`.risk_scores`         risk-score starts (rounded logistic, stumps, greedy rules), intercept refit
==========================  ==============================================================

A new learner that is not a MIP (local search, memetic search, C4.5, ...)
goes here, produces a :class:`~optitrees.trees.Tree`, and gets a thin
estimator in :mod:`optitrees.estimators`.
"""

from .budget import Budget, expired, remaining

__all__ = ["Budget", "expired", "remaining"]
