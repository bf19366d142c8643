"""The numpy policy network: softmax outputs, backpropagation against finite differences, Adam's step."""

import numpy as np
import pytest

from optitrees.algorithms.contextual.policy_network import PolicyNetwork


def _loss(net, X, G):
    return float(np.sum(net.logits(X) * G))                # a linear function of the logits: dL/dlogits = G


def test_backward_equals_finite_differences():
    rng = np.random.default_rng(0)
    net = PolicyNetwork(4, 3, hidden=(5, 6), dropout=0.0, rng=1)
    X, G = rng.normal(size=(7, 4)), rng.normal(size=(7, 3))
    net.logits(X, training=True)
    grads = net.backward(G)
    for p, g in zip(net.parameters(), grads):
        numeric = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            old = p[idx]
            p[idx] = old + 1e-6
            up = _loss(net, X, G)
            p[idx] = old - 1e-6
            down = _loss(net, X, G)
            p[idx] = old
            numeric[idx] = (up - down) / 2e-6
        assert np.allclose(g, numeric, atol=1e-5)


def test_dropout_masks_are_used_in_backward_and_scaled():
    net = PolicyNetwork(3, 2, hidden=(1000,), dropout=0.5, rng=0)
    X = np.ones((1, 3))
    train = net.logits(X, training=True)
    _, z, mask = net._cache[0]
    assert set(np.unique(mask)) == {0.0, 2.0}              # inverted dropout: kept units are doubled
    assert np.allclose(train, (np.maximum(z, 0) * mask) @ net.weights[1] + net.biases[1])
    assert not np.allclose(net.logits(X), train)            # no dropout at prediction


def test_first_adam_step_moves_every_parameter_by_the_learning_rate_against_its_gradient():
    net = PolicyNetwork(2, 2, hidden=(), dropout=0.0, rng=0)
    before = net.get_state()
    grads = [np.array([[0.5, -2.0], [0.0, 3.0]]), np.array([-1e-3, 4.0])]
    net.adam_step(grads, 0.1)
    for b, a, g in zip(before, net.parameters(), grads):
        assert np.allclose(a - b, -0.1 * np.sign(g), atol=1e-6)


def test_backward_needs_a_training_pass():
    net = PolicyNetwork(2, 2, hidden=(3,), rng=0)
    net.logits(np.ones((1, 2)))
    with pytest.raises(RuntimeError, match="training=True"):
        net.backward(np.ones((1, 2)))
