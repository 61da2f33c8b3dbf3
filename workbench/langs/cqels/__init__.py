"""CQELS-CEP (Dao-Tran and Le-Phuoc, "Towards Enriching CQELS with Complex Event Processing and Path Navigation",
2015) as a ceplab language plugin: :data:`LANGUAGE`, registered under the entry point ``cqels``.

The record wires together the parser (:mod:`ceplab.semantics.cqels.parser`), the switches
(:class:`ceplab.semantics.cqels.options.Options`), the clingo oracle (:func:`ceplab.asp.cqels.oracle`), the
incremental engine (:func:`ceplab.engine.cqels.evaluator`), the answers (:mod:`ceplab.semantics.cqels.results`:
one :class:`~ceplab.semantics.cqels.results.Answer` per time point, mapping and interval), the static data and the
horizon (:mod:`.query`: ``--static G.ttl|G.trig``, ``--until H``, or comment lines in the query text), streams
(:mod:`.streams`), the generators (:mod:`.generators`), the shrinking candidates (:mod:`.simplify`) and the
bundled weather data (:mod:`.data`).

Streams, arrival and emission positions (docs/semantics/cqels.md#cqels-8)
--------------------------------------------------------------------------
The engine must receive elements in non-decreasing arrival time ``a(e)`` (``Options.arrival``: start or end), and
the snapshot ``[[Q, t]]`` is returned by the first push of an element with ``a(e) > t`` (or by ``close()``).  The
workbench (:func:`ceplab.workbench.compare.run_engine`) pushes a stream in list order before it knows which reading
of ``arrival`` a run uses, so the plugin fixes one order for every stream and lets the evaluator adapt:

* every stream of the plugin (``read_stream``, ``stream_from_json``, ``drop_events``, the generators, the real-data
  cases) is sorted by ``(start, position)``, the order :func:`ceplab.semantics.cqels.streams.check_elements`
  returns;
* the plugin's evaluator (:class:`OrderedEvaluator`) takes elements in that order.  Under ``arrival="start"`` it
  passes each one on.  Under ``arrival="end"`` it holds elements back until their end is reached: when an element
  with start ``s`` comes, no later element can end before ``s``, so it pushes every held element with ``end <= s``
  in ``(end, position)`` order (the engine's input order, ``arrival_order``) and, if the engine has not yet seen
  time ``s``, a *clock* element at ``s`` on a stream no query reads (:data:`CLOCK`; the contract lets such elements
  only advance time), so that the snapshots of every ``t < s`` come out at once.  ``close()`` pushes what is still
  held, then closes the engine.  An element whose start is smaller than an earlier one's is a ``ValueError`` (the
  stream is not in the plugin's order).
* So under both readings the snapshot of ``t`` is emitted, complete, at **the first element of the list whose start
  is greater than t**, or at ``close()`` when there is none: :func:`result_positions` computes exactly that.  It is
  also the earliest possible point: before an element with a start ``> t`` is seen, an element starting (and, under
  ``arrival="end"``, ending) at or before ``t`` may still come.

The oracle needs no order (it reads positions).

Inputs: ``parse`` reads ``# static ...`` / ``# until H`` comment lines (and ``# static: stations`` for the bundled
graph) into :class:`~ceplab.workbench.langs.cqels.query.CqelsQuery`; ``--static`` and ``--until`` replace them.
The tick length ``Options.tick`` is applied by parsing the query text again when a run sets it
(:func:`ceplab.workbench.langs.cqels.query.resolve`).

Heavy modules (clingo, the engine, hypothesis, the datasets) are imported on first use.
"""
from __future__ import annotations

import bisect
import random
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from rdflib import URIRef

from ceplab.semantics.cqels.options import Options
from ceplab.workbench.langs.cqels.query import (CqelsQuery, parse_query, render_query, resolve, static_json,
                                                with_static, with_until)
from ceplab.workbench.langs.cqels.streams import (drop_events, event_row, offset_positions, read_stream,
                                                  stream_from_json, stream_to_json)
from ceplab.workbench.language import Input, Language, PaperFormat, StreamFormat, jsonl_stream_format

__all__ = ["LANGUAGE", "CqelsQuery", "OrderedEvaluator", "CLOCK", "result_positions"]

PAPER = ("Dao-Tran, Le-Phuoc: Towards Enriching CQELS with Complex Event Processing and Path Navigation, "
         "workshop paper, CEUR-WS Vol-1447, 2015 (CQELS-CEP)")

