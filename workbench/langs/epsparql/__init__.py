"""EP-SPARQL (Anicic, Fodor, Rudolph, Stojanovic: "EP-SPARQL: a unified language for event
processing and stream reasoning", WWW 2011) as a ceplab language plugin: :data:`LANGUAGE`, registered under the entry point ``epsparql``.

The record wires together the parser (:mod:`ceplab.semantics.epsparql.parser`), the stream readers
(:func:`ceplab.semantics.epsparql.streams.read_stream`: TriG, the line format; plus the JSON Lines form of
:func:`stream_to_json` used by fuzz reproducers), the switches (:class:`ceplab.semantics.epsparql.options.Options`,
set one by one with ``--set``), the clingo oracle (:func:`ceplab.asp.epsparql.oracle`), the incremental engine
(:func:`ceplab.engine.epsparql.evaluator`), the seeded generators and hypothesis strategies
(:mod:`ceplab.workbench.langs.epsparql.generators`), the bundled real-data cases (``ceplab.workbench.langs.epsparql.data.real_cases``, optional)
and docs/semantics/epsparql.md's worked examples E1-E14 (``papers-check/epsparql``).

Results are :class:`ceplab.semantics.epsparql.results.Row` (SELECT rows) and ``Derived`` (occurrences the
CONSTRUCT rules add); their canonical JSON form (DESIGN.md section 4) is
:func:`ceplab.semantics.epsparql.results.to_json`: ``{"query", "mapping": {var: N-Triples term}, "start", "end"}``
(``"count"`` under ``output=bag``) or ``{"triple": [s, p, o], "start", "end"}``.

Emission positions (``extra["result_positions"]``): the engine evaluates a tick when the first occurrence
of a later tick arrives, or at ``close()``. A result ending at ``T`` is therefore expected at the first
occurrence whose end is ``> T``, or at ``close()`` when there is none.

Background knowledge (docs/semantics/epsparql.md#epsparql-A14) comes from ``--background``/``--ontology`` files (:func:`with_background`), from a
``# background: eustock`` line (the bundled data), or inline in the query text as ``# background graph: <s> <p>
<o> .`` / ``# background ontology: ...`` comment lines (:func:`background_comment`; a quarter of the Spark fuzz
cases draw such a background, and their reproducers keep it).

Errors: the oracle's and the engine's ``UnsupportedError`` (a ``ValueError``), the engine's ``ValueError``
for ill-formed time literals and the oracle's ``ModelError`` (no unique stable model) become
:class:`ceplab.semantics.errors.UnsupportedError` (an ``InputError``: the CLI prints it and exits 2).

Heavy modules (clingo, the engine, hypothesis) are imported on first use.
"""
from __future__ import annotations

import bisect
import random
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.errors import ParseError, UnsupportedError
from ceplab.workbench.langs.epsparql.background import (WithBackground, attach_inline, background_json,
                                                        bundled_background, unwrap, with_background)

__all__ = ["LANGUAGE", "WithBackground", "with_background"]
from ceplab.workbench.langs.epsparql.streams import (drop_events, event_row, offset_positions, read_stream,
                                                     stream_from_json, stream_to_json)
from ceplab.workbench.language import Input, Language, PaperFormat, Peer, StreamFormat, jsonl_stream_format

PAPER = ("Anicic, Fodor, Rudolph, Stojanovic: EP-SPARQL: a unified language for event processing and "
         "stream reasoning, WWW 2011")

#: The namespace bare names in the papers-check compact notation stand for (``ACME`` = ``:ACME``).
EX = "http://example.org/"


# ----------------------------------------------------------------------------- parsing
def _parse(text: str, file: str | None = None) -> Any:
    from ceplab.semantics.epsparql.parser import parse

    return attach_inline(bundled_background(parse(text, file), text), text, file)


def _parse_file(path: Any) -> Any:
    from pathlib import Path

    from ceplab.semantics.epsparql.parser import parse_file

    text = Path(path).read_text(encoding="utf-8")
    return attach_inline(bundled_background(parse_file(path), text), text, str(path))


def _render(query: Any) -> str:
    from ceplab.semantics.epsparql.parser import render

    query, _ = unwrap(query)

    return render(query)


def peer_etalis(query: Any, stream: Any, options: Options, timeout: Any = None) -> list:
    """``ceplab compare epsparql Q S --peer etalis``: the query compiled to ETALIS rules and run on ceplab's
    ETALIS engine (:class:`ceplab.engine.epsparql.etalis_backend.EtalisBackedEvaluator`, paper section 5), every result
    of the stream.  ``timeout`` is ignored (the run is incremental and in-process).

    Raises:
        ceplab.semantics.errors.UnsupportedError: the query (or its switches, or background knowledge) is outside the
            fragment ETALIS rules express; the message names the operator.
    """
    from ceplab.engine.epsparql.etalis_backend import EtalisBackedEvaluator
    qs, bg = unwrap(query)
    if bg is not None:
        raise UnsupportedError("--peer etalis: background knowledge and RDFS are outside the ETALIS fragment; "
                               "they run on the native engine")
    return EtalisBackedEvaluator(qs, options).run(list(stream))


