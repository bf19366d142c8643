"""The models drawn from a forest: contextual trees (a forest and a policy choosing its tree per point) and rule
sets (rules of a forest selected by the LASSO)."""
