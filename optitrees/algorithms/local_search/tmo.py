"""Tree Memetic Optimization (seed 002, 3.3, Algorithm 3): a genetic search whose offspring are improved by TAO.

The population is the ``k`` trees of a random forest of depth ``d``, each
improved by TAO. Each generation draws a bootstrap sample ``B``; for every tree
``t_i`` a partner ``t_j`` (``j != i``, uniform) is drawn and the offspring takes,
node by node, ``t_j``'s node with probability ``CR`` and ``t_i``'s otherwise; it is
optimized by TAO on ``B`` and replaces ``t_i`` when its fitness (training
accuracy) is higher; the best tree ever seen is returned. With a deadline the
population is sized to the budget: it grows for ``1 / (1 + G)`` of the time
left (to two individuals at least while the search has time: a generation
needs a partner), so the ``G`` generations (one TAO run per individual each,
as many as making the population) fit in the rest.

Encoding (the seed's): a tree of depth ``d`` is the list of its ``2^d - 1``
positions above the last level in breadth-first order, a split as
``(feature, threshold)``, a leaf as :data:`LEAF` ``(-1, -1)``, a missing node as
:data:`NIL`. Decoding repairs the structures crossover can produce
(Figures 3.11-3.14): a split under a leaf or a missing node makes its parent a
split with random parameters, and a missing sibling a leaf (*nil/branch*);
then, top-down, a split with a missing child becomes a leaf (*branch/nil*)
unless its other child is a split (then the missing child becomes a leaf),
and everything under a leaf is missing. Leaves take the majority class.

The loss-optimal variant evolves complete loss-optimal trees: the population
is greedy trees grown on bootstrap samples and random halves of the features
(bagging and random subspaces, as the forest does), the genes are the inner
nodes' hyperplanes, TAO is :func:`~optitrees.algorithms.loss_optimal.tao_loss_optimal.tao_loss_optimal`,
and the fitness is the exact training objective.

Algorithm 3 updates the population in place, so offspring ``i`` may depend on
a partner replaced earlier in the same generation. With ``n_jobs > 1`` the
offspring of a generation are computed in parallel from the population at the
start of the generation and those whose partner has since been replaced are
recomputed, which gives exactly the sequential result.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ...trees import Tree
from ...budget import expired
from ..fixed_tree import FixedTree
from ..forest import grow_forest
from ..column_index import ColumnIndex
from .tao import tao_label_tree

__all__ = ["tmo_label_tree", "tmo_loss_optimal", "encode", "decode", "crossover", "LEAF", "NIL"]

LEAF = (-1, -1.0)
NIL = None


def encode(tree: Tree, depth: int) -> list:
    """The seed's fixed-length encoding of an axis-aligned tree: ``2^depth - 1`` entries in breadth-first order."""
    code = [NIL] * (2**depth - 1)
    stack = [(0, 1)]
    feature = tree.feature
    while stack:
        node, pos = stack.pop()
        if pos > len(code):
            continue
        if tree.is_leaf[node]:
            code[pos - 1] = LEAF
            continue
        code[pos - 1] = (int(feature[node]), float(tree.threshold[node]))
        stack += [(tree.children_left[node], 2 * pos), (tree.children_right[node], 2 * pos + 1)]
    return code


def crossover(a: list, b: list, cross_rate: float, rng) -> list:
    """Node-wise crossover: each entry from ``b`` with probability ``cross_rate``, else from ``a``."""
    take = rng.random(len(a)) < cross_rate
    return [bj if t else ai for ai, bj, t in zip(a, b, take)]


def _is_split(entry):
    return entry is not NIL and entry != LEAF