# ----------------------------------------------------------------------------- evaluation
def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.epsparql import oracle

    query, bg = unwrap(query)
    return oracle(query, list(stream), options, limits, background=bg)


def _evaluator(query: Any, options: Options) -> Any:
    from ceplab.engine.epsparql import evaluator

    query, bg = unwrap(query)
    return evaluator(query, options, background=bg)


# ----------------------------------------------------------------------------- results
def result_to_json(r: Any) -> dict:
    from ceplab.semantics.epsparql.results import to_json

    return to_json(r)


def result_from_json(x: Any) -> Any:
    from ceplab.semantics.epsparql.results import from_json

    return from_json(x)


def result_end(r: Any) -> int:
    """The end tick of a result (positions come from ``extra["result_positions"]``)."""
    return int(r.end)


def result_positions(query: Any, stream: Sequence[Any], options: Options, limits: Any,
                     results: Iterable[Any]) -> dict:
    """Where each result must be emitted: at the first occurrence ending after the result's end (the
    engine closes tick ``T`` when a later tick starts), ``None`` (``close()``) if there is none."""
    stream = list(stream)
    ends = [int(o.end) for o in stream]
    pos = [getattr(o, "position", i) for i, o in enumerate(stream)]
    out: dict = {}
    for r in results:
        i = bisect.bisect_right(ends, int(r.end))
        out[r] = pos[i] if i < len(stream) else None
    return out


# ----------------------------------------------------------------------------- generators
def _strategies() -> Any:
    from ceplab.workbench.langs.epsparql.generators import EpsparqlStrategies

    return EpsparqlStrategies()


#: Non-default values of each switch, drawn occasionally by :func:`random_options`.
SWITCHES: dict[str, tuple] = {
    "optional_end": ("strict",), "srj_filter_interval": ("mandatory",), "lj_filter_interval": ("hull",),
    "optional_filter": ("group",), "bgp_mode": ("per_triple",), "construct_unbound": ("drop_triple",),
    "output": ("bag",), "filter_errors": ("error_is_false",),
}


#: Tick lengths (seconds) random cases draw besides the default 86400 (docs/semantics/epsparql.md#epsparql-A15).
TICK_SECONDS: tuple[int, ...] = (3600, 60, 1)


def random_options(rng: random.Random) -> Options:
    """Random switches: each one non-default with probability 0.15; ``tick_seconds`` one of :data:`TICK_SECONDS`
    with probability 0.15."""
    kw: dict[str, Any] = {k: rng.choice(v) for k, v in SWITCHES.items() if rng.random() < 0.15}
    if rng.random() < 0.15:
        kw["tick_seconds"] = rng.choice(TICK_SECONDS)
    return Options(**kw)


#: Fraction of random cases (Spark fuzzing) that draw background knowledge (a static graph and an RDFS ontology).
P_BACKGROUND = 0.25
#: Fraction of random cases with a long stream (40-200 occurrences) and a small ``getDURATION()`` bound.
P_LONG = 0.05
#: Fraction of random cases whose stream crowds equal timestamps, equal ends and repeated triples (the generators'
#: ``ties``; also every case with ``optional_end=strict``, ``bgp_mode=per_triple`` or ``srj_filter_interval=mandatory``,
#: :func:`~ceplab.workbench.langs.epsparql.generators.needs_ties`).
P_TIES = 0.3


def _random_case(rng: random.Random, length: int) -> tuple[str, list, Options]:
    """A seeded random case: random switches (drawn first: the query's time literals are written for their
    ``tick_seconds``, and the query shapes their non-default values answer differently are drawn more often,
    :func:`~ceplab.workbench.langs.epsparql.generators.steering`) and the shared generator's (query text,
    stream). With probability :data:`P_TIES` (and always under the switches of
    :func:`~ceplab.workbench.langs.epsparql.generators.needs_ties`) the stream crowds equal timestamps, equal ends and
    repeated triples (docs/semantics/epsparql.md#epsparql-A3 - #epsparql-A6); with probability :data:`P_BACKGROUND`
    the case has background knowledge, written inline into the query
    text (:func:`background_comment`), so the oracle and the engine both get it through ``parse`` and reproducers
    replay it; with probability :data:`P_LONG` the stream has 40-200 occurrences
    (:func:`~ceplab.workbench.langs.epsparql.generators.random_epsparql_case`'s ``long``). Query texts that do not
    parse or that the oracle's compiler refuses (``UnsupportedError``) are redrawn from the same ``rng`` (at most 30
    times); the engine is not consulted, so a query it refuses while the oracle answers it is counted by the
    campaign as an engine refusal."""
    from ceplab.asp.epsparql import background_facts, compile_queryset
    from ceplab.workbench.langs.epsparql.generators import needs_ties, random_epsparql_case, steering

    options = random_options(rng)
    text, stream = "", []
    background = rng.random() < P_BACKGROUND
    long = rng.random() < P_LONG
    ties = rng.random() < P_TIES or needs_ties(options)
    if long:
        length = rng.randint(40, 200)
    for _ in range(30):
        text, stream = random_epsparql_case(rng, length, background=background, long=long, ties=ties,
                                            tick_seconds=options.tick_seconds, **steering(options, ties))
        try:
            query, bg = unwrap(_parse(text))
            compile_queryset(query, options, bg is not None)
            if bg is not None:
                background_facts(bg)
        except (ParseError, UnsupportedError):
            continue
        break
    return text, stream, options


