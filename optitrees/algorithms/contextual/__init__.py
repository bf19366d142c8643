"""Contextual trees (seed 002, ch. 5): the policy network and the contextual-bandit training of it.

Modules: :mod:`.bandit`, :mod:`.policy_network`.
"""
