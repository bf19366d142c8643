"""Starts and the exact engine of OCT / OCT-H: CART and the greedy oblique tree, ConTree's certified search.

Modules: :mod:`.cart`, :mod:`.contree`.
"""