def _real_cases() -> list:
    from ceplab.workbench.langs.epsparql.data import real_cases

    return real_cases(include_background=True)   # parse() attaches the bundled background


def _simplify(text: str) -> Any:
    from ceplab.workbench.langs.epsparql.simplify import simplifications

    return simplifications(text)


#: Pattern nodes whose rows use only occurrences inside the row's interval (``EQUALSOPTIONAL``: the optional part
#: has the same interval); ``OPTIONAL`` and ``OPTIONALSEQ`` keep a row when no partner exists anywhere later,
#: which no bounded span can decide.
_LOCAL_NODES = ("BGP", "Join", "Union_", "SeqJoin", "EqJoin", "EqLeftJoin", "Filter", "Extend", "Project")


def _duration_bound(e: Any) -> int | None:
    """The largest duration a row can have and still make the filter ``e`` true: from a conjunct (at the top
    of ``&&``) ``getDURATION() < c`` / ``<= c`` or the mirrored ``c > getDURATION()`` / ``c >= getDURATION()``
    with a numeric literal ``c``; None when there is none."""
    import math
    from fractions import Fraction

    from ceplab.semantics.epsparql import ast as A

    if isinstance(e, A.And):
        bs = [b for b in (_duration_bound(e.left), _duration_bound(e.right)) if b is not None]
        return min(bs) if bs else None
    if not isinstance(e, A.Cmp):
        return None
    op, left, right = e.op, e.left, e.right
    if isinstance(right, A.TimeFn):
        op, left, right = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op), right, left
    if not (isinstance(left, A.TimeFn) and left.name == "DURATION" and isinstance(right, A.Const)
            and op in ("<", "<=")):
        return None
    try:
        c = Fraction(str(right.term.toPython()))
    except (TypeError, ValueError):
        return None
    return math.ceil(c) - 1 if op == "<" else math.floor(c)


def _locality(query: Any, options: Options, stream: Any) -> Any:
    """Segmented solving (:mod:`ceplab.workbench.segments`): a query set of SELECT queries only, each a
    ``FILTER`` (under projection expressions at most) with a conjunct bounding ``getDURATION()`` by ``D``
    (:func:`_duration_bound`) over BGPs, ``AND``, ``UNION``, ``SEQ``, ``EQUALS``, ``EQUALSOPTIONAL``,
    inner ``FILTER``s, ``AS`` and sub-selects (:data:`_LOCAL_NODES`).  A row's interval is the hull of the
    occurrences it uses (docs/semantics/epsparql.md#epsparql-3.2) and every such operator decides a row from
    occurrences inside it, so a kept row uses only occurrences ending in ``[end - D, end]``; timeless rows fail
    the duration filter.  Anchor: the row's end; coordinate: an occurrence's end.  Not local: CONSTRUCT rules
    (a derived occurrence feeds other queries), ``OPTIONAL`` and ``OPTIONALSEQ``, queries without such a
    duration bound."""
    from ceplab.semantics.epsparql import ast as A
    from ceplab.workbench.segments import TIME, Locality

    qs, _ = unwrap(query)
    if qs.constructs or not qs.selects:
        return None
    spans = []
    for q in qs.selects:
        top = q.where
        while isinstance(top, A.Extend):
            top = top.pattern
        if not isinstance(top, A.Filter):
            return None
        bound = _duration_bound(top.expr)
        if bound is None or bound < 0:
            return None
        stack = [q.where]
        while stack:
            p = stack.pop()
            if type(p).__name__ not in _LOCAL_NODES:
                return None
            stack.extend(A.children(p))
        spans.append(bound)
    return Locality(span=max(spans), unit=TIME, last=lambda r: int(r.end), time=lambda o: int(o.end))


