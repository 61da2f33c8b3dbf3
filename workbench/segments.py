"""Segmented oracle solving: one long stream solved as overlapping segments (DESIGN.md section 2).

Where a query's semantics is *local* -- every result has an *anchor* (e.g. its last event; its first event, or
the time it is evaluated at), uses only events from a bounded span before the anchor to a bounded lookahead
after it, and nothing outside that range decides whether it is a result -- the whole-stream answer is the
union of the answers on overlapping segments, each result kept by exactly one segment:

* the stream is cut into consecutive **owned ranges** ``[lo, hi)`` of a coordinate (the events' times or
  their positions, :attr:`Locality.unit`), never inside a group of equal coordinates;
* the segment of an owned range holds every event whose coordinate ``c`` has
  ``lo - span <= c < hi + lookahead`` (:attr:`Locality.span`, :attr:`Locality.lookahead`);
* the oracle answers each segment separately, and a segment keeps the results whose anchor
  (:attr:`Locality.last`, e.g. the time or position of the result's last event) lies in its owned range.

A result anchored at ``t`` in ``[lo, hi)`` uses only events in ``[t - span, t + lookahead]``, all inside the
segment, so the segment derives it iff the whole stream does; and each anchor lies in exactly one owned
range, so each result is kept once.  Whether a query is local, and its span, is the language's claim
(``Language.locality``); the tests check it on random streams against the whole-stream oracle, with
segments small enough that many results straddle a border.

This is the decomposition ``ceplab check`` distributes over Spark executors: :func:`plan` is cheap and
deterministic, and each :class:`Segment` is solved on its own by :func:`solve_slice`.  This module names
no language.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

POSITION = "position"
TIME = "time"


@dataclass(frozen=True)
class Locality:
    """A language's claim that a query's answer decomposes over a stream (see the module docstring).

    Attributes:
        span: every result uses only events whose coordinate is at most ``span`` before the result's anchor
            (``>= 0``, in the unit's coordinates: integer ticks or positions).
        unit: ``"time"`` (an event's coordinate is its time, as ``Language.event_row`` gives it) or
            ``"position"`` (its 0-based index in the stream).
        last: ``last(result) -> int``: the result's anchor, in the unit's coordinates, in the stream the result
            was computed on (for ``"position"``, a position of the segment, before :attr:`shift`).
        shift: ``shift(result, offset) -> result``: the result with every position moved by ``offset`` (a
            segment's positions start at 0); required for ``"position"``, None for results without positions.
        lookahead: events up to ``lookahead`` after the anchor can still decide the result (e.g. a negation
            that must see the end of a window); 0 for most queries.
        time: ``time(event) -> int``: an event's coordinate for the unit ``"time"`` when it is not the time
            ``Language.event_row`` gives (e.g. the end of an interval-stamped event in a stream ordered by
            end time); None uses ``event_row``.
    """

    span: int
    unit: str
    last: Callable[[Any], int]
    shift: Callable[[Any, int], Any] | None = None
    lookahead: int = 0
    time: Callable[[Any], int] | None = None

    def __post_init__(self) -> None:
        if self.unit not in (TIME, POSITION):
            raise ValueError(f"Locality.unit must be {TIME!r} or {POSITION!r}, got {self.unit!r}")
        if self.span < 0 or self.lookahead < 0:
            raise ValueError("Locality.span and Locality.lookahead must be >= 0")
        if self.unit == POSITION and self.shift is None:
            raise ValueError("a position-anchored Locality needs shift")


@dataclass(frozen=True)
class Segment:
    """One segment of a stream.

    Attributes:
        index: 0-based number of the segment.
        lo, hi: the owned range ``[lo, hi)`` of anchors (``None``: unbounded on that side).
        first, stop: the segment's events are the stream's positions ``first .. stop-1`` (a contiguous slice,
            since a stream is ordered by its coordinate).
    """

    index: int
    lo: int | None
    hi: int | None
    first: int
    stop: int

    def owns(self, anchor: int) -> bool:
        """True iff ``anchor`` lies in ``[lo, hi)``."""
        return (self.lo is None or anchor >= self.lo) and (self.hi is None or anchor < self.hi)


@dataclass
class SegmentedAnswer:
    """The merged answer of a segmented oracle run.

    Attributes:
        results: the union of the segments' kept results, or None when a segment was undecided.
        undecided: the reason of the first undecided segment (naming it), else None.
        segments: per segment ``{"index", "lo", "hi", "events", "results", "kept", "seconds", "stats"}``.
        seconds: wall seconds of the whole run.
    """

    results: frozenset | None
    undecided: str | None
    segments: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def coordinates(lang: Any, stream: Sequence[Any], locality: Locality, offset: int = 0) -> Any:
    """Each event's coordinate, as an int64 numpy array: its position (``offset + index``: a piece of a longer
    stream starting at ``offset``), or its time (``locality.time(e)``, else ``lang.event_row(e)[0]``)."""
    import numpy as np

    if locality.unit == POSITION:
        return np.arange(offset, offset + len(stream), dtype=np.int64)
    if locality.time is not None:
        return np.fromiter((int(locality.time(e)) for e in stream), dtype=np.int64, count=len(stream))
    return np.fromiter((int(lang.event_row(e)[0]) for e in stream), dtype=np.int64, count=len(stream))


def combine(localities: Sequence[Locality | None]) -> Locality | None:
    """The claim for a stream from the claims for its consecutive pieces: None if a piece's is None (or the pieces
    disagree on the unit), else the largest span and lookahead with the first piece's anchor functions.

    This is how ``ceplab check`` gets the locality of a stream it reads piece by piece; it is right for a
    language whose ``Language.locality`` depends on the stream only through properties of single events (the
    longest interval, a blank node), which the per-language tests check against the whole stream's claim."""
    out: Locality | None = None
    for loc in localities:
        if loc is None:
            return None
        if out is None:
            out = loc
        elif loc.unit != out.unit:
            return None
        elif loc.span > out.span or loc.lookahead > out.lookahead:
            out = Locality(max(out.span, loc.span), out.unit, out.last, out.shift,
                           max(out.lookahead, loc.lookahead), out.time)
    return out


def plan(coords: Sequence[int], locality: Locality, size: int) -> list[Segment]:
    """Cut a stream with event coordinates ``coords`` (non-decreasing) into segments of about ``size`` owned
    events each (a group of equal coordinates is never split, so a segment may own more).

    Args:
        coords: the events' coordinates in stream order (:func:`coordinates`; any int sequence).
        locality: the query's :class:`Locality`.
        size: owned events per segment, ``>= 1``.

    Returns:
        The segments in order; their owned ranges partition the integers; an empty stream gives one segment.

    Raises:
        ValueError: ``size < 1`` or ``coords`` decreases somewhere.
    """
    import numpy as np

    if size < 1:
        raise ValueError("segment size must be >= 1")
    c = np.asarray(coords, dtype=np.int64)
    n = len(c)
    down = np.flatnonzero(c[1:] < c[:-1])
    if len(down):
        i = int(down[0]) + 1
        raise ValueError(f"segmented solving needs events ordered by {locality.unit}: position {i} "
                         f"({int(c[i])}) comes after {int(c[i - 1])}")
    # owned boundaries: the coordinate at which each owned range starts (never inside a group of equal ones)
    bounds: list[int] = []
    i = size
    while i < n:
        if c[i] == c[i - 1]:
            i = int(np.searchsorted(c, c[i], side="right"))
        if i < n:
            bounds.append(int(c[i]))
        i += size
    los: list[int | None] = [None] + bounds
    his: list[int | None] = bounds + [None]
    firsts = np.searchsorted(c, np.array([0 if lo is None else lo - locality.span for lo in los], dtype=np.int64))
    stops = np.searchsorted(c, np.array([0 if hi is None else hi + locality.lookahead for hi in his],
                                        dtype=np.int64))
    return [Segment(k, lo, hi, 0 if lo is None else int(f), n if hi is None else int(t))
            for k, (lo, hi, f, t) in enumerate(zip(los, his, firsts, stops))]


def solve_slice(lang: Any, query: Any, sub: Any, options: Any, limits: Any, locality: Locality | None,
                segment: Segment, final: bool = True,
                positions: bool = False) -> tuple[frozenset | None, dict | None, str | None, dict]:
    """Solve one segment of a stream from its own events, keep the results it owns, and (``positions``) say where
    each must be emitted.

    Args:
        lang, query, options: the language, parsed query and switches.
        sub: the events at positions ``segment.first ..`` of the whole stream, renumbered from 0: the segment's
            (``segment.stop - segment.first`` events) and possibly more after them (``ceplab check`` adds the next
            event, so that the position where each kept result is determined lies in ``sub``).
        limits: the oracle's :class:`ceplab.asp.oracle.Limits` for this segment.
        locality: the query's :class:`Locality` (its anchors and shift), or None (the segment is undecided).
        segment: from :func:`plan` (positions in the whole stream).
        final: ``sub`` reaches the end of the whole stream.
        positions: also compute the emission positions (``Language.result_positions``).

    Returns:
        ``(kept, expected, undecided, row)``: the kept results (positions in the whole stream) or None; with
        ``positions`` and a language with ``result_positions``, each kept result's emission position(s) in the
        whole stream (an int, None for ``close()``, a frozenset, or ``...``), else None; the reason when
        undecided; the segment's row ``{"index", "lo", "hi", "events", "results", "kept", "seconds", "stats",
        "worker" (the solving process's pid), "started", "ended" (wall-clock epoch seconds),
        "positions_seconds"}``.
    """
    import os

    from ceplab.workbench.compare import expected_positions, run_oracle

    started = time.time()
    first = segment.first
    name = f"segment {segment.index} (events {first}..{segment.stop - 1})"
    res, undecided, secs, stats = run_oracle(lang, query, sub, options, limits)
    row = {"index": segment.index, "lo": segment.lo, "hi": segment.hi, "events": segment.stop - first,
           "results": None if res is None else len(res), "kept": None, "seconds": secs,
           "stats": None if stats is None else _stats(stats), "worker": os.getpid(), "started": started}
    if res is None:
        return None, None, f"{name}: {undecided}", row
    loc = locality               # (a short name for the closures below)
    if loc is None:
        return None, None, f"{name}: the language does not declare the segment alone local", row
    if loc.unit == POSITION:     # ownership is in positions of the whole stream
        own = Segment(segment.index, None if segment.lo is None else segment.lo - first,
                      None if segment.hi is None else segment.hi - first, 0, len(sub))
    else:
        own = segment
    local = [r for r in res if own.owns(loc.last(r))]

    def move(r: Any) -> Any:
        return loc.shift(r, first) if loc.unit == POSITION and first else r

    kept = frozenset(move(r) for r in local)
    row.update(kept=len(kept), ended=time.time())
    if not positions:
        return kept, None, None, row
    t1 = time.perf_counter()
    where = expected_positions(lang, query, sub, options, limits, local)
    row["positions_seconds"] = time.perf_counter() - t1
    if where is None:
        return kept, None, None, row

    def place(p: Any) -> Any:
        if p is None and not final:
            raise _Beyond
        return p if p is None else p + first

    expected: dict = {}
    try:
        for r in local:
            w = where[r]
            expected[move(r)] = w if w is ... else \
                frozenset(place(p) for p in w) if isinstance(w, (set, frozenset)) else place(w)
    except _Beyond:
        return None, None, (f"{name}: a result is determined after the segment's next event, so the language's "
                            f"locality claim does not bound its emission position"), row
    return kept, expected, None, row


class _Beyond(Exception):
    pass


def solve_segment(lang: Any, query: Any, stream: Sequence[Any], options: Any, limits: Any,
                  locality: Locality, segment: Segment) -> tuple[frozenset | None, str | None, dict]:
    """Solve one segment with the language's oracle and keep the results it owns (:func:`solve_slice` on the
    segment cut out of ``stream`` with ``lang.drop_events``).

    Args:
        lang: the :class:`ceplab.workbench.language.Language`.
        query, options: parsed query and switches.
        stream: the whole stream.
        limits: the oracle's :class:`ceplab.asp.oracle.Limits` for this segment.
        locality, segment: from :func:`plan`.

    Returns:
        ``(kept results or None, undecided reason or None, row)`` where ``row`` describes the segment.
    """
    n = len(stream)
    drop = list(range(segment.first)) + list(range(segment.stop, n))
    sub = lang.drop_events(stream, drop) if drop else stream
    kept, _, why, row = solve_slice(lang, query, sub, options, limits, locality, segment)
    return kept, why, row


def _stats(stats: Any) -> dict:
    if isinstance(stats, dict):
        return dict(stats)
    to_json = getattr(stats, "to_json", None)
    return dict(to_json()) if to_json is not None else {}


def segmented_oracle(lang: Any, query: Any, stream: Sequence[Any], options: Any, limits: Any,
                     locality: Locality, size: int) -> SegmentedAnswer:
    """The oracle's answer on ``stream``, solved segment by segment (module docstring), in this process.

    Args:
        lang, query, stream, options, limits: as for ``lang.oracle``; ``limits`` applies to each segment.
        locality: the query's :class:`Locality` (``lang.locality(query, options, stream)``).
        size: owned events per segment (:func:`plan`).

    Returns:
        A :class:`SegmentedAnswer`; its ``results`` equal the whole-stream oracle answer when the locality claim
        holds.

    Raises:
        ValueError: from :func:`plan` (bad size, unordered stream).
    """
    t0 = time.perf_counter()
    segs = plan(coordinates(lang, stream, locality), locality, size)
    out: set = set()
    rows = []
    for seg in segs:
        kept, why, row = solve_segment(lang, query, stream, options, limits, locality, seg)
        rows.append(row)
        if kept is None:
            return SegmentedAnswer(None, why, rows, time.perf_counter() - t0)
        out |= kept
    return SegmentedAnswer(frozenset(out), None, rows, time.perf_counter() - t0)


__all__ = ["Locality", "POSITION", "Segment", "SegmentedAnswer", "TIME", "combine", "coordinates", "plan",
           "segmented_oracle", "solve_segment", "solve_slice"]
