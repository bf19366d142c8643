"""Readable numbers: shortest decimals strictly inside an interval, exact printing."""

import itertools
import math

import numpy as np
import pytest

from optitrees.readable import format_number, readable_between, round_into, round_significant, significant_neighbours


def _significant_digits(v):
    text = repr(float(v)).lstrip("-")
    mantissa = text.split("e")[0].replace(".", "").strip("0")
    return max(len(mantissa), 1)


@pytest.mark.parametrize("seed", range(5))
def test_readable_between_is_inside_and_no_shorter_decimal_is(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        lo = float(rng.normal() * 10.0 ** rng.integers(-3, 4))
        hi = lo + float(10.0 ** rng.uniform(-6, 2))
        v = readable_between(lo, hi)
        assert lo < v < hi
        # brute force: no decimal with fewer significant digits lies strictly inside
        d = _significant_digits(v)
        if d > 1:
            e_top = math.floor(math.log10(max(abs(lo), abs(hi)))) + 1
            for e in range(e_top - d + 1, e_top + 2):
                step = 10.0 ** e
                k0, k1 = math.floor(lo / step) + 1, math.ceil(hi / step) - 1
                assert k0 > k1 or all(_significant_digits(float(f"{k}e{e}")) >= d
                                      for k in range(k0, min(k1, k0 + 50) + 1))


def test_hand_picked_values():
    assert readable_between(65, 75) == 70 and readable_between(70, 72) == 71 and readable_between(70, 71) == 70.5
    assert readable_between(70, 70.0055) == 70.003 and readable_between(-np.inf, np.inf) == 0.0
    assert 5 < readable_between(5, np.inf) and readable_between(-np.inf, -0.37) < -0.37
    with pytest.raises(ValueError, match="empty interval"):
        readable_between(1.0, 1.0)


def test_format_number_reads_back_exactly():
    for v in itertools.chain([0.0, -0.0, 70.0, 0.1, 1e-9, -3.2e-9, 1e22, 123456.789],
                             np.random.default_rng(0).normal(size=200) * 1e5):
        text = format_number(v)
        assert float(text) == float(v) and not text.endswith(".0")
    assert format_number(70.0) == "70" and format_number(-0.25) == "-0.25"


def test_round_significant_and_round_into():
    assert round_significant([0.0123456, 12345.6, -7.77], 3).tolist() == [0.0123, 12300.0, -7.77]
    assert round_into(3.14159, 3.1, 3.2) == 3.14 and round_into(3.14159, 3.14, 3.142) == 3.1416
    assert round_into(5.0, 5.0, 6.0) == readable_between(5.0, 6.0)          # not strictly inside: the gap's number


def test_significant_neighbours_bracket_the_value_with_printable_numbers():
    rng = np.random.default_rng(0)
    for value in np.concatenate([10.0 ** rng.uniform(-3, 3, 200), [0.5, 1.0, 2.5, 999.5, 0.0999]]):
        found = significant_neighbours(float(value), 3)
        assert all(float(f"{v:.3g}") == v for v in found)
        if len(found) == 1:
            assert found[0] == pytest.approx(value, rel=1e-12)
        else:
            lo, hi = found
            assert lo < value < hi and float(f"{value:.3g}") in found
            assert hi - lo == pytest.approx(10.0 ** (np.floor(np.log10(value)) - 2), rel=1e-9)
