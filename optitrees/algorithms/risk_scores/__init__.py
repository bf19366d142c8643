"""Warm starts of risk scores (seed 002, ch. 4): rounded logistic, stump and greedy-rule cards, beam search.

Modules: :mod:`.beam_search`, :mod:`.card_starts`.
"""
