"""UCT-DT (seed 000, ch. 4): Monte Carlo tree search over decision trees and C4.5's completion of its leaves.

Modules: :mod:`.completion`, :mod:`.tree_search`.
"""