#: The stream of the clock elements the evaluator wrapper pushes under ``arrival="end"`` (read by no query).
CLOCK = URIRef("urn:ceplab:cqels:clock")


# ----------------------------------------------------------------------------- parsing
def parse(text: str, file: Optional[str] = None) -> CqelsQuery:
    """A query text (with inline static data and horizon, if any) as a :class:`CqelsQuery`.

    Raises:
        ceplab.semantics.errors.ParseError: with file, line and column.
    """
    return parse_query(text, file)


def parse_file(path: Any) -> CqelsQuery:
    """:func:`parse` of a file.

    Raises:
        ceplab.semantics.errors.ParseError: also for an unreadable file.
    """
    from ceplab.semantics.errors import ParseError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"cannot read the query: {getattr(e, 'strerror', None) or e}", str(path)) from None
    return parse(text, str(path))


def render(query: Any) -> str:
    """The concrete syntax of a :class:`CqelsQuery` (static data and horizon as comment lines) or of a bare AST."""
    return render_query(query)


# ----------------------------------------------------------------------------- evaluation
def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.cqels import oracle

    cq = resolve(query, options)
    return oracle(cq.query, list(stream), options, limits, static=cq.static, until=cq.until)


class OrderedEvaluator:
    """The engine behind the plugin's ``evaluator``: takes a stream sorted by ``(start, position)`` and pushes it to
    the engine in arrival order (module docstring).

    Attributes:
        path: the engine's ``path`` (what ``ceplab run`` shows).
        inner: the engine's evaluator.
    """

    def __init__(self, inner: Any, options: Options) -> None:
        self.inner = inner
        self.options = options
        self.by_end = options.arrival == "end"
        self.path = getattr(inner, "path", None) or "incremental engine (engine/cqels)"
        if self.by_end:
            self.path += ", elements held back to their end (arrival=end)"
        self.held: list[tuple[int, int, Any]] = []   # (end, position, element): a heap
        self.last_start: Optional[int] = None
        self.pushed_arrival: Optional[int] = None    # a(e) of the last element pushed to the engine
        self.clocks = 0

    def _push(self, e: Any) -> list:
        self.pushed_arrival = e.end if self.by_end else e.start
        return list(self.inner.push(e))

    def push(self, element: Any) -> list:
        """Take the next element of the stream; return the snapshots it completes.

        Raises:
            ValueError: an element starting before an earlier one (the stream is not sorted by start).
        """
        import heapq

        s = element.start
        if self.last_start is not None and s < self.last_start:
            raise ValueError(f"element at position {element.position} starts at {s}, before an earlier element "
                             f"({self.last_start}): CQELS-CEP streams are sorted by (start, position)")
        self.last_start = s
        if not self.by_end:
            return self._push(element)
        heapq.heappush(self.held, (element.end, element.position, element))
        out: list = []
        while self.held and self.held[0][0] <= s:
            out += self._push(heapq.heappop(self.held)[2])
        if self.pushed_arrival is None or self.pushed_arrival < s:
            from rdflib import Graph

            from ceplab.semantics.rdfstream import StreamElement

            self.clocks += 1
            out += self._push(StreamElement(Graph(), s, s, CLOCK, -self.clocks))
        return out

    def close(self) -> list:
        """Push what is held back, close the engine; the remaining snapshots."""
        import heapq

        out: list = []
        while self.held:
            out += self._push(heapq.heappop(self.held)[2])
        return out + list(self.inner.close())


def _evaluator(query: Any, options: Options) -> OrderedEvaluator:
    from ceplab.engine.cqels import evaluator

    cq = resolve(query, options)
    return OrderedEvaluator(evaluator(cq.query, options, cq.static, until=cq.until), options)


# ----------------------------------------------------------------------------- results
def result_to_json(r: Any) -> dict:
    from ceplab.semantics.cqels.results import to_json

    return to_json(r)


def result_from_json(x: Any) -> Any:
    from ceplab.semantics.cqels.results import from_json

    return from_json(x)


def result_positions(query: Any, stream: Sequence[Any], options: Options, limits: Any,
                     results: Iterable[Any]) -> dict:
    """Where each answer must be emitted (module docstring; docs/semantics/cqels.md#cqels-8): the answers of the
    snapshot ``t`` at the first element of ``stream`` (sorted by ``(start, position)``) whose start is greater than
    ``t``, or at ``close()`` (None) when there is none.  The same under both readings of ``Options.arrival``: the
    plugin's evaluator holds elements back to their end under ``arrival="end"``."""
    stream = list(stream)
    starts = [int(e.start) for e in stream]
    pos = [getattr(e, "position", i) for i, e in enumerate(stream)]
    out: dict = {}
    for r in results:
        i = bisect.bisect_right(starts, int(r.time))
        out[r] = pos[i] if i < len(stream) else None
    return out


