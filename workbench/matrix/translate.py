"""What a language declares to take part in the matrix: a translation of core queries and streams into its own,
and a projection of its results back to core matches (docs/matrix.md).

A language plugin sets ``Language.translation`` to a zero-argument callable returning a :class:`Translation`.
"""
from __future__ import annotations

from typing import Any, Iterable, Protocol, Sequence

from ceplab.workbench.matrix.core import CoreEvent, CoreQuery, Match


class NotExpressible(Exception):
    """A core construct has no counterpart in the language (the matrix cell says so; never a guess).

    Attributes:
        construct: the construct (one of :data:`ceplab.workbench.matrix.core.CONSTRUCTS`, or ``nested:..``).
        reason: one sentence, citing the paper, on why the language cannot express it.
    """

    def __init__(self, construct: str, reason: str) -> None:
        super().__init__(f"{construct}: {reason}")
        self.construct = construct
        self.reason = reason


class Translation(Protocol):
    """The translation of one language.

    Methods:
        query(q) -> (query_text, switches): ``q`` in the language's concrete syntax (what ``Language.parse``
            reads) and the switch values (``{Options field: value as text}``, as ``--set``) that give it the
            core meaning; raises :class:`NotExpressible`.
        stream(events) -> Stream: the core stream as the language's stream (event ``i`` at tick ``i``, position
            ``i``; the position is carried where the language's results need it for :meth:`project`).
        project(results, events) -> set of Match: the language's results (canonical form) as core matches, the
            positions of the stream events each result used.
    """

    def query(self, q: CoreQuery) -> tuple[str, dict[str, str]]: ...

    def stream(self, events: Sequence[CoreEvent]) -> Any: ...

    def project(self, results: Iterable[Any], events: Sequence[CoreEvent]) -> frozenset[Match]: ...
