"""C4.5 (seed 000, ch. 2-3): induction with fractional instances, the split search, pessimistic pruning.

Modules: :mod:`.induction`, :mod:`.pessimistic_pruning`, :mod:`.split_search`.
"""
