"""CQELS-CEP results: canonical, hashable, comparable between the oracle and the engine
(docs/semantics/cqels.md#cqels-3.7).

The semantics is a snapshot function: for every time point ``t`` in ``[0, H]`` the answer ``[[Q, t]]`` is a finite
*set* of mappings with intervals ``<mu|V, [a, b]>`` (paper (1)).  One :class:`Answer` is one element of one
snapshot:

* ``time``: the evaluation time point ``t`` (integer ticks);
* ``mapping``: ``mu|V`` as a tuple of ``(variable name without '?', N-Triples term)`` sorted by variable name
  (terms as :func:`ceplab.semantics.rdfstream.nt_term` writes them: lexical forms kept, blank nodes as the readers
  labelled them); a projected variable is always bound (mappings are total on their schema);
* ``interval``: ``(a, b)`` with ``0 <= a <= b <= t``.

The same mapping with two intervals is two answers; answers are compared as sets (docs/semantics/cqels.md#cqels-G16).
JSON form (one object per answer, ``ceplab run cqels ... --json`` prints ``{"results": [...]}``)::

    {"time": 16, "mapping": {"s": "<http://example.org/m>"}, "interval": [10, 16]}

The horizon ``H`` (``--until``) defaults to :func:`default_until` (docs/semantics/cqels.md#cqels-3.8).
"""
from __future__ import annotations

from typing import Iterable, NamedTuple, Optional

from rdflib.term import Node

from ceplab.semantics.cqels.ast import Query, window_reach
from ceplab.semantics.rdfstream import StreamElement, nt_term


class Answer(NamedTuple):
    """One element ``<mu|V, [a, b]>`` of the snapshot ``[[Q, t]]`` (module docstring)."""
    time: int
    mapping: tuple[tuple[str, str], ...]
    interval: tuple[int, int]

    @property
    def start(self) -> int:
        """``a``, the interval's start (ticks)."""
        return self.interval[0]

    @property
    def end(self) -> int:
        """``b``, the interval's end (ticks)."""
        return self.interval[1]


def term(t: Node) -> str:
    """The canonical N-Triples form of an RDF term, as answers carry it."""
    return nt_term(t)


def answer(time: int, mapping: dict, interval: tuple[int, int]) -> Answer:
    """An :class:`Answer` from ``{variable name or rdflib Variable: rdflib term or N-Triples text}``.

    Raises:
        ValueError: a malformed interval (``a <= b <= time`` fails) or a non-integer time.
    """
    a, b = interval
    for x in (time, a, b):
        if isinstance(x, bool) or not isinstance(x, int):
            raise ValueError(f"times are integer ticks, got {x!r}")
    if not (0 <= a <= b <= time):
        raise ValueError(f"an answer's interval satisfies 0 <= a <= b <= t, got [{a}, {b}] at t = {time}")
    m = tuple(sorted((str(k), nt_term(v) if isinstance(v, Node) else str(v)) for k, v in mapping.items()))
    return Answer(time, m, (a, b))


def to_json(r: Answer) -> dict:
    """The JSON form of an answer (module docstring)."""
    return {"time": r.time, "mapping": dict(r.mapping), "interval": [r.interval[0], r.interval[1]]}


def from_json(j: dict) -> Answer:
    """Inverse of :func:`to_json`.

    Raises:
        ValueError: a malformed object (missing key, non-integer time, interval not ``[a, b]`` with
            ``0 <= a <= b <= time``, a non-string term).
    """
    try:
        t = j["time"]
        a, b = j["interval"]
        mapping = j["mapping"]
        if not isinstance(mapping, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in mapping.items()):
            raise TypeError("mapping must be an object of strings")
        return answer(t, mapping, (a, b))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a CQELS-CEP answer: {j!r} ({e})") from None


def sort_key(r: Answer) -> tuple:
    """The canonical order of answers: time, then mapping, then interval (how the engine orders what one call
    returns and how the CLI prints)."""
    return (r.time, r.mapping, r.interval)


def snapshots(answers: Iterable[Answer], until: Optional[int] = None) -> dict[int, frozenset[Answer]]:
    """Group answers by time point: ``{t: [[Q, t]]}``; with ``until``, every ``t`` in ``[0, until]`` is a key (empty
    snapshots included) and answers after ``until`` are an error.

    Raises:
        ValueError: an answer with ``time > until``.
    """
    out: dict[int, set] = {t: set() for t in range(until + 1)} if until is not None else {}
    for r in answers:
        if until is not None and r.time > until:
            raise ValueError(f"answer at t = {r.time} after the horizon {until}")
        out.setdefault(r.time, set()).add(r)
    return {t: frozenset(v) for t, v in sorted(out.items())}


def last_input_time(elements: Iterable[StreamElement] = (), static_changes: Iterable[int] = ()) -> int:
    """``L``: the latest time any input mentions: the largest element end or start, and the largest time at which the
    static data changes; 0 when there is none (docs/semantics/cqels.md#cqels-3.8)."""
    out = 0
    for e in elements:
        out = max(out, e.start, e.end)
    for c in static_changes:
        out = max(out, c)
    return out


def default_until(query: Query, elements: Iterable[StreamElement] = (), static_changes: Iterable[int] = ()) -> int:
    """The default horizon ``H = L + R`` (docs/semantics/cqels.md#cqels-3.8): ``L`` is :func:`last_input_time` over
    *all* given elements (streams the query does not read included) and the static change times; ``R`` is
    :func:`ceplab.semantics.cqels.ast.window_reach`.  Every snapshot after ``H`` equals the snapshot at ``H`` except
    that the upper ends of static intervals ``[., t]`` keep growing with ``t``.

    Args:
        query: the parsed query.
        elements: the stream elements (ticks).
        static_changes: the times at which the static data changes (``StaticData.change_times``).
    """
    return last_input_time(elements, static_changes) + window_reach(query)