def decode(code: list, X, y, n_classes: int, rng, allowed=None, sample_weight=None) -> FixedTree:
    """A :class:`FixedTree` from an encoding, repaired as the module docstring says; leaves get majority labels
    (by total ``sample_weight`` when given)."""
    code = list(code)
    S = len(code)
    cols = np.arange(X.shape[1]) if allowed is None else np.flatnonzero(allowed)
    for pos in range(S, 1, -1):                            # nil/branch: a split needs a split above it
        parent, sibling = pos // 2, pos ^ 1
        if _is_split(code[pos - 1]) and not _is_split(code[parent - 1]):
            j = int(rng.choice(cols))
            code[parent - 1] = (j, float(X[rng.integers(len(X)), j]))
            if code[sibling - 1] is NIL:
                code[sibling - 1] = LEAF
    for pos in range(1, S + 1):                            # branch/nil and branch/leaf, top-down
        entry = code[pos - 1]
        kids = [k for k in (2 * pos, 2 * pos + 1) if k <= S]
        if _is_split(entry) and any(code[k - 1] is NIL for k in kids):
            if any(_is_split(code[k - 1]) for k in kids):  # a split child keeps the node: the missing one is a leaf
                for k in kids:
                    code[k - 1] = LEAF if code[k - 1] is NIL else code[k - 1]
            else:
                code[pos - 1] = entry = LEAF
        if not _is_split(entry):
            for k in kids:
                code[k - 1] = NIL
    p = X.shape[1]
    W = np.zeros((S, p))
    thr = np.zeros(S)
    active = np.array([_is_split(e) for e in code])
    for pos in np.flatnonzero(active):
        j, tau = code[pos]
        W[pos, j], thr[pos] = 1.0, tau
    ft = FixedTree(W, thr, active, np.zeros(S), np.zeros(S + 1, np.int64))
    leaf = ft.leaf_of(X)
    counts = np.zeros((S + 1, n_classes))
    np.add.at(counts, (leaf, y), 1.0 if sample_weight is None else sample_weight)
    ft.leaf_label[:] = np.argmax(counts, axis=1)
    return ft


