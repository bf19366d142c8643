"""The matrix's coefficients as text: items with equal coefficients share it, the others go block by block, and
every coefficient's string reads back as its value."""

import numpy as np
import pytest

from optitrees.mip.files import coefficients, numbers
from optitrees.mip.files.coefficients import coefficient_blocks


def _coefficient_text(values, first, stop, absolute):
    """Every coefficient's text as the compiled passes read it from :func:`coefficient_blocks`, checked to
    read back as its value; the number of strings each table formatted, per block."""
    formatted, seen = [], np.zeros(len(values), bool)
    for a, b, base, table in coefficient_blocks(values, first, stop, absolute=absolute):
        formatted.append(len(table.offsets) - 1)
        for i in range(a, b):
            for k in range(first[i], stop[i]):
                u = base[i] + k - first[i]
                string = u if table.ids is None else table.ids[u]
                text = bytes(table.buffer[table.offsets[string]:table.offsets[string + 1]]).decode()
                assert float(text) == (abs(values[k]) if absolute else values[k])
                assert np.signbit(float(text)) == (not absolute and np.signbit(values[k]))
                seen[k] = True
    assert seen[np.concatenate([np.arange(a, b) for a, b in zip(first, stop)])].all()
    return formatted


def _items(rng, copies):
    """Items of 0-30 distinct Gaussian coefficients, each repeated ``copies`` times (every other copy negated),
    in shuffled order: (values, first, stop)."""
    segments = [rng.normal(size=rng.integers(0, 30)) for _ in range(40)]
    items = [s * (-1 if c % 2 else 1) for s in segments for c in range(copies)]
    items = [items[i] for i in rng.permutation(len(items))]
    counts = np.array([len(s) for s in items])
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return np.concatenate(items), first, first + counts


@pytest.mark.parametrize("absolute", [False, True])
def test_items_with_the_same_coefficients_share_their_text(absolute):
    """Score-variable models repeat the feature columns once per node: items equal bit for bit (up to the sign
    when the text holds absolute values) are formatted once, in one table."""
    rng = np.random.default_rng(2)
    values, first, stop = _items(rng, copies=4)
    formatted = _coefficient_text(values, first, stop, absolute)
    distinct = np.unique((np.abs(values) if absolute else values).view(np.int64))
    assert len(formatted) == 1 and formatted[0] == len(distinct)


def test_a_hash_collision_costs_a_repeat_not_a_wrong_number(monkeypatch):
    """With every item hashed alike, representatives are still chosen by comparing coefficients."""
    rng = np.random.default_rng(3)
    values, first, stop = _items(rng, copies=4)
    monkeypatch.setattr(coefficients, "_segment_hashes",
                        lambda bits, first, stop, mask: np.zeros(len(first), np.uint64))
    formatted = _coefficient_text(values, first, stop, absolute=False)
    assert len(formatted) == 1 and formatted[0] == len(np.unique(values))


@pytest.mark.parametrize("absolute", [False, True])
def test_distinct_items_are_formatted_block_by_block(absolute, monkeypatch):
    """Items of distinct coefficients gain nothing from sharing: blocks of about ``_PER_BLOCK`` coefficients,
    each formatted in full; a ranged row of an .lp file (the same item twice in a row) points at one text."""
    rng = np.random.default_rng(4)
    values, first, stop = _items(rng, copies=1)
    first, stop = np.insert(first, 5, first[5]), np.insert(stop, 5, stop[5])
    monkeypatch.setattr(coefficients, "_PER_BLOCK", 50)
    formatted = _coefficient_text(values, first, stop, absolute)
    # each coefficient formatted once, the repeated row's twice if a block starts at the repeat
    assert len(formatted) > 5 and len(values) <= sum(formatted) <= len(values) + stop[5] - first[5]


@pytest.mark.parametrize("distinct", [False, True])
def test_coefficient_table_holds_each_coefficients_digits(distinct, monkeypatch):
    """Few distinct coefficients (binary features) are formatted once each and addressed by id; mostly
    distinct ones are formatted in place (no ids). In four slices or one, each string reads back as its
    coefficient."""
    rng = np.random.default_rng(1)
    values = rng.normal(size=3000) if distinct else rng.choice([0.5, 1.0, 2.0, 1e-3], 3000)
    for threads in (1, 4):
        monkeypatch.setattr(numbers, "_THREADS", threads)
        monkeypatch.setattr(numbers, "_PER_THREAD", 1 if threads > 1 else 1 << 19)
        table = coefficients.CoefficientTable(values)
        assert (table.ids is None) == distinct
        ids = np.arange(len(values)) if table.ids is None else table.ids
        text = [bytes(table.buffer[table.offsets[i]:table.offsets[i + 1]]).decode() for i in ids]
        np.testing.assert_array_equal([float(t) for t in text], values)
        if not distinct:
            assert len(table.offsets) - 1 <= 4 * threads          # each distinct value once per slice
        assert table.longest == max(map(len, text))
