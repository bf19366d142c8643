"""``monotonic_cst`` with scikit-learn's meaning: per feature ``+1`` (the positive class's score never falls as the
feature rises, all else fixed), ``-1`` (never rises) or ``0`` (free); given as one number per feature or as
``{feature name: sign}`` (features not named are free), as scikit-learn's trees and gradient boosting take it."""

from __future__ import annotations

import numpy as np

__all__ = ["monotonic_signs"]


def monotonic_signs(monotonic_cst, names) -> np.ndarray | None:
    """The signs of ``monotonic_cst`` over the features ``names``: an int array of ``-1 / 0 / +1``, or ``None``
    when nothing is constrained (``None``, or every sign 0).

    Raises
    ------
    ValueError
        A sign is not -1, 0 or 1; the sequence does not have one sign per feature; the dict names a feature the
        data do not have.
    """
    if monotonic_cst is None:
        return None
    names = [str(n) for n in names]
    if isinstance(monotonic_cst, dict):
        unknown = [k for k in monotonic_cst if str(k) not in names]
        if unknown:
            raise ValueError(f"monotonic_cst names features the data do not have: {unknown}")
        signs = np.zeros(len(names), np.int64)
        for key, value in monotonic_cst.items():
            signs[names.index(str(key))] = _sign(value, key)
    else:
        values = np.asarray(monotonic_cst, dtype=object).ravel() if not isinstance(monotonic_cst, str) else None
        if values is None or len(values) != len(names):
            raise ValueError(f"monotonic_cst must have one sign per feature ({len(names)}) or be a dict by feature "
                             f"name; got {monotonic_cst!r}")
        signs = np.array([_sign(v, names[j]) for j, v in enumerate(values)], np.int64)
    return signs if signs.any() else None


def _sign(value, name) -> int:
    if isinstance(value, (bool, np.bool_)) or value not in (-1, 0, 1):
        raise ValueError(f"monotonic_cst for feature {name!r} must be -1, 0 or 1, got {value!r}")
    return int(value)
