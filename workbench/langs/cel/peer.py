"""Peer adapter: run CEL queries through OpenCEP (github.com/ilya-kolchinsky/OpenCEP).

OpenCEP is a pure-Python CEP library. It is not a dependency of ceplab and none of its code lives in
this project: point the environment variable ``OPENCEP_HOME`` at a checkout of it and this adapter
puts that directory on ``sys.path``. Without ``OPENCEP_HOME`` (or with a directory that does not hold
OpenCEP's ``CEP.py``) :func:`available` is False and :func:`unavailable_reason` says why; callers skip
the peer with that message.

Translation (only the operators the benchmark queries use):

=========================  ==========================================================
CEL                        OpenCEP
=========================  ==========================================================
``R AS x``                 ``PrimitiveEventStructure("R", "x")``
``phi ; psi``              ``SeqOperator(...)`` (nested sequences are flattened)
``phi+``                   ``KleeneClosureOperator(...)`` (min 1, no max)
``WITHIN w``               ``Pattern(..., timedelta(seconds=w))``
no strategy (``ALL``)      OpenCEP's default: every match, no consumption policy
=========================  ==========================================================

Anything else (OR, FILTER, AND, selection strategies) raises :class:`UnsupportedError`.

Window rule: events are given timestamps equal to their stream positions in seconds, so OpenCEP's
"``max timestamp - min timestamp <= window``" check is exactly CEL's ``WITHIN w`` reading
``max C - min C <= w`` in positions (docs/semantics/cel.md#cel-G8). Without ``WITHIN`` the window is the whole
stream.

On Python 3.11 OpenCEP imports ``collections.Callable``, removed in 3.10; :func:`load` restores it
(``collections.Callable = collections.abc.Callable``) before importing.
"""
from __future__ import annotations

import collections
import collections.abc
import os
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.cel import ast as A
from ceplab.semantics.events import Event
from ceplab.semantics.errors import UnsupportedError

ENV = "OPENCEP_HOME"
_EPOCH = datetime(2000, 1, 1)


@dataclass(frozen=True)
class PeerResult:
    """What OpenCEP found on one stream.

    Attributes:
        results: the matches as sorted position tuples (CEL's canonical complex event form), in the
            order OpenCEP reported them; duplicates, if OpenCEP reports any, are kept.
        seconds: wall time of ``CEP.run`` (building OpenCEP's events from raw dicts included, the
            pattern compilation excluded).
        events: number of events fed.
    """

    results: list[tuple[int, ...]]
    seconds: float
    events: int

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("inf")


def home() -> Path | None:
    """The OpenCEP checkout named by ``OPENCEP_HOME``, or None when unset or not an OpenCEP tree."""
    h = os.environ.get(ENV)
    if not h:
        return None
    p = Path(h).expanduser()
    return p if (p / "CEP.py").is_file() else None


def unavailable_reason() -> str | None:
    """Why the peer cannot run (a sentence for the user), or None when it can."""
    h = os.environ.get(ENV)
    if not h:
        return (f"peer opencep skipped: {ENV} is not set (point it at a checkout of "
                "github.com/ilya-kolchinsky/OpenCEP)")
    if home() is None:
        return f"peer opencep skipped: {ENV}={h} does not contain OpenCEP's CEP.py"
    try:
        load()
    except Exception as e:  # an import error inside OpenCEP: report, do not crash the caller
        return f"peer opencep skipped: importing OpenCEP from {h} failed: {type(e).__name__}: {e}"
    return None


def available() -> bool:
    """True when OpenCEP can be imported from ``OPENCEP_HOME``."""
    return unavailable_reason() is None


_MOD: dict[str, Any] = {}


