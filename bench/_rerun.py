"""Rerunning some models of a saved result table: ``--models`` picks them, the table's other rows are kept."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def add_models_option(parser) -> None:
    parser.add_argument("--models", nargs="+", help="rerun only the models whose label contains one of these; "
                        "the other rows of the saved table are kept")


def saved_rows(path: Path, models) -> pd.DataFrame | None:
    """The saved table when only some models are rerun (``None`` otherwise)."""
    return pd.read_csv(path) if models and path.exists() else None


def selected(label: str, models) -> bool:
    """Whether the model ``label`` runs: every model without ``--models``."""
    return not models or any(m in label for m in models)


def merged(kept: pd.DataFrame | None, frame: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """The saved rows whose ``key`` was not rerun, then the new rows."""
    if kept is None:
        return frame
    rerun = kept.set_index(key).index.isin(frame.set_index(key).index)
    return pd.concat([kept[~rerun], frame], ignore_index=True)
