"""A small softmax policy network in numpy: ReLU layers, dropout, Adam (seed 002, 5.2-5.3).

The policy ``pi_theta(a | x)`` of the contextual-bandit tree choice is a
multilayer perceptron with ReLU activations, dropout after every hidden
layer (training only, inverted scaling) and a softmax over the B trees.
Gradients are taken with respect to the logits by the caller (the policy
gradient of Algorithm 4 or a cross-entropy) and propagated back here; Adam
(Kingma and Ba) updates the parameters with the learning rate the caller
gives at each step (the cosine schedule lives in the training loop).
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

__all__ = ["PolicyNetwork"]


class PolicyNetwork:
    """``n_inputs -> hidden... -> n_actions`` softmax policy with Adam.

    Parameters
    ----------
    n_inputs, n_actions : int
    hidden : sequence of int
        Widths of the hidden ReLU layers (empty: a linear softmax policy).
    dropout : float
        Drop probability after each hidden layer during training.
    rng : numpy.random.Generator
        Initial weights (He normal, zero biases) and dropout masks.

    Examples
    --------
    >>> net = PolicyNetwork(3, 4, hidden=(8,), dropout=0.0, rng=np.random.default_rng(0))
    >>> p = net.probabilities(np.ones((2, 3)))
    >>> p.shape, bool(np.allclose(p.sum(axis=1), 1))
    ((2, 4), True)
    """

    def __init__(self, n_inputs: int, n_actions: int, hidden=(64, 64), dropout: float = 0.2, rng=None,
                 beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        self.rng = np.random.default_rng(rng)
        sizes = [n_inputs, *hidden, n_actions]
        self.weights = [self.rng.normal(0.0, np.sqrt(2.0 / a), size=(a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
        self.biases = [np.zeros(b) for b in sizes[1:]]
        self.dropout = float(dropout)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self._m = [np.zeros_like(p) for p in self.parameters()]
        self._v = [np.zeros_like(p) for p in self.parameters()]
        self.steps = 0
        self._cache = None

    def parameters(self) -> list:
        """Weights then biases, layer by layer (the arrays themselves)."""
        return [*self.weights, *self.biases]

    def get_state(self) -> list:
        return [p.copy() for p in self.parameters()]

    def set_state(self, state) -> None:
        for p, s in zip(self.parameters(), state):
            p[...] = s

    def logits(self, X, training: bool = False) -> np.ndarray:
        """Forward pass; ``training`` applies dropout and keeps what :meth:`backward` needs."""
        h = np.asarray(X, dtype=float)
        cache = []
        last = len(self.weights) - 1
        for k, (W, b) in enumerate(zip(self.weights, self.biases)):
            z = h @ W + b
            if k == last:
                cache.append((h, None, None))
                h = z
                break
            a = np.maximum(z, 0.0)
            mask = None
            if training and self.dropout > 0:
                mask = (self.rng.random(a.shape) >= self.dropout) / (1.0 - self.dropout)
                a = a * mask
            cache.append((h, z, mask))
            h = a
        self._cache = cache if training else None
        return h

    def probabilities(self, X, training: bool = False) -> np.ndarray:
        """``pi(. | x)`` for each row, shape ``(n, n_actions)``."""
        return softmax(self.logits(X, training), axis=1)

    def backward(self, grad_logits) -> list:
        """Gradients of the parameters (order of :meth:`parameters`) given ``dL/dlogits`` of the last training pass."""
        if self._cache is None:
            raise RuntimeError("backward needs a forward pass with training=True")
        g = np.asarray(grad_logits, dtype=float)
        gW, gb = [None] * len(self.weights), [None] * len(self.biases)
        for k in range(len(self.weights) - 1, -1, -1):
            h, _, _ = self._cache[k]
            gW[k] = h.T @ g
            gb[k] = g.sum(axis=0)
            if k > 0:
                _, z_prev, mask_prev = self._cache[k - 1]
                g = g @ self.weights[k].T
                if mask_prev is not None:
                    g = g * mask_prev
                g = g * (z_prev > 0)
        return [*gW, *gb]

    def adam_step(self, grads, learning_rate: float) -> None:
        """One Adam update ``theta -= lr * m_hat / (sqrt(v_hat) + eps)``."""
        self.steps += 1
        c1, c2 = 1.0 - self.beta1 ** self.steps, 1.0 - self.beta2 ** self.steps
        for p, g, m, v in zip(self.parameters(), grads, self._m, self._v):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= learning_rate * (m / c1) / (np.sqrt(v / c2) + self.eps)
