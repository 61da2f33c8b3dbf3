"""SPAseq (Gillani, Zimmermann, Picard, Laforest, "A query language for semantic complex event processing:
Syntax, semantics and implementation", Semantic Web journal) as a ceplab language plugin: :data:`LANGUAGE`,
registered under the entry point ``spaseq``.

The plugin wires together the parser (:mod:`ceplab.semantics.spaseq.parser`), the switches
(:class:`ceplab.semantics.spaseq.options.Options`), the clingo oracle (:func:`ceplab.asp.spaseq.oracle`), the NFA
engine (:func:`ceplab.engine.spaseq.evaluator`), the canonical results (:mod:`ceplab.semantics.spaseq.results`:
one match per witness, window and projected row), background knowledge (:mod:`.background`: ``--background KB``
or inline comment lines), streamsets (:mod:`.streams`), the generators (:mod:`.generators`), the shrinking
candidates (:mod:`.simplify`) and the bundled real data (:mod:`.data`: EuStockMarkets and seattle-weather as SOSA
graph streams with their knowledge bases, run by ``ceplab verify``), and the worked examples of
docs/semantics/spaseq.md#spaseq-5 (T1-T11, R1-R8) with the findings' counterexamples under ``papers-check/spaseq``
(:mod:`.papers`: the compact notation of their streams and expected results).

Heavy modules (clingo, the engine, hypothesis) are imported on first use.
"""
from __future__ import annotations

import bisect
import functools
import random
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.spaseq.options import Options
from ceplab.workbench.langs.spaseq.background import (SpaseqQuery, attach, background_json, render_query,
                                                      with_background)
from ceplab.workbench.langs.spaseq.streams import (drop_events, event_row, offset_positions, read_stream,
                                                   stream_from_json, stream_to_json)
from ceplab.workbench.language import Input, Language, PaperFormat, StreamFormat, jsonl_stream_format

__all__ = ["LANGUAGE", "SpaseqQuery"]

PAPER = ("Gillani, Zimmermann, Picard, Laforest: A query language for semantic complex event processing: "
         "Syntax, semantics and implementation, Semantic Web journal (SPAseq)")


# ----------------------------------------------------------------------------- parsing
def parse(text: str, file: str | None = None) -> SpaseqQuery:
    """A query text (with inline background comment lines, if any) as a :class:`SpaseqQuery`.

    Raises:
        ceplab.semantics.errors.ParseError: with file, line and column.
    """
    return attach(_parse_ast(text, file), text, file)


@functools.lru_cache(maxsize=512)
def _parse_ast(text: str, file: str | None) -> Any:
    """:func:`ceplab.semantics.spaseq.parser.parse`, memoised on ``(text, file)``: the AST is immutable (frozen
    dataclasses) and a differential case parses its query twice (the generator's validity check, the comparison).
    Errors are not memoised (they are raised again).  The background is attached anew by every :func:`parse`."""
    from ceplab.semantics.spaseq.parser import parse as parse_ast

    return parse_ast(text, file)


def parse_file(path: Any) -> SpaseqQuery:
    """:func:`parse` of a file.

    Raises:
        ceplab.semantics.errors.ParseError: also for an unreadable file.
    """
    from pathlib import Path

    from ceplab.semantics.errors import ParseError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"cannot read the query: {getattr(e, 'strerror', None) or e}", str(path)) from None
    return parse(text, str(path))


def render(query: Any) -> str:
    """The concrete syntax of a :class:`SpaseqQuery` (background as comment lines) or of a bare AST."""
    return render_query(query)


def _unwrap(query: Any) -> tuple[Any, Any]:
    if isinstance(query, SpaseqQuery):
        return query.query, query.background
    return query, None


# ----------------------------------------------------------------------------- evaluation
def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.spaseq import oracle

    q, bg = _unwrap(query)
    return oracle(q, list(stream), options, limits, background=bg)


def _evaluator(query: Any, options: Options) -> Any:
    from ceplab.engine.spaseq import evaluator

    q, bg = _unwrap(query)
    return evaluator(q, options, background=bg)


# ----------------------------------------------------------------------------- results
def result_to_json(r: Any) -> dict:
    from ceplab.semantics.spaseq.results import to_json

    return to_json(r)


def result_from_json(x: Any) -> Any:
    from ceplab.semantics.spaseq.results import from_json

    return from_json(x)


