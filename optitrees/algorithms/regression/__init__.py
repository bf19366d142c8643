"""Regression trees: seed 003's t-test pruning, TAO on squared loss, STreeD's optimal trees.

Modules: :mod:`.streed`, :mod:`.t_test_pruning`, :mod:`.tao_regression`.
"""
