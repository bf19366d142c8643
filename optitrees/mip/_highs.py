"""Compile a :class:`~optitrees.mip.Formulation` for HiGHS (one ``passModel``)."""

from __future__ import annotations

import os
import sys
import threading

import numpy as np

__all__ = ["to_highs", "new_highs"]

_first_made = threading.Lock()
_made = False


def new_highs(verbose: bool = False):
    """A ``highspy.Highs`` whose output is off unless ``verbose``.

    The first ``Highs`` of a process prints HiGHS's copyright banner on stdout
    before any option can silence it (in every joblib or grid-search worker
    too); without ``verbose`` that first one is made with file descriptor 1
    pointed at ``/dev/null``.
    """
    import highspy

    global _made
    with _first_made:
        if _made or verbose:
            h = highspy.Highs()
        else:
            sys.stdout.flush()
            saved = os.dup(1)
            try:
                with open(os.devnull, "w") as null:
                    os.dup2(null.fileno(), 1)
                    h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
        _made = True
    h.setOptionValue("output_flag", bool(verbose))
    return h


def to_highs(f, names: bool = True, start=None, highs=None, allow_quadratic: bool = False, name_lists=None):
    """Load ``f`` into a ``highspy.Highs`` object with one ``passModel``.

    Parameters
    ----------
    f : Formulation
    names : bool, default=True
        Pass column and row names (needed for readable exports; ``solve`` passes none). The arrays always
        go through highspy's array overload of ``passModel``.
    start : array of shape (n_cols,), optional
        A start solution handed over with ``setSolution``.
    highs : highspy.Highs, optional
        An existing instance to load into (its options are kept).
    allow_quadratic : bool, default=False
        Pass a quadratic objective as a diagonal Hessian. HiGHS solves
        continuous QPs only, so this is meant for export; solving an MIQP
        needs another backend.
    name_lists : (list of str, list of str), optional
        The column and row names to pass instead of :meth:`~optitrees.mip.Formulation.column_names` /
        ``row_names`` (with ``names``).

    Returns
    -------
    highspy.Highs
    """
    import highspy

    if f.is_quadratic and not allow_quadratic:
        raise ValueError(
            "this formulation has a quadratic objective; HiGHS cannot solve MIQP. "
            "Use solver='scip' or 'gurobi', or a linear outer approximation."
        )
    h = new_highs() if highs is None else highs
    A = f.matrix
    # the array overload of passModel: no per-element conversion (a HighsLp's matrix assignment converts each
    # element: 0.37 s of 6.1M nonzeros, against 0.10 s for the whole array call)
    status = h.passModel(
        f.n_cols, f.n_rows, A.nnz, int(highspy.MatrixFormat.kRowwise),
        int(highspy.ObjSense.kMinimize), float(f.objective_offset), f.cost,
        f.col_lower, f.col_upper, f.row_lower, f.row_upper,
        A.indptr.astype(np.int32), A.indices.astype(np.int32), A.data,
        f.integrality.astype(np.int32))
    if names and status != highspy.HighsStatus.kError:
        # the names in bulk: a copy of the model with its name lists set and passed back is 2x faster than a
        # passColName / passRowName call per name
        lp = h.getLp()
        lp.col_names_, lp.row_names_ = name_lists if name_lists is not None else (f.column_names(), f.row_names())
        status = h.passModel(lp)
    if status == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS rejected the model (passModel returned an error)")
    if f.is_quadratic:
        q = f.quadratic
        nz = np.flatnonzero(q)
        # HiGHS minimizes c x + 1/2 x'Qx, so Q_kk = 2 q_k.
        hstart = np.searchsorted(nz, np.arange(f.n_cols + 1)).astype(np.int32)
        h.passHessian(f.n_cols, len(nz), highspy.HessianFormat.kTriangular,
                      hstart, nz.astype(np.int32), 2.0 * q[nz])
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = np.asarray(start, dtype=float)
        sol.value_valid = True
        h.setSolution(sol)
    return h
