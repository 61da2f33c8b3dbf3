"""SPAseq results: canonical, hashable, comparable between the oracle and the engine (DESIGN.md section 4).

A match of the sequence expression (docs/semantics/spaseq.md#spaseq-3.8) is a witness ``w`` (the events it
selects) with its mapping set ``Omega_m``; the query answer projects every row of ``Omega_m`` on the SELECT
variables (Definition 16).  One :class:`Match` is one (witness, projected row) pair:

* ``window``: the index ``i`` of the tumbling window ``[t+i*omega, t+(i+1)*omega]`` the witness lies in, or
  ``None`` under ``Options.window="anchored"``;
* ``events``: the selected events in witness order, each ``(stream IRI text, time)`` (Definition 2 makes the
  pair unique); a conjunction instance lists one event per conjunct, left to right (the same event twice when two
  conjuncts on one stream match one event, docs/semantics/spaseq.md#spaseq-A9); negated elements and omitted
  optional elements select nothing;
* ``mapping``: the projected row as a sorted tuple of ``(variable name, N-Triples term)``; unbound variables are
  absent.

Results are compared as sets (docs/semantics/spaseq.md#spaseq-A5).  JSON form::

    {"window": 0, "time": 4, "events": [["http://ex.org/pw", 1], ["http://ex.org/wt", 4]],
     "mapping": {"p1": "\\"25\\"^^<http://www.w3.org/2001/XMLSchema#integer>"}}

``time`` is the last selected event's time (informative; :func:`from_json` ignores it).

Emission (docs/semantics/spaseq.md#spaseq-9.5): events with equal timestamps form a *batch* (A8); a match is
determined when the batch of its last selected event is complete, i.e. it is emitted by the engine at the first
event with a later timestamp (or at ``close()``).  A match ending in a negated element is determined when its
window ends: at the first event past the window (or at ``close()``).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from rdflib.term import Node

from ceplab.semantics.rdfstream import nt_term


class Match(NamedTuple):
    """One (witness, projected row) of a SPAseq query (module docstring)."""
    window: Optional[int]
    events: tuple[tuple[str, int], ...]
    mapping: tuple[tuple[str, str], ...]

    @property
    def time(self) -> int:
        """The time of the last selected event (ticks)."""
        return max(t for _, t in self.events)


def term(t: Node) -> str:
    """The canonical N-Triples form of an RDF term, as results carry it."""
    return nt_term(t)


def to_json(r: Match) -> dict:
    """The JSON form of a result (module docstring)."""
    return {"window": r.window, "time": r.time, "events": [[s, t] for s, t in r.events],
            "mapping": dict(r.mapping)}


def from_json(j: dict) -> Match:
    """Inverse of :func:`to_json`.

    Raises:
        ValueError: a malformed object.
    """
    try:
        w = j["window"]
        events = tuple((str(s), int(t)) for s, t in j["events"])
        mapping = tuple(sorted((str(k), str(v)) for k, v in j["mapping"].items()))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a SPAseq result: {j!r} ({e})") from None
    if not events:
        raise ValueError(f"not a SPAseq result (no events): {j!r}")
    return Match(None if w is None else int(w), events, mapping)
