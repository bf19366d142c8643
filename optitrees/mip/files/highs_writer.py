"""The model file written by HiGHS's own writer: what :func:`~optitrees.mip.files.write` falls back to when the
compiled writer's packages (numba, polars: ``pip install "optitrees[fast]"``) are not installed.

The formulation is handed to HiGHS with the names the compiled writer gives (:func:`~.labels.file_names`), its
quadratic objective as a Hessian, and HiGHS writes the format the extension names. HiGHS prints every number with
17 significant digits, so each reads back as the same double, and the file holds the same model; its layout and
its spelling of numbers differ from the compiled writer's (``0.10000000000000001`` for ``0.1``), and it takes about
ten times as long (``bench/overhead.py``). HiGHS writes a ranged row of an LP file as the compiled writer does (a
``>=`` row ``name lo`` and a ``<=`` row ``name up``), but leaves out of an LP file a continuous column in no row,
not in the objective and at the default bounds ``[0, inf)``: such columns are declared here in its bounds section
(``name >= 0``), so every column reads back.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["write_through_highs"]


def write_through_highs(f, path: Path) -> Path:
    """Write ``f`` to ``path`` (``.lp`` or ``.mps``) with HiGHS's writer."""
    import highspy

    from .._highs import to_highs
    from .labels import file_names

    names = (file_names(f, f.variables.values()), file_names(f, f.constraints.values()))
    h = to_highs(f, names=True, allow_quadratic=True, name_lists=names)
    status = h.writeModel(str(path))
    if status == highspy.HighsStatus.kError:
        raise OSError(f"HiGHS could not write the model to {path}")
    if path.suffix.lower() == ".lp":
        _declare_isolated_columns(f, path, names[0])
    return path


def _declare_isolated_columns(f, path: Path, column_names: list[str]) -> None:
    """Add ``name >= 0`` to the bounds section of HiGHS's LP file ``path`` for each continuous column of ``f`` in no
    row, not in the objective and at the default bounds (the columns HiGHS's LP writer leaves out)."""
    in_rows = np.bincount(f.matrix.indices, minlength=f.n_cols) > 0
    isolated = np.flatnonzero(~in_rows & (f.cost == 0) & (f.col_lower == 0)
                              & np.isposinf(f.col_upper) & ~f.integrality.astype(bool)
                              & (f.quadratic == 0 if f.is_quadratic else True))
    if not isolated.size:
        return
    lines = "".join(f" {column_names[j]} >= 0\n" for j in isolated)
    text = path.read_text()
    for header, replacement in (("\nbounds\n", "\nbounds\n" + lines), ("\nbin\n", "\nbounds\n" + lines + "bin\n"),
                                ("\ngen\n", "\nbounds\n" + lines + "gen\n"), ("\nend", "\nbounds\n" + lines + "end")):
        if header in text:
            path.write_text(text.replace(header, replacement, 1))
            return
    raise OSError(f"HiGHS wrote an LP file without a bounds, bin, gen or end line: {path}")
