"""When a C4.5 fit scores its levels with the compiled threshold scan (:mod:`.threshold_scan`).

The compiled scan gives the numpy path's scores to the bit and saves tens of
milliseconds a fit, but numba costs 0.8 s to load in each process and about
7 s to compile the kernel on a machine's first use. :func:`compiled_scan_pays`
weighs that: only fits that repeat in a process (cross-validation, studies,
benchmarks) and have the time to load it use it.
"""

from __future__ import annotations

import sys
from ...budget import remaining

__all__ = ["COMPILED_SCAN_MIN_ROWS", "COMPILE_SECONDS", "compiled_scan_pays"]

#: Rows from which a C4.5 fit may score its levels with the compiled scan (numba, :func:`compiled_scan_pays`).
#: On adult (one-hot, 104 columns) a fit's scans took 25 -> 6 ms at 1,000 rows and 55 -> 26 ms at 4,000 (the fit
#: 0.135 -> 0.10 s), for a cost of 0.8 s once per process (numba's import, the kernel from numba's cache) and
#: about 7 s on a machine's first use (compiling it).
COMPILED_SCAN_MIN_ROWS = 2_000

#: Seconds a fit must have left to use the compiled scan for the first time in a process (it may compile it).
COMPILE_SECONDS = 15.0

#: Hard growths of :data:`COMPILED_SCAN_MIN_ROWS` rows or more that :func:`compiled_scan_pays` was asked about.
_large_growths = 0


def compiled_scan_pays(n_rows, deadline) -> bool:
    """Whether a C4.5 growth on ``n_rows`` rows, to end by ``deadline``, should score its levels with the compiled
    scan (:func:`~optitrees.algorithms.c45.threshold_scan.scan_level`, the same scores as the numpy path).

    It saves tens of milliseconds a fit and costs 0.8 s to load once per process, so: from
    :data:`COMPILED_SCAN_MIN_ROWS` rows, once this process has it; else from the process's second such growth
    (cross-validation, studies, benchmarks: a one-off fit keeps the numpy path), with :data:`COMPILE_SECONDS`
    left, as its first use on a machine compiles it.
    """
    global _large_growths
    if n_rows < COMPILED_SCAN_MIN_ROWS:
        return False
    _large_growths += 1
    scan = sys.modules.get(f"{__package__}.threshold_scan")
    if scan is not None and scan.is_loaded():
        return True
    if _large_growths < 2 or (deadline is not None and remaining(deadline) < COMPILE_SECONDS):
        return False
    try:
        from . import threshold_scan  # noqa: F401
    except (ImportError, RuntimeError):     # numba cannot load, or finds no writable place for its cache
        return False
    return True
