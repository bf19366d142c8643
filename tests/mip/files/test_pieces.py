"""The pool of pieces: rows of pieces joined, and pieces of every length copied whole by the 16-byte moves."""

import numpy as np

from optitrees.mip.files.pieces import Pool, lines


def test_joined_concatenates_each_row_of_pieces():
    pool = Pool()
    first = pool.add_strings(["a", "bc", "", "def"])
    pool.finish()
    buffer, lengths = pool.joined(lines(3, first + np.array([0, 1, 3]), first + 2, first + np.array([3, 0, 1])))
    assert bytes(buffer).decode() == "adefbcadefbc" and lengths.tolist() == [4, 3, 5]


def test_pieces_of_every_length_around_the_16_byte_moves_are_copied_whole():
    """Pieces are copied in moves of 16 bytes that overrun their end: strings of 0 to 40 bytes, in every
    order, come out exactly, and no move writes past the ``SLACK`` bytes the output keeps spare."""
    from optitrees.mip.files.pieces import SLACK, _gather

    strings = ["".join(chr(ord("a") + (n + k) % 26) for k in range(n)) for n in range(41)]
    pool = Pool()
    first = pool.add_strings(strings)
    pool.finish()
    order = np.random.default_rng(0).permutation(np.repeat(np.arange(41), 3))
    buffer, lengths = pool.joined(lines(len(order), first + order, first + 16))
    assert bytes(buffer).decode() == "".join(strings[i] + strings[16] for i in order)
    assert lengths.tolist() == [len(strings[i]) + 16 for i in order]

    pieces = first + np.append(order, 17)                       # a 17-byte piece last: a 15-byte overrun
    total = int(pool.lengths(pieces).sum())
    guarded = np.full(total + SLACK + 64, ord("#"), np.uint8)
    done, used = _gather(pool.buffer, pool.offsets, pieces, guarded[:total + SLACK])
    assert (done, used) == (len(pieces), total)
    assert bytes(guarded[:total]).decode() == "".join(strings[i] for i in order) + strings[17]
    assert (guarded[total + SLACK:] == ord("#")).all()
