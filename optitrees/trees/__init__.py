"""The fitted tree object every tree model shares, and its constructors.

:class:`Tree` holds parallel node arrays (like scikit-learn's ``tree_``);
:func:`from_complete` builds one from a breadth-first complete tree (MIP and
local-search models) and :func:`to_complete` lays one out that way; :func:`left_heavy` mirrors its splits so
more weight goes left (the symmetry rows of the MIP starts);
:func:`from_sklearn` converts scikit-learn's fitted trees; :func:`readable_tree` rounds a tree to short numbers
without changing any training prediction; :func:`node_membership` routes points probabilistically
(missing values, soft evaluation); :func:`feature_importances` is what each feature contributes to the
classifying nodes; :class:`OneVsRestTrees` holds one binary tree per class (multi-class loss-optimal
trees).
"""

from ._complete import CompleteArrays, from_complete, left_heavy, signs_oriented, to_complete
from ._gating import leaf_reach, left_share, node_membership
from ._importance import feature_importances, node_std
from ._one_vs_rest import OneVsRestTrees
from ._readable import readable_tree
from ._sklearn import from_sklearn
from ._tree import LEAF, OBLIQUE, LeafModel, Tree

__all__ = ["Tree", "LeafModel", "LEAF", "OBLIQUE", "from_complete", "to_complete", "left_heavy", "signs_oriented",
           "CompleteArrays",
           "readable_tree",
           "from_sklearn",
           "node_membership", "leaf_reach", "left_share", "feature_importances", "node_std", "OneVsRestTrees"]
