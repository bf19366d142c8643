"""Learners and heuristics that are not formulations, one sub-package per family.

=========================  ==================================================================
shared modules             what they hold
=========================  ==================================================================
:mod:`.forked`             a native search run in a forked child stopped at a deadline
:mod:`.column_index`       the training columns ranked once, the rows and cuts of each node
:mod:`.fixed_tree`         a complete tree as breadth-first arrays (TAO and TMO's working form)
:mod:`.node_fit`           per-node convex fits (logistic, SVM) and their objectives
:mod:`.forest`             a random forest grown within a deadline (TMO's population, rule pools)
:mod:`.fold_search`        settings chosen on held-out folds within a fit's deadline
=========================  ==================================================================

=========================  ==================================================================
families                   what they hold
=========================  ==================================================================
:mod:`.oct`                CART and greedy oblique starts of OCT / OCT-H, ConTree's exact search
:mod:`.loss_optimal`       the greedy start, TAO on the exact objective, Remark 1's refit
:mod:`.local_search`       TAO and TMO of label trees
:mod:`.c45`                C4.5 induction, split search, pessimistic pruning
:mod:`.uct_dt`             Monte Carlo tree search over decision trees
:mod:`.risk_scores`        risk-score starts and the beam search of cards
:mod:`.rules`              rules of a forest and their LASSO selection
:mod:`.contextual`         the policy network of contextual trees and its bandit training
:mod:`.regression`         regression trees: t-test pruning, TAO, STreeD's optimal trees
=========================  ==================================================================

A new learner that is not a MIP goes into its family's sub-package (or a new
one), produces a :class:`~optitrees.trees.Tree`, and gets a thin estimator in
:mod:`optitrees.estimators`. Modules import the shared ones and their own
family's; a family imports another only for its start (TMO grows greedy
loss-optimal trees, CART's oblique start fits nodes as loss-optimal trees do).
"""

__all__: list[str] = []