def result_positions(query: Any, stream: Sequence[Any], options: Options, limits: Any,
                     results: Iterable[Any]) -> dict:
    """Where each result must be emitted (docs/semantics/spaseq.md#spaseq-9.5): events of one timestamp form a
    batch, and a match is determined when the batch of its last selected event is complete, i.e. at the first
    event with a later time (``None``: at ``close()``); a match whose last element is negated is determined when
    its window ends (tumbling closed: the first event after the window's last tick; half-open: the first event at
    or after the next window's first tick; anchored: the first event later than ``first event + omega``)."""
    q, _ = _unwrap(query)
    stream = list(stream)
    times = [int(e.time) for e in stream]
    pos = [getattr(e, "position", i) for i, e in enumerate(stream)]
    neg_last = q.seq[-1].modifier == "!"

    def first_after(t: int, strict: bool = True) -> Any:
        i = bisect.bisect_right(times, t) if strict else bisect.bisect_left(times, t)
        return pos[i] if i < len(stream) else None

    out: dict = {}
    for r in results:
        if not neg_last:
            out[r] = first_after(max(t for _, t in r.events))
        elif options.window == "anchored":
            out[r] = first_after(min(t for _, t in r.events) + q.window)
        else:
            end = options.origin + (r.window + 1) * q.window
            out[r] = first_after(end) if options.window == "tumbling_closed" else first_after(end, strict=False)
    return out


# ----------------------------------------------------------------------------- generators and shrinking
def _strategies() -> Any:
    from ceplab.workbench.langs.spaseq.generators import SpaseqStrategies

    return SpaseqStrategies()


def _random_case(rng: random.Random, length: int) -> tuple[str, list, Options]:
    """A seeded random case (:func:`ceplab.workbench.langs.spaseq.generators.random_case`); query texts that do not
    parse are redrawn from the same ``rng`` (at most 30 times)."""
    from ceplab.semantics.errors import ParseError, UnsupportedError
    from ceplab.workbench.langs.spaseq.generators import random_case

    case = random_case(rng, length)
    for _ in range(30):
        try:
            parse(case[0])
        except (ParseError, UnsupportedError):
            case = random_case(rng, length)
            continue
        break
    return case


def _simplify(text: str) -> Any:
    from ceplab.workbench.langs.spaseq.simplify import simplifications

    return simplifications(text)


def _real_cases() -> list:
    """The bundled real-data cases (:func:`ceplab.workbench.langs.spaseq.data.real_cases`): EuStockMarkets and
    seattle-weather as SOSA graph streams, knowledge bases inline in the query texts."""
    from ceplab.workbench.langs.spaseq.data import real_cases

    return real_cases()


def _case_extras(text: str) -> dict | None:
    """A reproducer's extras: ``{"background": the query text's inline background (graph -> N-Triples lines)}``."""
    return {"background": background_json(text)}


def _benchmark() -> Any:
    from ceplab.workbench.langs.spaseq.bench import BENCHMARK

    return BENCHMARK


def _locality(query: Any, options: Options, stream: Any) -> Any:
    """Segmented solving (:mod:`ceplab.workbench.segments`; docs/semantics/spaseq.md#spaseq-9.6): every SPAseq
    query is local in time, with span 0 and lookahead ``omega`` (``Query.window``, integer ticks).

    Why: every selected event of a witness, and every event that decides it, lies in one window
    (docs/semantics/spaseq.md#spaseq-3.7): a tumbling window ``[origin+i*omega, origin+(i+1)*omega]`` (closed or
    half-open, aligned to the absolute tick ``Options.origin``, so its index does not depend on where a segment
    starts) or, under ``window="anchored"``, ``[F, F+omega]`` from the witness's first selected event ``F``.
    Skip-till-next relevance, strict-contiguity gaps, negation between two elements and first-match disjunction
    look strictly between or at selected events (docs/semantics/spaseq.md#spaseq-3.8); a negated last element looks
    on to the window's end; nothing looks before ``F`` (every instance of the first element starts witnesses,
    docs/semantics/spaseq.md#spaseq-A25, and a tumbling window's ticks before ``F`` decide nothing).  So a result
    uses and is decided by events with times in ``[F, F+omega]`` only (the window's end is at most ``F+omega``).
    Background graphs are static (part of the query) and contiguity over "every stream of the input" only asks
    whether *some* event lies in a gap.  ``WITHIN`` is mandatory, so every query is local.

    Not local (None): a stream holding a blank node.  Blank nodes are labelled by their event's position
    (docs/semantics/spaseq.md#spaseq-A15); an in-process segment keeps the labels (:func:`.streams.drop_events`),
    but a segment shipped to a Spark executor is re-read from JSON (:func:`.streams.stream_from_json`), which
    labels them again by the segment's positions, so a result binding one would differ from the whole stream's.

    Anchor: ``F``, the earliest time among the result's events (:attr:`Match.events`); coordinate: an event's time
    (the streamset is ordered by ``(time, position)``).

    Args:
        query: a :class:`SpaseqQuery` or bare AST; options: the switches (every value is local); stream: the graph
            events.

    Returns:
        A :class:`ceplab.workbench.segments.Locality` (``unit="time"``), or None.
    """
    from rdflib import BNode

    from ceplab.workbench.segments import TIME, Locality

    q, _ = _unwrap(query)
    if any(isinstance(x, BNode) for e in stream for tr in e.graph for x in tr):
        return None
    return Locality(span=0, unit=TIME, last=_first_time, lookahead=int(q.window), time=_event_time)