# ----------------------------------------------------------------------------- generators and shrinking
def _strategies() -> Any:
    from ceplab.workbench.langs.cqels.generators import CqelsStrategies

    return CqelsStrategies()


def _random_case(rng: random.Random, length: int) -> tuple[str, list, Options]:
    """A seeded random case (:func:`ceplab.workbench.langs.cqels.generators.random_case`)."""
    from ceplab.workbench.langs.cqels.generators import random_case

    return random_case(rng, length)


def _simplify(text: str) -> Any:
    from ceplab.workbench.langs.cqels.simplify import simplifications

    return simplifications(text)


def _case_extras(text: str) -> dict | None:
    """A reproducer's extras: the query text's inline static data (``{since: [N-Triples lines]}``) and horizon."""
    from ceplab.semantics.errors import CeplabError
    from ceplab.workbench.langs.cqels.query import inline_until

    try:
        return {"static": static_json(text), "until": inline_until(text)}
    except CeplabError:
        return None


def _papers() -> PaperFormat:
    """How ``papers-check/cqels/*.json`` writes streams and expected answers (:mod:`.papers`)."""
    from ceplab.workbench.langs.cqels import papers as P

    return PaperFormat(stream=P.paper_stream, expected=P.paper_expected, provenance_legend=P.PROVENANCE_LEGEND,
                       query_suffix=".q")


def _locality(query: Any, options: Options, stream: Any) -> Any:
    """Segmented solving (:mod:`ceplab.workbench.segments`; docs/semantics/cqels.md#cqels-3.9): a query whose
    windows are all ``RANGE T [SLIDE d]`` or ``NOW`` is local in time.  Anchor: an answer's evaluation time ``t``
    (:attr:`Answer.time`); coordinate: an element's start (streams are sorted by ``(start, position)``); span
    ``max(T + d - 1) + X`` ticks (``NOW`` counts as ``T = 0, d = 1``), ``X`` the longest element ``end - start`` of
    ``stream``; lookahead 0.

    Why: the snapshot ``[[Q, t]]`` (docs/semantics/cqels.md#cqels-3.3) is a function of the window contents at
    ``t`` and of the static data (part of the query).  ``RANGE T SLIDE d`` keeps at ``t`` the arrived elements
    that overlap ``[u - T, u]`` with ``u = d*floor(t/d) >= t - d + 1`` (docs/semantics/cqels.md#cqels-3.1; the
    slide is aligned to tick 0, the same in every segment), so their end is ``>= t - T - d + 1`` and their start
    ``>= t - T - d + 1 - X``; they have arrived, so their start is ``<= t``.  SEQ, SEQ_WO, NO_HEAD and NO_TAIL
    only look inside the windows; clipping, ``[tD, t]`` and the JOIN identity ``[0, t]`` depend on ``t`` and the
    static data only.  Evaluation times: every ``t`` in ``[0, H]``; with ``--until H`` every segment gets the same
    ``H``; with the default ``H = L + R`` (docs/semantics/cqels.md#cqels-3.8) a segment's own horizon can be
    smaller than the whole stream's, but past it every window of the whole stream is empty at the segment's owned
    times, and an event clause over empty windows has no result (every SEQ has a positive element), so the whole
    stream has no answer there either.

    Not local (None): an ``ALL`` or ``TRIPLES n`` window (they reach back to any element); a query without event
    clauses and without ``--until`` (it answers at every ``t <= L + R``, and ``L`` is the last time of the whole
    input); a stream holding a blank node (cutting a segment renumbers positions, and blank-node labels name
    their element's position: docs/semantics/cqels.md#cqels-G17).

    Args:
        query: a :class:`CqelsQuery` (or bare AST); options: the switches (every value is local); stream: the
            elements (sorted by start).

    Returns:
        A :class:`ceplab.workbench.segments.Locality` (``unit="time"``), or None.
    """
    from rdflib import BNode

    from ceplab.semantics.cqels import ast as A
    from ceplab.workbench.segments import TIME, Locality

    cq = resolve(query, options)
    q = cq.query
    reach = 0
    for w in q.windows:
        if isinstance(w.spec, A.RangeWindow):
            reach = max(reach, w.spec.range + w.spec.slide - 1)
        elif not isinstance(w.spec, A.NowWindow):
            return None
    if not q.events and cq.until is None:
        return None
    extent = 0
    for e in stream:
        extent = max(extent, int(e.end) - int(e.start))
        if any(isinstance(x, BNode) for tr in e.triples() for x in tr):
            return None
    return Locality(span=reach + extent, unit=TIME, last=_answer_time, time=_element_start)


