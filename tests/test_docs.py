"""The documentation: the site builds with warnings as errors, and every ``python`` code block of the README and
of the user guide runs, each page's blocks in order in one namespace, from a fresh directory (so a block defines
what it uses, and what it writes lands outside the checkout)."""

import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
PAGES = [p for p in PAGES if not p.name.startswith("_") and "_build" not in p.parts]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def code_blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text())


def test_the_pages_hold_code():
    assert sum(len(code_blocks(p)) for p in PAGES) >= 15


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_code_block_runs(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    for k, block in enumerate(code_blocks(page)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(block, f"{page.name}, block {k + 1}", "exec"), namespace)
            except Exception as error:                     # name the block that failed
                raise AssertionError(f"{page.name}, block {k + 1} fails: {error!r}\n{block}") from error


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
                           str(ROOT / "docs"), str(tmp_path / "html")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-5000:]
    assert (tmp_path / "html" / "api.html").exists() and (tmp_path / "html" / "gallery.html").exists()


def test_the_facts_the_pages_state_are_the_librarys():
    """The README names every estimator and states their number; the command-line page names every model of
    ``optitrees fit``; the README's first two code blocks are the two set-up commands."""
    from optitrees.estimators.registry import ESTIMATORS

    readme = (ROOT / "README.md").read_text()
    assert f"**{len(ESTIMATORS)} estimators**" in readme
    assert all(f"`{cls.__name__}`" in readme for cls in ESTIMATORS.values())
    command_line = (ROOT / "docs" / "guide" / "persistence.md").read_text()
    assert all(f"`{name}`" in command_line for name in ESTIMATORS)
    shell = re.findall(r"^```bash\n(.*?)^```", readme, re.S | re.M)
    assert shell[0].startswith("pip install . && optitrees fit") and shell[1].startswith('pip install ".[test]"')
    assert readme.index("```bash") < readme.index("```python") and len(readme.splitlines()) <= 200
