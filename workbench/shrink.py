"""Minimise a failing (query, stream) case (DESIGN.md section 2).

:func:`shrink` is language-neutral. It greedily tries smaller cases and keeps any on which the
failure predicate still holds, until nothing smaller fails (or a budget runs out):

* **events**: drop chunks of events (halves, quarters, ..., single events, delta-debugging style)
  with the language's ``Language.drop_events(stream, indices)``; :func:`drop_events` is the one for
  flat :class:`ceplab.semantics.events.Stream` values: positions are renumbered ``0..n-1``, and if every
  event had ``time == position`` (the generated streams) times are renumbered the same way, otherwise
  the original (still ordered) times are kept;
* **query**: the language's ``Language.simplify(query_text) -> iterable of query texts``, each
  candidate strictly smaller; candidates that do not parse are skipped.

Shrinking re-runs the engine on candidates nobody has tried before, and a smaller or simpler case
can make a wrong engine derive forever. The predicate must therefore bound every engine run: the
workbench's predicates (``spark.write_reproducer``) run it under the per-case engine limit in a
forked worker (:mod:`ceplab.workbench.limits`), so a check takes at most one oracle limit plus one
engine limit, and a whole shrink at most ``deadline_s`` plus one check. A check that overruns the
limit without the predicate catching it (:class:`~ceplab.workbench.limits.EngineLimitExceeded`)
counts as "does not fail", like any other exception.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from ceplab.semantics.events import Event, Stream
from ceplab.workbench.limits import EngineLimitExceeded


@dataclass
class Shrunk:
    """A minimised case: ``query`` text, ``stream``, and how many predicate checks it took."""

    query: str
    stream: Stream
    checks: int
    steps: int


def drop_events(stream: Stream, drop: Iterable[int]) -> Stream:
    """``stream`` without the events at the given indices, positions (and times) renumbered."""
    d = set(drop)
    kept = [e for i, e in enumerate(stream.events) if i not in d]
    renumber_time = all(e.time == e.position and e.end == e.time for e in stream.events)
    out = []
    for i, e in enumerate(kept):
        if renumber_time:
            out.append(Event(e.type, i, e.attrs, i))
        else:
            out.append(Event(e.type, e.time, e.attrs, i, e.end))
    return Stream(out, stream.name)


def _event_candidates(n: int) -> Iterator[list[int]]:
    """Index sets to drop: chunks of size n/2, n/4, ..., 1 (largest first)."""
    size = n // 2 if n > 1 else 1
    while size >= 1:
        for start in range(0, n, size):
            yield list(range(start, min(n, start + size)))
        if size == 1:
            break
        size //= 2


def shrink(lang: Any, query_text: str, stream: Stream, fails: Callable[[str, Stream], bool],
           max_checks: int = 400, deadline_s: float = 60.0) -> Shrunk:
    """Greedily minimise a failing case.

    Args:
        lang: the :class:`~ceplab.workbench.language.Language` (its ``simplify`` gives query
            candidates, its ``drop_events`` cuts streams; ``parse`` checks
            candidates).
        query_text: the failing query.
        stream: the failing stream.
        fails: ``fails(query_text, stream) -> bool``, True while the case still shows the failure
            (exceptions inside it, and engine-limit overruns, count as "does not fail"); it
            should bound its engine runs (see the module docstring).
        max_checks: at most this many calls of ``fails``.
        deadline_s: stop after this many seconds (the best case so far is returned).

    Returns:
        A :class:`Shrunk` case on which ``fails`` holds (the input itself if nothing smaller fails).
    """
    simplify = lang.simplify
    dropper = lang.drop_events
    t_end = time.monotonic() + deadline_s
    checks = steps = 0

    def check(q: str, s: Stream) -> bool:
        nonlocal checks
        checks += 1
        try:
            return bool(fails(q, s))
        except (Exception, EngineLimitExceeded):
            return False

    def budget() -> bool:
        return checks < max_checks and time.monotonic() < t_end

    cur_q, cur_s = query_text, stream
    progress = True
    while progress and budget():
        progress = False
        # 1. events
        n = len(cur_s)
        for drop in _event_candidates(n):
            if not budget():
                break
            cand = dropper(cur_s, drop)
            if check(cur_q, cand):
                cur_s, progress = cand, True
                steps += 1
                break
        if progress:
            continue
        # 2. query
        if simplify is None:
            break
        try:
            cands = list(simplify(cur_q))
        except Exception:
            cands = []
        for q in cands:
            if not budget():
                break
            try:
                lang.parse(q)
            except Exception:
                continue
            if check(q, cur_s):
                cur_q, progress = q, True
                steps += 1
                break
    return Shrunk(cur_q, cur_s, checks, steps)
