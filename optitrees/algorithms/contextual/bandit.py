"""Choosing one tree of a forest per point as a contextual bandit (seed 002, ch. 5, CCT / CRT).

Every row of the training data is one one-step episode: the context is the
point, the action one of the B trees, the reward that tree's quality on the
point,

* classification, eq. (5.4): ``+1`` if the tree predicts the label, ``-1`` otherwise;
* regression, eq. (5.5): ``1 - 2 d`` with ``d`` the tree's squared error
  scaled to [0, 1] between the best (0) and the worst (1) tree on the point.

The policy is trained by Algorithm 4: per batch, sample ``a_i ~ pi(. | x_i)``,
look up the rewards, and descend

    L(theta) = -1/N sum_i ( log pi(a_i | x_i) r(a_i) + lambda H(a_i | x_i) ),
    H(a | x) = -pi(a | x) log pi(a | x),

whose gradient with respect to the logits z_i is (:func:`policy_gradient`)

    dL/dz_i = -1/N (e_{a_i} - pi_i) ( r(a_i) - lambda pi(a_i|x_i) (log pi(a_i|x_i) + 1) ).

The supervised baseline of 5.3 trains the same network by cross-entropy on
one "best tree" per row (:func:`supervised_targets`). Both loops use Adam, a
cosine-annealed learning rate per epoch and early stopping on the validation
score of the arg-max choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from ...budget import expired
from .policy_network import PolicyNetwork

__all__ = ["classification_rewards", "regression_rewards", "policy_gradient", "cross_entropy_gradient",
           "supervised_targets", "sample_actions", "train_policy", "TrainingHistory"]


def classification_rewards(tree_predictions, y) -> np.ndarray:
    """``(n, B)`` rewards of eq. (5.4) from the trees' predicted labels ``(n, B)`` and the labels ``(n,)``."""
    return np.where(np.asarray(tree_predictions) == np.asarray(y)[:, None], 1.0, -1.0)


def regression_rewards(tree_predictions, y) -> np.ndarray:
    """``(n, B)`` rewards of eq. (5.5): ``1 - 2 d`` with d the squared error min-max scaled over the trees per row.

    A row on which every tree has the same error gets reward 1 for every tree.
    """
    err = (np.asarray(tree_predictions, dtype=float) - np.asarray(y, dtype=float)[:, None]) ** 2
    lo, hi = err.min(axis=1, keepdims=True), err.max(axis=1, keepdims=True)
    span = np.where(hi > lo, hi - lo, 1.0)
    return 1.0 - 2.0 * (err - lo) / span


def sample_actions(probabilities, rng) -> np.ndarray:
    """One action per row drawn from its distribution (inverse CDF)."""
    cdf = np.cumsum(probabilities, axis=1)
    u = rng.random((len(cdf), 1)) * cdf[:, -1:]
    return np.minimum((cdf <= u).sum(axis=1), cdf.shape[1] - 1)


def policy_gradient(probabilities, actions, rewards, entropy_weight: float,
                    sample_weight=None) -> tuple[float, np.ndarray]:
    """``(L, dL/dlogits)`` of Algorithm 4's loss on one batch (rewards of the taken actions, shape ``(N,)``).

    ``sample_weight`` (each row's weight relative to the mean weight, default 1)
    multiplies each row's term of ``L``: an unbiased estimate of the weighted loss.
    """
    p = np.asarray(probabilities, dtype=float)
    n = len(p)
    rows = np.arange(n)
    v = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    pa = np.clip(p[rows, actions], 1e-300, None)
    log_pa = np.log(pa)
    loss = -np.mean(v * (log_pa * rewards - entropy_weight * pa * log_pa))
    onehot = np.zeros_like(p)
    onehot[rows, actions] = 1.0
    scale = v * (rewards - entropy_weight * pa * (log_pa + 1.0))
    return float(loss), -(onehot - p) * scale[:, None] / n


