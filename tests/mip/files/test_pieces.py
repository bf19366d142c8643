"""The pieces files are made of: names gathered from labels, numbers formatted once and exactly, the pool."""

import numpy as np
import pytest

from optitrees.formulations import olct
from optitrees.mip.files.pieces import Numbers, Pool, file_labels, lines, names


def _strings(pool: Pool, ids) -> list[str]:
    return [bytes(pool.buffer[pool.offsets[i]:pool.offsets[i + 1]]).decode() for i in ids]


def test_names_are_the_formulations_names_with_a_leading_space(tiny_xor):
    """Groups of zero to three index sets, in row-major order, as ``Formulation.column_names`` spells them."""
    f = olct(*tiny_xor, depth=2, tangents="V1")
    f.add_set("one", [0])
    f.add_variables("scalar", ())
    pool = Pool()
    columns, rows = names(f, list(f.variables.values()), list(f.constraints.values()))
    first_col, first_row = pool.add(*columns), pool.add(*rows)
    pool.finish()
    assert any(len(g.dims) == 3 for g in f.constraints.values())
    assert _strings(pool, first_col + np.arange(f.n_cols)) == [" " + n for n in f.column_names()]
    assert _strings(pool, first_row + np.arange(f.n_rows)) == [" " + n for n in f.row_names()]
    assert _strings(pool, [first_col + f.n_cols - 1]) == [" scalar()"]


def test_file_labels_keep_safe_labels_and_make_the_others_safe():
    assert file_labels(np.arange(3)).tolist() == ["0", "1", "2"]
    assert file_labels(["age", "mean_radius", "neg1.9"]).tolist() == ["age", "mean_radius", "neg1.9"]
    assert file_labels(["capital gain", "capital-gain", "x>=1"]).tolist() == ["capital_gain", "capital_gain_1",
                                                                             "x__1"]


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
    text = _strings(pool, ids)
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
    assert _strings(pool, [ids[-1]]) == [(" + " if terms else " ") + "0.30000000000000004"]


def test_joined_concatenates_each_row_of_pieces():
    pool = Pool()
    first = pool.add_strings(["a", "bc", "", "def"])
    pool.finish()
    buffer, lengths = pool.joined(lines(3, first + np.array([0, 1, 3]), first + 2, first + np.array([3, 0, 1])))
    assert bytes(buffer).decode() == "adefbcadefbc" and lengths.tolist() == [4, 3, 5]


def test_pieces_of_every_length_around_the_16_byte_moves_are_copied_whole():
    """Pieces are copied in moves of 16 bytes that overrun their end: strings of 0 to 40 bytes, in every
    order, come out exactly, and the last one's overrun stays within the buffer's slack."""
    strings = ["".join(chr(ord("a") + (n + k) % 26) for k in range(n)) for n in range(41)]
    pool = Pool()
    first = pool.add_strings(strings)
    pool.finish()
    order = np.random.default_rng(0).permutation(np.repeat(np.arange(41), 3))
    buffer, lengths = pool.joined(lines(len(order), first + order, first + 16))
    assert bytes(buffer).decode() == "".join(strings[i] + strings[16] for i in order)
    assert lengths.tolist() == [len(strings[i]) + 16 for i in order]


def _coefficient_text(values, first, stop, absolute):
    """Every coefficient's text as the compiled passes read it from :func:`coefficient_blocks`, checked to
    read back as its value; the number of strings each table formatted, per block."""
    from optitrees.mip.files.pieces import coefficient_blocks

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
    from optitrees.mip.files import pieces

    rng = np.random.default_rng(3)
    values, first, stop = _items(rng, copies=4)
    monkeypatch.setattr(pieces, "_segment_hashes", lambda bits, first, stop, mask: np.zeros(len(first), np.uint64))
    formatted = _coefficient_text(values, first, stop, absolute=False)
    assert len(formatted) == 1 and formatted[0] == len(np.unique(values))


@pytest.mark.parametrize("absolute", [False, True])
def test_distinct_items_are_formatted_block_by_block(absolute, monkeypatch):
    """Items of distinct coefficients gain nothing from sharing: blocks of about ``_PER_BLOCK`` coefficients,
    each formatted in full; a ranged row of an .lp file (the same item twice in a row) points at one text."""
    from optitrees.mip.files import pieces

    rng = np.random.default_rng(4)
    values, first, stop = _items(rng, copies=1)
    first, stop = np.insert(first, 5, first[5]), np.insert(stop, 5, stop[5])
    monkeypatch.setattr(pieces, "_PER_BLOCK", 50)
    formatted = _coefficient_text(values, first, stop, absolute)
    # each coefficient formatted once, the repeated row's twice if a block starts at the repeat
    assert len(formatted) > 5 and len(values) <= sum(formatted) <= len(values) + stop[5] - first[5]


@pytest.mark.parametrize("distinct", [False, True])
def test_coefficient_table_holds_each_coefficients_digits(distinct, monkeypatch):
    """Few distinct coefficients (binary features) are formatted once each and addressed by id; mostly
    distinct ones are formatted in place (no ids). In four slices or one, each string reads back as its
    coefficient."""
    from optitrees.mip.files import pieces

    rng = np.random.default_rng(1)
    values = rng.normal(size=3000) if distinct else rng.choice([0.5, 1.0, 2.0, 1e-3], 3000)
    for threads in (1, 4):
        monkeypatch.setattr(pieces, "_PER_THREAD", 1 if threads > 1 else 1 << 19)
        table = pieces.CoefficientTable(values)
        assert (table.ids is None) == distinct
        ids = np.arange(len(values)) if table.ids is None else table.ids
        text = [bytes(table.buffer[table.offsets[i]:table.offsets[i + 1]]).decode() for i in ids]
        np.testing.assert_array_equal([float(t) for t in text], values)
        if not distinct:
            assert len(table.offsets) - 1 <= 4 * threads          # each distinct value once per slice
        assert table.longest == max(map(len, text))
