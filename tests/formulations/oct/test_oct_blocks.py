"""OCT's blocks compose into the library's own model, with no problem attached to the formulation."""

import numpy as np
import pytest

from optitrees import solvers
from optitrees.formulations import oct, oct_blocks
from optitrees.mip import Formulation
from optitrees.topology import Topology


def test_oct_from_its_blocks_is_the_library_model():
    rng = np.random.default_rng(0)
    X01 = (rng.random((14, 3)) < 0.5).astype(float)
    y = (X01[:, 0] + X01[:, 1] + (rng.random(14) < 0.2) > 1).astype(int)
    library = oct.oct(X01, y, depth=2, alpha=0.02)
    topo = Topology(2)
    f = Formulation("mine", integrality_tol=library.integrality_tol)
    z, leaf, c, loss = oct_blocks.add_leaf_labels(f, X01, y, topo, min_samples_leaf=1, n_classes=2)
    a, b, d = oct_blocks.add_oct_splits(f, topo, X01, oct.feature_epsilons(X01))
    oct_blocks.add_split_hierarchy(f, topo, d)
    f.add_objective(loss, 1.0 / (len(y) - np.bincount(y).max()))
    f.add_objective(d, 0.02)
    assert list(f.variables) == list(library.variables) and list(f.constraints) == list(library.constraints)
    assert (f.matrix != library.matrix).nnz == 0
    np.testing.assert_array_equal(f.cost, library.cost)
    assert f.sets["J"].tolist() == [0, 1, 2]
    mine, theirs = solvers.solve(f, mip_gap=0), solvers.solve(library, mip_gap=0)
    assert mine.status == theirs.status == "optimal" and mine.objective == pytest.approx(theirs.objective, abs=1e-9)
