"""Heuristics of loss-optimal trees (seed 002, ch. 3): the greedy start, TAO on the exact objective, Remark 1's refit.

Modules: :mod:`.greedy`, :mod:`.refine`, :mod:`.tao_loss_optimal`.
"""
