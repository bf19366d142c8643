"""Numbers as files write them: formatted once each, and read back as the same doubles."""

import numpy as np
import pytest

from optitrees.mip.files.numbers import Numbers
from optitrees.mip.files.pieces import Pool

from _support import pool_strings


@pytest.mark.parametrize("terms", [False, True])
def test_numbers_read_back_as_the_same_doubles(terms):
    """Every value (random doubles of every magnitude, integers, -0.0, subnormals) is written once per
    slice and reads back exactly; an .lp term carries its sign as `` + `` / `` - ``."""
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.normal(size=500) * 10.0 ** rng.integers(-30, 30, 500), [0.0, -0.0, 1.0, -2.0,
                             5e-324, 1.7976931348623157e308, 1e16, 0.1 + 0.2]])
    numbers = Numbers(terms=terms)
    numbers.add(values)
    numbers.add(values[:10])
    pool = Pool()
    ids, again = numbers.finish(pool)
    pool.finish()
    text = pool_strings(pool, ids)
    if terms:
        assert all(t[:3] == (" - " if np.signbit(v) else " + ") for t, v in zip(text, values))
        read = [float(t[1] + t[3:]) for t in text]
    else:
        assert all(t[0] == " " for t in text)
        read = [float(t) for t in text]
    np.testing.assert_array_equal(read, values)
    assert np.signbit(read[-7]) and not np.signbit(read[-8])
    np.testing.assert_array_equal(again, ids[:10])
    assert pool.size == len(np.unique(values.view(np.int64)))          # each distinct double formatted once
    assert pool_strings(pool, [ids[-1]]) == [(" + " if terms else " ") + "0.30000000000000004"]
