"""The scripts in examples/ run as a user would run them."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXPECTED = {
    "fit_olct.py": ["P(1) = sigmoid(", "returned: ", "test balanced accuracy"],
    "margot_scip_vs_highs.py": ["highs  optimal", "outer approximation"],
    "risk_score_card.py": ["intercept", "P(malignant)", "same predictions: True"],
    "formulation_in_pyomo.py": ["oct_d2:", "routing agrees with z: True", "class:"],
    "local_search_trees.py": ["TAO oblique=True", "TMO: best training accuracy", "certified by contree"],
    "classic_trees.py": ["C4.5 on data with 10% missing cells", "A missing value goes down both branches",
                         "UCT-DT:", "d_B2(C4.5, UCT-DT) ="],
    "regression_trees.py": ["CART, t-test pruning:", "optimal depth-2 tree:", "oblique tree, absolute loss",
                            "oblique tree, squared loss", "value = "],
    "forest_explanations.py": ["distinct rules in the forest, 5 kept", "trusted if", "test AUC",
                               "CCT: test accuracy", "patient 0 is classified"],
}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


#: Examples that take more than 20 s run with the slow tests (``python -m pytest -m slow``).
SLOW_EXAMPLES = {"margot_scip_vs_highs.py"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_EXAMPLES else n
                                  for n in sorted(EXPECTED)])
def test_example_runs(name, tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    for fragment in EXPECTED[name]:
        assert fragment in done.stdout, (fragment, done.stdout[-3000:])
    if name == "formulation_in_pyomo.py":
        assert (tmp_path / "oct.lp").exists() and (tmp_path / "oct.mps").exists()
        assert "a(1,mean_texture)" in (tmp_path / "oct.lp").read_text()
