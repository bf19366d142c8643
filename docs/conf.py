"""Sphinx configuration of the optitrees documentation: ``python -m sphinx -W -b html docs docs/_build/html``."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from optitrees._version import __version__  # noqa: E402

project = "optitrees"
author = "the optitrees developers"
release = version = __version__

extensions = ["myst_parser", "numpydoc", "sphinx.ext.autodoc", "sphinx.ext.autosummary"]
source_suffix = {".md": "markdown"}
master_doc = "index"
exclude_patterns = ["_build", "_generated", "_gallery.md"]
html_theme = "alabaster"
html_static_path = []

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
autosummary_generate = False
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()
suppress_warnings = ["myst.xref_missing"]
nitpicky = False


# ---------------------------------------------------------------- the gallery, built from examples/
#: the examples whose figures the gallery shows: run at build time (each takes seconds), from docs/_generated/
FIGURE_EXAMPLES = ("fit_olct.py",)


def _docstring(path: Path) -> tuple[str, str]:
    import ast

    text = ast.get_docstring(ast.parse(path.read_text())) or path.stem
    title, _, rest = text.partition("\n")
    rest = "\n".join(line for line in rest.strip().splitlines() if not line.startswith("Run: "))
    return title.strip().rstrip("."), rest.strip()


def _run_for_figures(name: str, where: Path) -> list[str]:
    """Run ``examples/name`` with ``where`` as its directory; the figures it wrote."""
    import contextlib
    import io
    import os
    import runpy
    import warnings

    where.mkdir(parents=True, exist_ok=True)
    before = set(where.glob("*.png"))
    cwd = os.getcwd()
    os.chdir(where)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runpy.run_path(str(ROOT / "examples" / name), run_name="__main__")
    finally:
        os.chdir(cwd)
    return sorted(p.name for p in set(where.glob("*.png")) | before)


def _write_gallery(app) -> None:
    generated = Path(app.srcdir) / "_generated"
    parts = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        title, text = _docstring(path)
        parts += [f"## {path.name}: {title}", "", text, "",
                  f"```{{literalinclude}} ../examples/{path.name}", ":language: python", "```", ""]
        if path.name in FIGURE_EXAMPLES:
            for figure in _run_for_figures(path.name, generated / path.stem):
                parts += [f"```{{image}} _generated/{path.stem}/{figure}", f":alt: {figure}", "```", ""]
    text = "\n".join(parts)
    target = Path(app.srcdir) / "_gallery.md"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)


def setup(app):
    app.connect("builder-inited", _write_gallery)
