"""Semantic switches of SPAseq (docs/semantics/spaseq.md#spaseq-8).

The paper's formulas (Definitions 7-16 of Gillani, Zimmermann, Picard, Laforest, Semantic Web journal) leave
several readings open; every one that changes answers is a field of :class:`Options`, honoured by the clingo
oracle (``asp/spaseq.py``) and the NFA engine (``engine/spaseq``).  The defaults are the readings of
docs/semantics/spaseq.md#spaseq-3.8 (the witness-based reference semantics).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Options:
    """Named switches for SPAseq's ambiguities.

    Attributes:
        window: A11, how ``WITHIN omega`` cuts the stream. ``"tumbling_closed"`` (default, Definition 16 as
            reconstructed: windows ``[t+i*omega, t+(i+1)*omega]``, closed, so an event on a boundary belongs to
            two windows and a match lies wholly inside one), ``"tumbling_halfopen"`` (``[t+i*omega,
            t+(i+1)*omega)``) or ``"anchored"`` (the engine's run-anchored check of Algorithm 2: a match's last
            event is at most ``omega`` after its first; no window index).
        origin: the issue time ``t`` of the query in ticks (Definition 16); events before it are ignored.
        relevance: A4, when an event between two selected ones is *relevant* for skip-till-next (Definition
            11) and negation: ``"context"`` (default: it would extend this partial match, ``Ext(Omega, e)`` non-empty)
            or ``"standalone"`` (its GPM matches the event on its own, the literal Definition 11).
        contiguity: A7, the events that break strict contiguity (Definition 12) when they lie strictly
            between two selected events: ``"declared"`` (default: events of any stream declared with ``FROM
            STREAM``), ``"streamset"`` (events of any stream of the input) or ``"stream"`` (only events of the
            streams the later element's GPMs listen on: what the engine's run index by stream does).
        disjunction: A10, ``"union"`` (default, Definition 9: every matching alternative gives an instance) or
            ``"first_match"`` (the engine's reading: an alternative gives an instance at time ``tau`` only if no
            alternative written before it has an instance at ``tau`` that would extend the same partial match).
        kleene_iter: A2, the connector between two iterations of ``Psi+``: ``"same"`` (default: the connector
            written before ``Psi+``; skip-till-next for a first element) or ``"stn"`` (always skip-till-next,
            as the standalone Definition 13).
        negation: A18, the events ``Psi!`` (between elements ``j-1`` and ``j+1``) forbids: ``"between"``
            (default: no relevant instance strictly between the two selected events) or ``"through_next"``
            (the engine's reading: nor at the timestamp of the event selected for ``j+1``).

    Engine options (section 7 of the paper; not semantic switches: the oracle ignores them and the answers are
    identical under every value, which the tests check):
        engine_push_window: delete expired runs before anything else happens in an event's run loop
            ("pushing windows", section 7.2).
        engine_push_stateful: before a full GPM evaluation, check that the event holds the values a run has
            already bound for the GPM's stateful triple patterns ("pushing stateful predicates").
        engine_stream_index: index runs by the stream names their active state waits on (Fig. 12); runs
            under strict contiguity still see every declared stream's events (docs/semantics/spaseq.md#spaseq-A7).
        engine_lazy_conjunction: buffer the events of a conjunction state and evaluate its GPMs only when
            enough events of one timestamp are there (Algorithm 10, Appendix D).
        engine_disjunction_order: ``"cost"`` (try a disjunction's alternatives cheapest first, by the static
            estimate of section 7.3) or ``"written"``.
    """

    window: Literal["tumbling_closed", "tumbling_halfopen", "anchored"] = "tumbling_closed"
    origin: int = 0
    relevance: Literal["context", "standalone"] = "context"
    contiguity: Literal["declared", "streamset", "stream"] = "declared"
    disjunction: Literal["union", "first_match"] = "union"
    kleene_iter: Literal["same", "stn"] = "same"
    negation: Literal["between", "through_next"] = "between"
    engine_push_window: bool = True
    engine_push_stateful: bool = True
    engine_stream_index: bool = True
    engine_lazy_conjunction: bool = True
    engine_disjunction_order: Literal["cost", "written"] = "cost"

    def __post_init__(self) -> None:
        import typing

        hints = typing.get_type_hints(type(self))
        for name, tp in hints.items():
            v = getattr(self, name)
            if typing.get_origin(tp) is Literal:
                allowed = typing.get_args(tp)
                if v not in allowed:
                    raise ValueError(f"Options.{name} must be one of {allowed}, got {v!r}")
        for name in ("engine_push_window", "engine_push_stateful", "engine_stream_index",
                     "engine_lazy_conjunction"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Options.{name} must be true or false, got {getattr(self, name)!r}")
        if not isinstance(self.origin, int) or isinstance(self.origin, bool):
            raise ValueError(f"Options.origin must be an integer number of ticks, got {self.origin!r}")


ENGINE_READINGS = Options(window="anchored", relevance="context", contiguity="stream", disjunction="first_match",
                          kleene_iter="same", negation="through_next")
"""The readings of the authors' Java engine (docs/semantics/spaseq.md#spaseq-8): run-anchored windows, contiguity
per stream, first-match disjunction, negation that also tests the next selected event."""


def profile(name: str) -> Options:
    """A named switch profile: ``"default"`` (docs/semantics/spaseq.md#spaseq-3.8) or ``"engine"``
    (:data:`ENGINE_READINGS`).

    Raises:
        ValueError: an unknown profile name.
    """
    if name == "default":
        return Options()
    if name == "engine":
        return ENGINE_READINGS
    raise ValueError(f"unknown SPAseq profile {name!r}; known: default, engine")