def cross_entropy_gradient(probabilities, targets, sample_weight=None) -> tuple[float, np.ndarray]:
    """``(mean -log pi(t|x), its gradient in the logits)`` for the supervised baseline (each row's term times
    ``sample_weight``, its weight relative to the mean, default 1)."""
    p = np.asarray(probabilities, dtype=float)
    rows = np.arange(len(p))
    v = np.ones(len(p)) if sample_weight is None else np.asarray(sample_weight, float)
    grad = p.copy()
    grad[rows, targets] -= 1.0
    return float(-np.mean(v * np.log(np.clip(p[rows, targets], 1e-300, None)))), grad * v[:, None] / len(p)


def supervised_targets(tree_predictions, y, rng, true_class_proba=None) -> np.ndarray:
    """The label of each row for the supervised baseline of 5.3.

    Classification (``true_class_proba`` given, ``(n, B)``: each tree's
    probability of the row's true class): among the trees that predict the
    row right, the one with the largest such probability; a row no tree gets
    right gets a tree drawn uniformly. Regression: the tree of least squared error.
    """
    preds = np.asarray(tree_predictions)
    if true_class_proba is None:
        return np.argmin((preds - np.asarray(y, dtype=float)[:, None]) ** 2, axis=1)
    right = preds == np.asarray(y)[:, None]
    score = np.where(right, true_class_proba, -np.inf)
    targets = np.argmax(score, axis=1)
    none = ~right.any(axis=1)
    targets[none] = rng.integers(preds.shape[1], size=int(none.sum()))
    return targets


@dataclass
class TrainingHistory:
    """Per epoch: mean reward (bandit) or loss (supervised) on the training batches, validation score."""

    train: list = field(default_factory=list)
    validation: list = field(default_factory=list)
    best_epoch: int = -1
    stopped: str = "max_epochs"


def train_policy(net: PolicyNetwork, X, batch_signal, validation_score, *, max_epochs: int, batch_size: int,
                 learning_rate: float, patience: int, rng, deadline=None) -> TrainingHistory:
    """Train ``net`` epoch by epoch and restore its best-validation parameters.

    ``batch_signal(rows, probabilities) -> (statistic, dL/dlogits)`` gives a
    batch's gradient (and the statistic logged per epoch);
    ``validation_score(net) -> float`` is maximized. The learning rate of
    epoch e is ``learning_rate * (1 + cos(pi e / max_epochs)) / 2``. Training
    stops after ``patience`` epochs without a better validation score, or at
    the first batch past ``deadline`` (a ``time.perf_counter`` value). BLAS runs on one thread
    here: the batches are small, and threads cost a tenfold slowdown on a
    busy two-core machine (1.1 s against 12 s for 10 epochs of abalone).
    """
    with threadpool_limits(limits=1, user_api="blas"):
        return _train(net, X, batch_signal, validation_score, max_epochs, batch_size, learning_rate, patience, rng,
                      deadline)


def _train(net, X, batch_signal, validation_score, max_epochs, batch_size, learning_rate, patience, rng, deadline):
    history = TrainingHistory()
    best_score, best_state, wait = validation_score(net), net.get_state(), 0
    n = len(X)
    for epoch in range(max_epochs):
        lr = learning_rate * 0.5 * (1.0 + np.cos(np.pi * epoch / max_epochs))
        order = rng.permutation(n)
        stats = []
        for start in range(0, n, batch_size):
            rows = order[start:start + batch_size]
            probabilities = net.probabilities(X[rows], training=True)
            stat, grad = batch_signal(rows, probabilities)
            net.adam_step(net.backward(grad), lr)
            stats.append(stat)
            if expired(deadline):
                break                           # the epoch ends early; it is still validated below
        score = validation_score(net)
        history.train.append(float(np.mean(stats)))
        history.validation.append(score)
        if score > best_score:
            best_score, best_state, wait, history.best_epoch = score, net.get_state(), 0, epoch
        else:
            wait += 1
        if wait >= patience:
            history.stopped = "early_stopping"
            break
        if expired(deadline):
            history.stopped = "time_limit"
            break
    net.set_state(best_state)
    return history