def _answer_time(r: Any) -> int:
    """The anchor of an :class:`Answer` for segmented solving: its evaluation time ``t`` (ticks)."""
    return int(r.time)


def _element_start(e: Any) -> int:
    """A stream element's start in ticks (the segment coordinate; cheaper than :func:`.streams.event_row`)."""
    return int(e.start)


#: The benchmark workload :func:`_oracle_workload` uses.
ORACLE_WORKLOAD = "NEG"


def _oracle_workload(n: int, w: int, seed: int) -> tuple[str, Any, Options]:
    """The workload of ``ceplab bench oracles``: the benchmark's ``NEG`` query (:mod:`.bench`: a three-element
    SEQ with a negated middle element, ``RANGE w``) on the first ``n`` elements of its seeded stream, one tick
    apart."""
    from ceplab.workbench.langs.cqels.bench import query_text, workload_elements

    return query_text(ORACLE_WORKLOAD, w), workload_elements(ORACLE_WORKLOAD, n, 1, seed), Options()


def _stream_chunk(seed: int, stream: int, start: int, count: int) -> Any:
    """Elements ``start .. start+count-1`` of random stream ``stream`` (``ceplab generate``): the benchmark's
    sparse stream (:mod:`.bench`: one triple per element, element ``i`` at tick ``i``), drawn from a generator
    seeded by ``(seed, stream, start)``."""
    from ceplab.workbench.langs.cqels.bench import SUBJECTS, make_elements

    rnd = random.Random(f"ceplab-stream:cqels:{seed}:{stream}:{start}").random
    ds = [(int(rnd() * SUBJECTS), int(rnd() * 3), 0) for _ in range(count)]
    return make_elements(ORACLE_WORKLOAD, ds, 1, start)


def _translation():
    """The matrix translation (docs/matrix.md), imported when the matrix runs."""
    from ceplab.workbench.langs.cqels.matrix import CqelsTranslation
    return CqelsTranslation()


def _mutants() -> tuple:
    from ceplab.workbench.langs.cqels.mutants import mutants

    return mutants()


def _real_cases() -> list:
    from ceplab.workbench.langs.cqels.data import real_cases

    return real_cases()


def _benchmark() -> Any:
    from ceplab.workbench.langs.cqels.bench import BENCHMARK

    return BENCHMARK



def _dumps_trig(stream: Any) -> str:
    from ceplab.semantics.rdfstream import dumps_trig_elements

    return dumps_trig_elements(stream)


#: The stream files ``read_stream`` reads (TriG with ``ceplab:start``/``ceplab:end``, JSON Lines), for ``ceplab
#: fuzz cqels --malformed``.
STREAM_FORMATS = (StreamFormat(".trig", _dumps_trig, r"ceplab:start (-?\d+)"),
                  jsonl_stream_format(stream_to_json, "start"))


LANGUAGE = Language(
    name="cqels",
    paper=PAPER,
    parse=parse,
    parse_file=parse_file,
    render=render,
    read_stream=read_stream,
    options=Options,
    oracle=_oracle,
    evaluator=_evaluator,
    result_to_json=result_to_json,
    result_from_json=result_from_json,
    stream_to_json=stream_to_json,
    stream_from_json=stream_from_json,
    drop_events=drop_events,
    event_row=event_row,
    result_positions=result_positions,
    strategies=_strategies,
    random_case=_random_case,
    simplify=_simplify,
    case_extras=_case_extras,
    real_cases=_real_cases,
    papers_dir=Path(__file__).resolve().parents[3] / "papers-check" / "cqels",
    paper_format=_papers(),
    benchmark=_benchmark,
    mutants=_mutants,
    translation=_translation,
    locality=_locality,
    oracle_workload=_oracle_workload,
    stream_chunk=_stream_chunk,
    offset_positions=offset_positions,
    inputs=(Input("static", "static data D: Turtle (constant) or TriG (one named graph per version, "
                            "ceplab:start T)", "path", with_static),
            Input("until", "the horizon H: answers for every t in [0, H] (default: L + R)", "int", with_until)),
    stream_formats=STREAM_FORMATS,
    bundled_graphs=(("static", Path(__file__).with_name("data") / "stations.ttl"),),
)