#: The query of ``ceplab bench oracles`` (duration bound ``{w}`` in ticks): the issue's price/volume sequence.
ORACLE_WORKLOAD = ("PREFIX : <http://example.org/>\n"
                   "SELECT ?c ?a ?b WHERE {{ ?c :price ?a }} SEQ {{ ?c :volume ?b }} "
                   "FILTER(?b > ?a && getDURATION() < {w})\n")


def _oracle_workload(n: int, w: int, seed: int) -> tuple[str, list, Options]:
    """:data:`ORACLE_WORKLOAD` with bound ``w`` over the first ``n`` occurrences of :func:`_stream_chunk`'s stream
    0."""
    return ORACLE_WORKLOAD.format(w=w), _stream_chunk(seed, 0, 0, n), Options()


def _stream_chunk(seed: int, stream: int, start: int, count: int) -> list:
    """Occurrences ``start .. start+count-1`` of random stream ``stream`` (``ceplab generate``, the oracle
    workload): subject one of four companies, predicate ``:price`` or ``:volume``, object an integer in 0..99,
    occurrence ``i`` at tick ``i``; drawn from a generator seeded by ``(seed, stream, start)``."""
    from rdflib import Literal, URIRef

    from ceplab.semantics.epsparql.streams import Occurrence

    rng = random.Random(f"ceplab-stream:epsparql:{seed}:{stream}:{start}")
    subs = [URIRef(f"{EX}c{i}") for i in range(4)]
    preds = [URIRef(f"{EX}price"), URIRef(f"{EX}volume")]
    vals = [Literal(v) for v in range(100)]
    choice = rng.choice
    return [Occurrence(choice(subs), choice(preds), choice(vals), i, i, i) for i in range(start, start + count)]


def _translation():
    """The matrix translation (docs/matrix.md), imported when the matrix runs."""
    from ceplab.workbench.langs.epsparql.matrix import EpsparqlTranslation
    return EpsparqlTranslation()


def _mutants() -> tuple:
    from ceplab.workbench.langs.epsparql.mutants import mutants

    return mutants()


def _benchmark() -> Any:
    from ceplab.workbench.langs.epsparql.bench import BENCHMARK

    return BENCHMARK


def _case_extras(text: str) -> dict | None:
    """A reproducer's extras: ``{"background": the query text's inline background knowledge or None}``."""
    return {"background": background_json(text)}


def _papers() -> PaperFormat:
    from ceplab.workbench.langs.epsparql import papers as P

    return PaperFormat(stream=P.paper_stream, expected=P.paper_expected, project_results=P.project_results,
                       provenance_legend="N = stated by the docs/semantics/epsparql.md#epsparql-5 (clingo-confirmed there), "
                                         "D = derived from docs/semantics/epsparql.md's example by a stated projection",
                       query_suffix=".rq")



def _dumps_trig(stream: Any) -> str:
    from ceplab.semantics.epsparql.streams import dumps_trig

    return dumps_trig(stream)


def _dumps_lines(stream: Any) -> str:
    from ceplab.semantics.epsparql.streams import dumps_line_stream

    return dumps_line_stream(stream)


#: The stream files ``read_stream`` reads (TriG with ``ceplab:start``, the line format ``s p o START [END] .``,
#: JSON Lines), for ``ceplab fuzz epsparql --malformed``.
STREAM_FORMATS = (StreamFormat(".trig", _dumps_trig, r"ceplab:start (-?\d+)"),
                  StreamFormat(".nt", _dumps_lines, r" (-?\d+)(?: -?\d+)? \.$"),
                  jsonl_stream_format(stream_to_json, "start"))


LANGUAGE = Language(
    name="epsparql",
    paper=PAPER,
    parse=_parse,
    parse_file=_parse_file,
    render=_render,
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
    papers_dir=Path(__file__).resolve().parents[3] / "papers-check" / "epsparql",
    paper_format=_papers(),
    inputs=(Input("background", "static graph (Turtle): timeless background knowledge", "path",
                  lambda q, path: with_background(q, graph_path=path)),
            Input("ontology", "RDFS ontology (Turtle) over the stream and the background", "path",
                  lambda q, path: with_background(q, ontology_path=path))),
    peers={"etalis": Peer("etalis", "the query compiled to ETALIS rules (paper section 5) and run on ceplab's "
                                    "ETALIS engine", peer_etalis)},
    benchmark=_benchmark,
    mutants=_mutants,
    translation=_translation,
    locality=_locality,
    oracle_workload=_oracle_workload,
    stream_chunk=_stream_chunk,
    offset_positions=offset_positions,
    stream_formats=STREAM_FORMATS,
    bundled_graphs=(("background", Path(__file__).with_name("data") / "indices.ttl"),
                    ("ontology", Path(__file__).with_name("data") / "ontology.ttl")),
)
