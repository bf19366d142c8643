"""The core install runs without the ``fast`` extra's packages: numba, llvmlite, polars, pyarrow and glum (with
tabmat) are blocked in a fresh interpreter, and the library imports, fits OCT, OLCT and oblique TAO (their node fits
by scipy's L-BFGS-B), writes both file formats through HiGHS's writer and fits C4.5 on its numpy scan."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import importlib.abc
    import sys

    BLOCKED = ("numba", "llvmlite", "polars", "pyarrow", "glum", "tabmat")

    class Blocked(importlib.abc.MetaPathFinder):         # as if the packages were not installed
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"No module named {name!r}")
            return None

    sys.meta_path.insert(0, Blocked())
    import numpy as np
    from sklearn.datasets import make_classification
    import optitrees
    from optitrees import C45Classifier, OCTClassifier, OLCTClassifier, TAOClassifier
    from optitrees.algorithms.node_fit import glum_available
    from optitrees.mip.files import compiled_writer_available

    assert not compiled_writer_available() and not glum_available()
    X, y = make_classification(300, 5, random_state=0)
    clf = OCTClassifier(max_depth=2, time_limit=5).fit(X, y)
    olct = OLCTClassifier(max_depth=2, time_limit=5, random_state=0).fit(X, y)
    assert olct.score(X, y) > 0.8
    TAOClassifier(max_depth=2, oblique=True, random_state=0).fit(X, y)
    f = OCTClassifier(max_depth=2).build_formulation(X[:40], y[:40])
    for suffix in (".lp", ".mps"):
        text = f.write(sys.argv[1] + "/oct" + suffix).read_text()
        assert "HiGHS" in text.splitlines()[0] or suffix == ".mps", text[:80]
        assert " a(1," in text
    Xc, yc = make_classification(2500, 6, random_state=0)
    for _ in range(2):                                   # a second large growth would try the compiled scan
        C45Classifier().fit(Xc, yc)
    assert not any(m.split(".")[0] in BLOCKED for m in sys.modules)
    print("core ok")
""")


def test_the_library_fits_and_writes_without_numba_llvmlite_and_polars(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "core ok" in done.stdout
    assert (tmp_path / "oct.lp").exists() and (tmp_path / "oct.mps").exists()
