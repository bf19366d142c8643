"""Local search over label trees (seed 002, 3.3): Tree Alternating Optimization and Tree Memetic Optimization.

Modules: :mod:`.tao`, :mod:`.tmo`, :mod:`.baseline_check` (TMO's trees against CART's on held-out folds).
"""