def _first_time(r: Any) -> int:
    """The anchor of a :class:`Match` for segmented solving: the earliest time of its selected events (ticks)."""
    return min(t for _, t in r.events)


def _event_time(e: Any) -> int:
    """A graph event's time in ticks (the segment coordinate; cheaper than :func:`.streams.event_row`)."""
    return int(e.time)


#: The benchmark workload :func:`_oracle_workload` uses.
ORACLE_WORKLOAD = "VSTN"


def _oracle_workload(n: int, w: int, seed: int) -> tuple[str, Any, Options]:
    """The workload of ``ceplab bench oracles``: the benchmark's V-shape under skip-till-next (``VSTN``,
    :mod:`.bench`: ``SEQ(A; B; C)`` over sensor observations, ``WITHIN w SECONDS``, one tick per second) on the
    first ``n`` events of its seeded stream."""
    from ceplab.workbench.langs.spaseq.bench import query_text, workload_events

    return query_text(ORACLE_WORKLOAD, w), workload_events(ORACLE_WORKLOAD, n, seed), Options()


def _stream_chunk(seed: int, stream: int, start: int, count: int) -> Any:
    """Events ``start .. start+count-1`` of random stream ``stream`` (``ceplab generate``): the benchmark's
    stock stream (:mod:`.bench`: one SOSA observation per event, company uniform over four, price uniform in
    0..99, event ``i`` at tick ``i`` on ``:stock``), drawn from a generator seeded by ``(seed, stream, start)``."""
    from ceplab.workbench.langs.spaseq.bench import SUBJECTS, VALUES, make_events

    rnd = random.Random(f"ceplab-stream:spaseq:{seed}:{stream}:{start}").random
    ds = [(int(rnd() * SUBJECTS), int(rnd() * VALUES)) for _ in range(count)]
    return make_events(ORACLE_WORKLOAD, ds, start)


def _translation():
    """The matrix translation (docs/matrix.md), imported when the matrix runs."""
    from ceplab.workbench.langs.spaseq.matrix import SpaseqTranslation
    return SpaseqTranslation()


def _mutants() -> tuple:
    from ceplab.workbench.langs.spaseq.mutants import mutants

    return mutants()


def _papers() -> PaperFormat:
    from ceplab.workbench.langs.spaseq import papers as P

    return PaperFormat(stream=P.paper_stream, expected=P.paper_expected,
                       provenance_legend="N = stated by docs/semantics/spaseq.md#spaseq-5 (the paper's Examples 3-11 "
                                         "and Query 1 as rebuilt there, the authors' engine tests R1-R8), D = derived "
                                         "there or in papers-check/spaseq/FINDINGS.md (a switch, a variant input, a "
                                         "counterexample)",
                       query_suffix=".q")



def _dumps_trig(stream: Any) -> str:
    from ceplab.semantics.rdfstream import dumps_trig_graph_events

    return dumps_trig_graph_events(stream)


#: The stream files ``read_stream`` reads (TriG streamsets with ``ceplab:start``, JSON Lines), for ``ceplab fuzz
#: spaseq --malformed``.
STREAM_FORMATS = (StreamFormat(".trig", _dumps_trig, r"ceplab:start (-?\d+)"),
                  jsonl_stream_format(stream_to_json, "time"))


LANGUAGE = Language(
    name="spaseq",
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
    papers_dir=Path(__file__).resolve().parents[3] / "papers-check" / "spaseq",
    paper_format=_papers(),
    benchmark=_benchmark,
    mutants=_mutants,
    translation=_translation,
    locality=_locality,
    oracle_workload=_oracle_workload,
    stream_chunk=_stream_chunk,
    offset_positions=offset_positions,
    inputs=(Input("background", "background knowledge for GRAPH patterns: Turtle (the query's one FROM graph) or "
                                "TriG (one named graph per FROM <iri>)", "path", with_background),),
    stream_formats=STREAM_FORMATS,
    bundled_graphs=(("background", Path(__file__).with_name("data") / "eustock-kb.ttl"),
                    ("background", Path(__file__).with_name("data") / "seattle-kb.ttl")),
)