def _population_deadline(deadline, n_generations):
    """When the initial population stops growing: after ``1 / (1 + n_generations)`` of the time left, so the
    generations (each as costly as making the population: one TAO run per individual) fit in the rest."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + max(0.0, deadline - now) / (1 + n_generations)


def _initial_population(make, items, n_jobs, deadline, search_deadline=None):
    """``[make(item) for item in items]`` until ``deadline`` (:func:`_population_deadline`): at least one
    individual, two (a generation needs a partner) unless ``search_deadline`` (the whole search's) has passed,
    then as many as the time allows (in batches of ``2 n_jobs`` when parallel), so the population is sized to
    the budget. With one individual the search would end there, its time unused: on a2a at 16,000 rows with
    44 s left, the first individual took 7.6 s of the population's 7.3 s and TMO returned 36 s early."""
    from joblib import Parallel, delayed

    population = []
    batch = 1 if n_jobs == 1 else 2 * n_jobs
    for first in range(0, len(items), batch):
        if population and expired(deadline) and (len(population) >= 2 or expired(search_deadline)):
            break
        chunk = items[first:first + batch]
        population += [make(item) for item in chunk] if n_jobs == 1 else \
            Parallel(n_jobs=n_jobs)(delayed(make)(item) for item in chunk)
    return population


def _generation_loop(population, fitness, offspring, n_generations, rng, deadline, n_jobs):
    """Algorithm 3's loop on a population with its fitness (higher is better); returns the best individual."""
    from joblib import Parallel, delayed

    k = len(population)
    best = int(np.argmax(fitness))
    best_ind, best_fit = population[best], fitness[best]
    history = [best_fit]
    for g in range(n_generations if k >= 2 else 0):          # crossover needs a partner
        if expired(deadline):
            break
        boot = rng.integers(0, offspring.n_points, offspring.n_points)
        partners = [int(j if j < i else j + 1) for i, j in enumerate(rng.integers(0, k - 1, k))]
        seeds = rng.integers(0, 2**31 - 1, k)
        start = list(population)
        if n_jobs == 1:
            children = [None] * k
        else:
            children = Parallel(n_jobs=n_jobs)(delayed(offspring)(start[i], start[partners[i]], boot, seeds[i])
                                               for i in range(k))
        replaced = np.zeros(k, bool)
        for i in range(k):
            if expired(deadline):
                break
            j = partners[i]
            if children[i] is None or (j < i and replaced[j]):
                children[i] = offspring(population[i], population[j], boot, seeds[i])
            child, f = children[i]
            if f > fitness[i]:
                population[i], fitness[i], replaced[i] = child, f, True
            if f > best_fit:
                best_ind, best_fit = child, f
        history.append(best_fit)
    return best_ind, best_fit, history


class _LabelOffspring:
    def __init__(self, X, y, n_classes, depth, cross_rate, tao_options, allowed, deadline, sample_weight=None):
        self.X, self.y, self.n_classes, self.depth = X, y, n_classes, depth
        self.v = sample_weight
        self.cross_rate, self.tao_options, self.allowed = cross_rate, tao_options, allowed
        self.n_points, self.deadline = len(y), deadline
        self._sample = (None, None, None)           # (bootstrap rows, their X, their feature order)

    def fitness(self, ft):
        """Training accuracy (weighted by the points' weights)."""
        return float(np.average(ft.predict(self.X) == self.y, weights=self.v))

    def _bootstrap(self, boot):
        """``X[boot]`` and its :class:`~optitrees.algorithms.column_index.ColumnIndex`, computed once per generation
        (all offspring share ``boot``)."""
        if self._sample[0] is not boot:
            Xb = self.X[boot]
            self._sample = (boot, Xb, ColumnIndex(Xb))
        return self._sample[1], self._sample[2]

    def __call__(self, ti, tj, boot, seed):
        rng = np.random.default_rng(seed)
        code = crossover(encode(ti.to_tree(self.n_classes), self.depth), encode(tj.to_tree(self.n_classes), self.depth),
                         self.cross_rate, rng)
        Xb, index = self._bootstrap(boot)
        vb = None if self.v is None else self.v[boot]
        child = decode(code, Xb, self.y[boot], self.n_classes, rng, self.allowed, vb)
        child = tao_label_tree(child, Xb, self.y[boot], allowed=self.allowed, deadline=self.deadline,
                               index=index, sample_weight=vb, **self.tao_options)
        return child, self.fitness(child)


def tmo_label_tree(X, y, depth, n_classes=None, *, n_estimators=100, n_generations=5, cross_rate=0.75,
                   random_state=None, n_jobs=1, deadline=None, allowed=None, tao_options=None, sample_weight=None):
    """TMO (Algorithm 3) of an axis-aligned label tree; returns ``(best FixedTree, best fitness per generation)``.

    ``sample_weight`` weights the points in the forest, TAO and the fitness.
    ``tao_options`` go to :func:`~optitrees.algorithms.local_search.tao.tao_label_tree`
    (``alpha``, ``min_samples_leaf``, ``max_passes`` ...). With a ``deadline``
    the forest, the initial population and the generations stop when it
    passes: the population is then the trees improved so far (at least one).
    """
    X = np.asarray(X, float)
    y = np.asarray(y, np.int64)
    n_classes = int(y.max()) + 1 if n_classes is None else int(n_classes)
    rng = np.random.default_rng(random_state)
    cols = np.arange(X.shape[1]) if allowed is None else np.flatnonzero(allowed)
    forest = grow_forest(X[:, cols], y, n_estimators, deadline, max_depth=depth,
                         random_state=int(rng.integers(2**31 - 1)), n_jobs=n_jobs, sample_weight=sample_weight)
    tao_options = dict(tao_options or {})
    offspring = _LabelOffspring(X, y, n_classes, depth, cross_rate, tao_options, allowed, deadline, sample_weight)
    index = ColumnIndex(X)

    def initial(est):
        ft = decode(encode(_forest_tree(est, cols, X.shape[1]), depth), X, y, n_classes, np.random.default_rng(0),
                    sample_weight=sample_weight)
        return tao_label_tree(ft, X, y, allowed=allowed, deadline=deadline, index=index,
                              sample_weight=sample_weight, **tao_options)

    population = _initial_population(initial, list(forest.estimators_), n_jobs,
                                     _population_deadline(deadline, n_generations), deadline)
    fitness = [offspring.fitness(ft) for ft in population]
    best, _, history = _generation_loop(population, fitness, offspring, n_generations, rng, deadline, n_jobs)
    return best, history


def _forest_tree(estimator, cols, p):
    """A forest member as a :class:`Tree` on all ``p`` features (the forest saw only ``cols``)."""
    from ...trees import from_sklearn

    tree = from_sklearn(estimator)
    W = np.zeros((tree.n_nodes, p))
    W[:, cols] = tree.weights
    return replace(tree, weights=W)


class _LossOffspring:
    def __init__(self, problem, fit, cross_rate, tao_options, deadline):
        from ...formulations.loss_optimal.solution import tree_objective

        self.problem, self.fit, self.cross_rate, self.tao_options = problem, fit, cross_rate, tao_options
        self.deadline = deadline
        self.objective = lambda tree: tree_objective(problem, tree)
        self.n_points = len(problem.data.y)

    def fitness(self, tree):
        return -self.objective(tree)

    def __call__(self, ti, tj, boot, seed):
        from ..loss_optimal.tao_loss_optimal import tao_loss_optimal

        rng = np.random.default_rng(seed)
        depth = self.problem.spec.depth
        a, b = FixedTree.from_tree(ti, depth - 1), FixedTree.from_tree(tj, depth - 1)
        take = rng.random(a.n_splits) < self.cross_rate      # the inner nodes' hyperplanes; TAO refits the leaves
        a.W[take], a.b[take], a.thr[take] = b.W[take], b.b[take], b.thr[take]
        child = a.to_tree(probabilistic=self.problem.spec.probabilistic)
        child = tao_loss_optimal(child, _bootstrapped(self.problem, boot), self.fit, deadline=self.deadline,
                                 **self.tao_options)
        return child, self.fitness(child)


def _bootstrapped(problem, rows):
    """``problem`` on the bootstrap sample ``rows`` (drawn with replacement), held as its distinct rows, each
    weighted by the times it was drawn (a row of weight 2 counts as the row twice, as in
    :class:`~optitrees.scaling.ScaledData`): the same losses on about 63% of the rows, so the copies of ``X``
    and every node fit on them are that much smaller."""
    distinct, drawn = np.unique(rows, return_counts=True)
    return problem.on_rows(distinct, drawn)


def tmo_loss_optimal(problem, fit_for, *, n_estimators=20, n_generations=5, cross_rate=0.75, random_state=None,
                     n_jobs=1, deadline=None, tao_options=None):
    """TMO of a loss-optimal tree (standardized units); returns ``(best Tree, best fitness per generation)``.

    ``fit_for(allowed)`` returns the node fitter restricted to the features
    ``allowed`` (the random subspace of an individual).
    """
    from ..loss_optimal.greedy import greedy_tree
    from ..loss_optimal.tao_loss_optimal import tao_loss_optimal

    rng = np.random.default_rng(random_state)
    n, p = problem.data.X.shape
    tao_options = dict(tao_options or {})
    offspring = _LossOffspring(problem, fit_for(None), cross_rate, tao_options, deadline)

    def initial(seed):
        r = np.random.default_rng(seed)
        rows = r.integers(0, n, n)
        allowed = np.zeros(p, bool)
        allowed[r.choice(p, max(1, p // 2), replace=False)] = True
        boot = _bootstrapped(problem, rows)
        tree = greedy_tree(boot, fit_for(allowed), deadline=deadline)
        return tao_loss_optimal(tree, problem, fit_for(None), deadline=deadline, **tao_options)

    population = _initial_population(initial, list(rng.integers(0, 2**31 - 1, n_estimators)), n_jobs,
                                     _population_deadline(deadline, n_generations), deadline)
    fitness = [offspring.fitness(t) for t in population]
    best, _, history = _generation_loop(population, fitness, offspring, n_generations, rng, deadline, n_jobs)
    return best, history
