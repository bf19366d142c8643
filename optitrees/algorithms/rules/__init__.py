"""Rule sets drawn from forests (seed 004): rule extraction and the LASSO selection with correctness models.

Modules: :mod:`.lasso_selection`, :mod:`.rule_extraction`.
"""
