"""The scripts in examples/ run as a user would run them: as ``__main__``, from a fresh directory.

They run in the test's process (``runpy``), not in a child interpreter: a child spent 3 s of each example's
6-13 s importing scikit-learn, Pyomo and the library again.
"""

import runpy
import sys
from pathlib import Path

import pytest

from optitrees import solvers

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXPECTED = {
    "fit_olct.py": ["P(1) = sigmoid(", "returned: ", "test balanced accuracy"],
    "margot_scip_vs_highs.py": ["highs  optimal", "outer approximation"],
    "risk_score_card.py": ["intercept", "P(malignant)", "same predictions: True"],
    "formulation_in_pyomo.py": ["oct_d2:", "routing agrees with z: True", "class:"],
    "local_search_trees.py": ["TAO oblique=True", "TMO: best training accuracy", "certified by contree"],
    "feature_costs.py": ["no budget: test balanced accuracy", "budget 4: test balanced accuracy", "budget kept: True",
                         "['reads_delta', 'feature_cost']"],
    "fair_trees.py": ["without the constraint: test accuracy", "demographic parity 0.05: test accuracy",
                      "kept: True", "class: "],
    "classic_trees.py": ["C4.5 on data with 10% missing cells", "A missing value goes down both branches",
                         "UCT-DT:", "d_B2(C4.5, UCT-DT) ="],
    "regression_trees.py": ["CART, t-test pruning:", "optimal depth-2 tree:", "oblique tree, absolute loss",
                            "oblique tree, squared loss", "value = "],
    "octh_from_blocks.py": ["mine     optimal", "library  optimal", "same optimum: True"],
    "flow_oct.py": ["highs  optimal: 74 of 95", "cbc    optimal: 74 of 95", "all three agree: True",
                    "go_left[0,1]: +1 into[0,2] -1 b[1,0] <= 0"],
    "your_own_constraints.py": ["every weight on mean radius >= 0: True", "the hook added: ('u',)", "OCT with parity",
                                "solved by hand: optimal"],
    "readable_trees.py": ["OLCT, 2 features per hyperplane: features per node [", "oblique TAO, 2 per split",
                          "test balanced accuracy", "h1 = ", "every budget kept: True",
                          "chosen on held-out folds: "],
    "forest_explanations.py": ["distinct rules in the forest, 5 kept", "trusted if", "test AUC",
                               "CCT: test accuracy", "patient 0 is classified"],
}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


#: Examples that take more than 20 s run with the slow tests (``python -m pytest -m slow``).
SLOW_EXAMPLES = {"margot_scip_vs_highs.py", "your_own_constraints.py"}
#: Examples that solve with a system solver (CI installs it; elsewhere they skip, naming it).
NEEDS_SOLVER = {"flow_oct.py": "cbc"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_EXAMPLES else n
                                  for n in sorted(EXPECTED)])
def test_example_runs(name, tmp_path, monkeypatch, capsys):
    if name in NEEDS_SOLVER and NEEDS_SOLVER[name] not in solvers.available():
        pytest.skip(f"{name} solves with {NEEDS_SOLVER[name]}, which is not installed here")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(EXAMPLES / name)])
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    out = capsys.readouterr().out
    for fragment in EXPECTED[name]:
        assert fragment in out, (fragment, out[-3000:])
    if name == "formulation_in_pyomo.py":
        assert (tmp_path / "oct.lp").exists() and (tmp_path / "oct.mps").exists()
        assert "a(1,mean_texture)" in (tmp_path / "oct.lp").read_text()