def load() -> dict[str, Any]:
    """Import the OpenCEP names the adapter uses (once) and return them by name.

    Raises:
        RuntimeError: ``OPENCEP_HOME`` unset or not an OpenCEP checkout.
        ImportError: OpenCEP itself fails to import.
    """
    if _MOD:
        return _MOD
    h = home()
    if h is None:
        raise RuntimeError(f"{ENV} is not set or does not point to an OpenCEP checkout")
    if not hasattr(collections, "Callable"):
        collections.Callable = collections.abc.Callable  # type: ignore[attr-defined]
    if str(h) not in sys.path:
        sys.path.insert(0, str(h))
    from base.DataFormatter import DataFormatter, EventTypeClassifier  # type: ignore
    from base.Event import AggregatedEvent, Event as OEvent  # type: ignore
    from base.Pattern import Pattern  # type: ignore
    from base.PatternStructure import (KleeneClosureOperator, PrimitiveEventStructure,  # type: ignore
                                       SeqOperator)
    from CEP import CEP  # type: ignore
    from condition.Condition import TrueCondition  # type: ignore
    from stream.Stream import Stream  # type: ignore

    class _TypeClassifier(EventTypeClassifier):
        def get_event_type(self, payload: dict) -> str:
            return payload["type"]

    class _DictFormatter(DataFormatter):
        """Raw events are dicts ``{"type": R, "pos": i}``; timestamp = epoch + i seconds.

        With ``index_fix`` every primitive event skips one value of OpenCEP's global event counter,
        so the aggregated (Kleene) events, which take the counter's current value without
        advancing it, never share an identity with a primitive event (see :func:`run`).
        """

        def __init__(self, index_fix: bool = False) -> None:
            super().__init__(_TypeClassifier())
            self.index_fix = index_fix

        def parse_event(self, raw_data: dict) -> dict:
            if self.index_fix:
                OEvent.counter += 1
            return dict(raw_data)

        def get_event_timestamp(self, payload: dict) -> datetime:
            return _EPOCH + timedelta(seconds=payload["pos"])

    _MOD.update(Pattern=Pattern, SeqOperator=SeqOperator, KleeneClosureOperator=KleeneClosureOperator,
                PrimitiveEventStructure=PrimitiveEventStructure, CEP=CEP, TrueCondition=TrueCondition,
                Stream=Stream, AggregatedEvent=AggregatedEvent, Formatter=_DictFormatter)
    return _MOD


def _structure(f: A.Formula, m: dict[str, Any]) -> Any:
    if isinstance(f, A.Atom):
        return m["PrimitiveEventStructure"](f.rel, f.var)
    if isinstance(f, A.Seq):
        parts: list[A.Formula] = []

        def flat(g: A.Formula) -> None:
            if isinstance(g, A.Seq):
                flat(g.left)
                flat(g.right)
            else:
                parts.append(g)
        flat(f)
        return m["SeqOperator"](*[_structure(p, m) for p in parts])
    if isinstance(f, A.Plus):
        return m["KleeneClosureOperator"](_structure(f.body, m))
    raise UnsupportedError(f"the OpenCEP adapter does not translate {type(f).__name__} ({f})")


def pattern(query: A.Query, stream_length: int | None = None) -> Any:
    """The OpenCEP ``Pattern`` for a CEL query (atoms, ``;``, ``+``, ``WITHIN``; strategy ALL).

    Args:
        query: the parsed CEL query.
        stream_length: used as the window when the query has no ``WITHIN`` (whole stream).

    Raises:
        UnsupportedError: OR, FILTER, AND or a selection strategy.
    """
    if query.strategy != "ALL":
        raise UnsupportedError(f"the OpenCEP adapter runs only strategy ALL, not {query.strategy}")
    m = load()
    w = query.within if query.within is not None else (stream_length or 0) + 1
    return m["Pattern"](_structure(query.formula, m), m["TrueCondition"](), timedelta(seconds=w))


def _positions(ev: Any, m: dict[str, Any]) -> Iterable[int]:
    if isinstance(ev, m["AggregatedEvent"]):
        for e in ev.primitive_events:
            yield from _positions(e, m)
    else:
        yield ev.payload["pos"]


def run(query: A.Query, events: Sequence[Event], index_fix: bool = False) -> PeerResult:
    """Run ``query`` through OpenCEP on ``events`` (timestamps = positions in seconds).

    Returns every match OpenCEP reports, as sorted position tuples.

    Args:
        query: the CEL query (see :func:`pattern` for what translates).
        events: the stream; ``event.position`` gives the timestamp.
        index_fix: work around an OpenCEP identity bug (found by this benchmark, upstream commit
            e320ad8). OpenCEP identifies events by a global serial number (``Event.counter``,
            compared by ``Event.__eq__``/``__hash__``); an ``AggregatedEvent`` built by a Kleene
            closure takes the counter's *current* value without advancing it, so it collides with
            the next primitive event read. When that next event is the one completing the match
            (``A A B`` for ``A+ ; B``), every Kleene set containing the latest A is silently
            dropped: OpenCEP returns ``{0,2}`` only, where CEL (and OpenCEP's own documented
            semantics) give ``{0,2} {1,2} {0,1,2}``. With ``index_fix`` each primitive event skips
            one counter value, which removes the collision without touching OpenCEP's code.
            Queries without ``+`` are unaffected either way.

    Raises:
        UnsupportedError: see :func:`pattern`.
        RuntimeError / ImportError: OpenCEP not available (check :func:`available` first).
    """
    m = load()
    cep = m["CEP"]([pattern(query, len(events))])
    inp = m["Stream"]()
    for e in events:
        inp.add_item({"type": e.type, "pos": e.position})
    inp.close()
    out = m["Stream"]()
    t0 = time.perf_counter()
    cep.run(inp, out, m["Formatter"](index_fix))
    seconds = time.perf_counter() - t0
    results = [tuple(sorted(p for ev in match.events for p in _positions(ev, m))) for match in out]
    return PeerResult(results, seconds, len(events))
