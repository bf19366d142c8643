"""The base of the library's enums that replaced text switches: each member is, prints and reads as its text."""

from __future__ import annotations

from enum import Enum

__all__ = ["TextEnum"]


class TextEnum(str, Enum):
    """A ``str`` enum whose members equal, print and ``repr`` as their text value (``"optimal"``), so code and
    doctests written against the text keep working.

    >>> class Colour(TextEnum):
    ...     RED = "red"
    >>> Colour.RED == "red", str(Colour.RED), repr(Colour.RED)
    (True, 'red', "'red'")
    """

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return repr(self.value)
