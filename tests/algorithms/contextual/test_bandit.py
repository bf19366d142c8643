"""Rewards (5.4)/(5.5), the policy gradient of Algorithm 4 by hand, the supervised labels, and the training loop."""

import numpy as np
import pytest
from scipy.special import softmax

from optitrees.algorithms.contextual.bandit import (classification_rewards, cross_entropy_gradient, policy_gradient,
                                                    regression_rewards, sample_actions, supervised_targets,
                                                    train_policy)
from optitrees.algorithms.contextual.policy_network import PolicyNetwork


def test_rewards_by_hand():
    preds = np.array([[1, 0, 1], [0, 0, 1]])
    assert classification_rewards(preds, np.array([1, 0])).tolist() == [[1, -1, 1], [1, 1, -1]]
    # squared errors 0, 4, 1 -> d = 0, 1, 0.25 -> r = 1, -1, 0.5; a row with equal errors gets 1 everywhere
    reg = regression_rewards(np.array([[3.0, 5.0, 2.0], [1.0, 1.0, 1.0]]), np.array([3.0, 0.0]))
    assert reg.tolist() == [[1.0, -1.0, 0.5], [1.0, 1.0, 1.0]]


def test_bandit_update_on_a_hand_checked_case():
    """One point x = (1, 2), two trees, a linear policy starting at zero: pi = (1/2, 1/2).

    The agent takes tree 0 and gets reward +1 (lambda = 0): dL/dz = -(e_0 - pi) r = (-1/2, 1/2),
    dL/dW = x^T dL/dz = [[-1/2, 1/2], [-1, 1]], dL/db = (-1/2, 1/2). Adam's first step moves every
    parameter by lr = 0.1 against its gradient's sign, so z = (0.1 + 0.2 + 0.1, -0.4) = (0.4, -0.4)
    and pi(tree 0 | x) = 1 / (1 + e^-0.8) = 0.6900. Reward -1 moves it the other way.
    """
    x = np.array([[1.0, 2.0]])
    for reward, expected in [(1.0, 1 / (1 + np.exp(-0.8))), (-1.0, 1 / (1 + np.exp(0.8)))]:
        net = PolicyNetwork(2, 2, hidden=(), dropout=0.0, rng=0)
        net.weights[0][...] = 0.0
        p = net.probabilities(x, training=True)
        assert p.tolist() == [[0.5, 0.5]]
        loss, grad = policy_gradient(p, np.array([0]), np.array([reward]), entropy_weight=0.0)
        assert grad.tolist() == [[-0.5 * reward, 0.5 * reward]]
        assert loss == pytest.approx(-np.log(0.5) * reward)
        grads = net.backward(grad)
        assert np.allclose(grads[0], reward * np.array([[-0.5, 0.5], [-1.0, 1.0]]))
        net.adam_step(grads, 0.1)
        assert net.probabilities(x)[0, 0] == pytest.approx(expected, abs=1e-6)


def test_policy_gradient_with_entropy_equals_finite_differences():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(4, 5))
    actions, rewards, lam = np.array([0, 3, 3, 1]), np.array([1.0, -1.0, 0.5, 1.0]), 0.3
    _, grad = policy_gradient(softmax(z, axis=1), actions, rewards, lam)
    numeric = np.zeros_like(z)
    for idx in np.ndindex(z.shape):
        for s in (1, -1):
            zz = z.copy()
            zz[idx] += s * 1e-6
            numeric[idx] += s * policy_gradient(softmax(zz, axis=1), actions, rewards, lam)[0] / 2e-6
    assert np.allclose(grad, numeric, atol=1e-6)


def test_cross_entropy_gradient_is_pi_minus_the_target():
    p = np.array([[0.2, 0.8], [0.6, 0.4]])
    loss, grad = cross_entropy_gradient(p, np.array([1, 1]))
    assert loss == pytest.approx(-(np.log(0.8) + np.log(0.4)) / 2)
    assert np.allclose(grad, [[0.1, -0.1], [0.3, -0.3]])


def test_supervised_targets_by_hand():
    preds = np.array([[1, 1, 0], [0, 0, 0], [2.0, 3.5, 2.5]])
    proba = np.array([[0.6, 0.9, 0.2], [0.1, 0.3, 0.2]])
    t = supervised_targets(preds[:2].astype(int), np.array([1, 1]), np.random.default_rng(0), proba)
    assert t[0] == 1                                        # right and most confident
    assert 0 <= t[1] < 3                                    # no tree right: drawn at random
    assert supervised_targets(preds[2:], np.array([2.4]), None).tolist() == [2]   # least squared error


def test_sampled_actions_follow_the_policy():
    p = np.tile([0.1, 0.0, 0.6, 0.3], (20000, 1))
    a = sample_actions(p, np.random.default_rng(0))
    assert np.allclose(np.bincount(a, minlength=4) / len(a), [0.1, 0.0, 0.6, 0.3], atol=0.015)


def test_training_learns_which_tree_is_right_where():
    """Tree 0 is right for x < 0, tree 1 for x > 0: the policy learns the switch, the best epoch is kept."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 1))
    rewards = np.where(np.column_stack([X[:, 0] < 0, X[:, 0] >= 0]), 1.0, -1.0)
    Xv = np.linspace(-2, 2, 41)[:, None]
    right_v = np.column_stack([Xv[:, 0] < 0, Xv[:, 0] >= 0])
    net = PolicyNetwork(1, 2, hidden=(16,), dropout=0.0, rng=0)

    def batch_signal(rows, p):
        a = sample_actions(p, rng)
        r = rewards[rows, a]
        return r.mean(), policy_gradient(p, a, r, 1e-4)[1]

    def score(network):
        return float(right_v[np.arange(len(Xv)), np.argmax(network.logits(Xv), axis=1)].mean())

    history = train_policy(net, X, batch_signal, score, max_epochs=60, batch_size=32, learning_rate=0.02,
                           patience=60, rng=rng)
    assert score(net) >= 0.95 and score(net) == max(history.validation)
    assert history.train[-1] > history.train[0]
