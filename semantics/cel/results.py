"""CEL results: a complex event is a non-empty set of stream positions (paper section 3).

The canonical, hashable form is the tuple of its positions in increasing order; JSON form is the
sorted list. A complex event is emitted at its last position ``max C``.
"""
from __future__ import annotations

from typing import Iterable

ComplexEvent = tuple[int, ...]


def ce(positions: Iterable[int]) -> ComplexEvent:
    """Canonical form of a complex event."""
    return tuple(sorted(set(positions)))


def end(c: ComplexEvent) -> int:
    """The position at which ``c`` is determined and emitted: ``max C``."""
    return c[-1]


def to_json(c: ComplexEvent) -> list[int]:
    return list(c)


def from_json(x: list[int]) -> ComplexEvent:
    return ce(x)
