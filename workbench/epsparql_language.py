"""Registers EP-SPARQL (Anicic, Fodor, Rudolph, Stojanovic: "EP-SPARQL: a unified language for event
processing and stream reasoning", WWW 2011) as ``epsparql`` in :mod:`ceplab.workbench.languages`.

The record wires together the parser (:mod:`ceplab.semantics.epsparql.parser`), the stream readers
(:func:`ceplab.semantics.epsparql.streams.read_stream`: TriG, the line format; plus the JSON Lines form of
:func:`stream_to_json` used by fuzz reproducers), the switches (:class:`ceplab.semantics.epsparql.options.Options`,
set one by one with ``--set``), the clingo oracle (:func:`ceplab.asp.epsparql.oracle`), the incremental engine
(:func:`ceplab.engine.epsparql.evaluator`), the seeded generators and hypothesis strategies
(:mod:`ceplab.workbench.strategies`), the bundled real-data cases (``ceplab.workbench.epsparql_data.real_cases``, optional)
and the note's worked examples E1-E14 (``papers-check/epsparql``).

Results are :class:`ceplab.semantics.epsparql.results.Row` (SELECT rows) and ``Derived`` (occurrences the
CONSTRUCT rules add); their canonical JSON form (DESIGN.md section 4) is
:func:`ceplab.semantics.epsparql.results.to_json`: ``{"query", "mapping": {var: N-Triples term}, "start", "end"}``
(``"count"`` under ``output=bag``) or ``{"triple": [s, p, o], "start", "end"}``.

Emission positions (``extra["result_positions"]``): the engine evaluates a tick when the first occurrence
of a later tick arrives, or at ``close()``. A result ending at ``T`` is therefore expected at the first
occurrence whose end is ``> T``, or at ``close()`` when there is none.

Background knowledge (note A14) comes from ``--background``/``--ontology`` files (:func:`with_background`), from a
``# background: eustock`` line (the bundled data), or inline in the query text as ``# background graph: <s> <p>
<o> .`` / ``# background ontology: ...`` comment lines (:func:`background_comment`; a quarter of the Spark fuzz
cases draw such a background, and their reproducers keep it).

Errors: the oracle's and the engine's ``UnsupportedError`` (a ``ValueError``), the engine's ``ValueError``
for ill-formed time literals and the oracle's ``ModelError`` (no unique stable model) become
:class:`ceplab.semantics.errors.UnsupportedError` (an ``InputError``: the CLI prints it and exits 2).

Heavy modules (clingo, the engine, hypothesis) are imported on first use.
"""
from __future__ import annotations

import dataclasses
import bisect
import json
import random
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.errors import InputError, ParseError, StreamError, UnsupportedError
from ceplab.workbench.languages import Language, register

PAPER = ("Anicic, Fodor, Rudolph, Stojanovic: EP-SPARQL: a unified language for event processing and "
         "stream reasoning, WWW 2011")

#: The namespace bare names in the papers-check compact notation stand for (``ACME`` = ``:ACME``).
EX = "http://example.org/"


# ----------------------------------------------------------------------------- parsing
def _bundled_background(qs: Any, text: str) -> Any:
    """A query file with the comment line ``# background: eustock`` (the bundled real-data queries) is evaluated
    with the bundled index metadata and RDFS ontology (:func:`ceplab.workbench.epsparql_data.background`)."""
    from ceplab.workbench import epsparql_data

    if epsparql_data.needs_background(text):
        return WithBackground(qs, epsparql_data.background())
    return qs


#: Inline background knowledge in a query text (generated fuzz cases and their reproducers): one N-Triples triple
#: per comment line, ``# background graph: <s> <p> <o> .`` (static graph) or ``# background ontology: ...``.
_INLINE_BACKGROUND_RE = re.compile(r"^[ \t]*#[ \t]*background[ \t]+(graph|ontology):[ \t]*(.*?)[ \t]*$", re.M)


def background_comment(graph: Iterable[str], ontology: Iterable[str]) -> str:
    """The comment lines carrying inline background knowledge (N-Triples lines of the static graph and the
    ontology); :func:`inline_background` reads them back."""
    return "".join(f"# background {kind}: {line}\n" for kind, lines in (("graph", graph), ("ontology", ontology))
                   for line in lines)


def background_lines(text: str) -> dict[str, list[str]]:
    """The inline background of a query text as ``{"graph": [N-Triples lines], "ontology": [...]}`` (JSON
    reproducers)."""
    out: dict[str, list[str]] = {"graph": [], "ontology": []}
    for m in _INLINE_BACKGROUND_RE.finditer(text):
        out[m.group(1)].append(m.group(2))
    return out


def split_background(text: str) -> tuple[str, str]:
    """``(the inline background comment lines, the rest of the text)``."""
    head = "".join(m.group(0).strip() + "\n" for m in _INLINE_BACKGROUND_RE.finditer(text))
    return head, _INLINE_BACKGROUND_RE.sub("", text)


def inline_background(text: str, file: str | None = None) -> Any:
    """The :class:`ceplab.semantics.epsparql.streams.Background` written inline in a query text
    (:func:`background_comment`), or None when there is none.

    Raises:
        ParseError: a line that is not one N-Triples triple (file and line named).
    """
    from rdflib import Graph

    from ceplab.semantics.epsparql.results import canonical_term
    from ceplab.semantics.epsparql.streams import Background

    graphs: dict[str, Any] = {}
    for m in _INLINE_BACKGROUND_RE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        g = Graph()
        try:
            g.parse(data=m.group(2) + "\n", format="nt")
            if len(g) != 1:
                raise ValueError("expected exactly one triple")
            (tr,) = list(g)
            tr = (tr[0], tr[1], canonical_term(tr[2]))
        except Exception as e:  # noqa: BLE001 - rdflib raises several types
            msg = str(e).strip().splitlines()
            raise ParseError(f"background {m.group(1)} line: not one N-Triples triple "
                             f"({msg[0] if msg else type(e).__name__})", file or "<string>", line, 1) from None
        graphs.setdefault(m.group(1), Graph()).add(tr)
    if not graphs:
        return None
    return Background(graph=graphs.get("graph"), ontology=graphs.get("ontology"))


def _attach_inline(qs: Any, text: str, file: str | None) -> Any:
    bg = inline_background(text, file)
    if bg is None:
        return qs
    return WithBackground(qs.qs if isinstance(qs, WithBackground) else qs, bg)


def _parse(text: str, file: str | None = None) -> Any:
    from ceplab.semantics.epsparql.parser import parse

    return _attach_inline(_bundled_background(parse(text, file), text), text, file)


def _parse_file(path: Any) -> Any:
    from pathlib import Path

    from ceplab.semantics.epsparql.parser import parse_file

    text = Path(path).read_text(encoding="utf-8")
    return _attach_inline(_bundled_background(parse_file(path), text), text, str(path))


def _render(query: Any) -> str:
    from ceplab.semantics.epsparql.parser import render

    query, _ = _unwrap(query)

    return render(query)


def _background_json(text: str) -> Any:
    """``{"graph": [...], "ontology": [...]}`` (N-Triples lines) of a query text's inline background, or None."""
    bl = background_lines(text)
    return bl if bl["graph"] or bl["ontology"] else None


def peer_etalis(query: Any, stream: Any, options: Options, timeout: Any = None) -> list:
    """``ceplab compare epsparql Q S --peer etalis``: the query compiled to ETALIS rules and run on ceplab's
    ETALIS engine (:class:`ceplab.engine.epsparql.etalis_backend.EtalisBackedEvaluator`, paper section 5), every result
    of the stream.  ``timeout`` is ignored (the run is incremental and in-process).

    Raises:
        ceplab.semantics.errors.UnsupportedError: the query (or its switches, or background knowledge) is outside the
            fragment ETALIS rules express; the message names the operator.
    """
    from ceplab.engine.epsparql.etalis_backend import EtalisBackedEvaluator
    from ceplab.semantics.errors import UnsupportedError as InputUnsupported

    qs, bg = _unwrap(query)
    if bg is not None:
        raise InputUnsupported("--peer etalis: background knowledge and RDFS are outside the ETALIS fragment; "
                               "they run on the native engine")
    return EtalisBackedEvaluator(qs, options).run(list(stream))


# ----------------------------------------------------------------------------- evaluation
def _is_unsupported(e: BaseException) -> bool:
    return type(e).__name__ == "UnsupportedError" and not isinstance(e, InputError)


@dataclasses.dataclass(frozen=True)
class WithBackground:
    """A query set together with its timeless background knowledge (note A14): what ``ceplab run/compare
    --background G.ttl --ontology O.ttl`` evaluate.  ``qs``: the parsed :class:`QuerySet`; ``background``: a
    :class:`ceplab.semantics.epsparql.streams.Background`."""
    qs: Any
    background: Any

    def __str__(self) -> str:
        return str(self.qs)


def with_background(query: Any, graph_path: Any = None, ontology_path: Any = None) -> Any:
    """``query`` with the static graph and RDFS ontology read from Turtle files (either may be None).

    Raises:
        ceplab.semantics.errors.StreamError: a file that cannot be read or parsed (file and line named).
    """
    from ceplab.semantics.epsparql.streams import read_background

    if graph_path is None and ontology_path is None:
        return query
    qs = query.qs if isinstance(query, WithBackground) else query
    return WithBackground(qs, read_background(graph_path, ontology_path))


def _unwrap(query: Any) -> tuple[Any, Any]:
    if isinstance(query, WithBackground):
        return query.qs, query.background
    return query, None


def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.epsparql import oracle
    from ceplab.semantics.errors import ModelError

    query, bg = _unwrap(query)
    try:
        return oracle(query, list(stream), options, limits, background=bg)
    except ModelError as e:
        raise UnsupportedError(f"no unique model: {e.args[0] if e.args else e}") from None
    except InputError:
        raise
    except Exception as e:
        if _is_unsupported(e):
            raise UnsupportedError(f"oracle: {e}") from None
        raise


def _evaluator(query: Any, options: Options) -> Any:
    from ceplab.engine.epsparql import evaluator

    query, bg = _unwrap(query)
    try:
        return evaluator(query, options, background=bg)
    except InputError:
        raise
    except ValueError as e:   # the engine's UnsupportedError, ill-formed time literals (A15)
        raise UnsupportedError(str(e)) from None


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


# ----------------------------------------------------------------------------- streams
def _nt(t: Any) -> str:
    from ceplab.semantics.epsparql.streams import _nt as nt

    return nt(t)


def stream_to_json(stream: Iterable[Any]) -> list[dict]:
    """Occurrences as JSON objects ``{"s", "p", "o" (N-Triples), "start", "end"}`` (reproducers)."""
    return [{"s": _nt(o.s), "p": _nt(o.p), "o": _nt(o.o), "start": int(o.start), "end": int(o.end)}
            for o in stream]


def stream_from_json(items: list[dict], name: str = "<reproducer>") -> list:
    """Inverse of :func:`stream_to_json` (through the line-format reader: checks, dedupe, positions)."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    lines = []
    for i, x in enumerate(items):
        if not isinstance(x, dict) or not all(k in x for k in ("s", "p", "o", "start")):
            raise StreamError("expected an object with s, p, o, start (and end)", name, i + 1, 1)
        lines.append(f"{x['s']} {x['p']} {x['o']} {int(x['start'])} {int(x.get('end', x['start']))} .")
    return read_line_stream("\n".join(lines) + ("\n" if lines else ""), name)


def read_stream(path: Any) -> list:
    """A stream file: ``.trig``, the line format (``.nt``/``.txt``/``.stream``), or ``.jsonl`` (one
    :func:`stream_to_json` object per line, as fuzz reproducers write them)."""
    from ceplab.semantics.epsparql.streams import read_stream as rs

    p = Path(path)
    if p.suffix.lower() != ".jsonl":
        return rs(p)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise StreamError(f"cannot read the stream: {e.strerror or e}", str(p)) from None
    items = []
    for ln, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise StreamError(f"malformed JSON: {e.msg}", str(p), ln, e.colno) from None
    return stream_from_json(items, str(p))


def event_row(o: Any) -> tuple[int, str, dict]:
    """``(start, predicate, {"s", "o", "end"})`` of an occurrence for the Spark streams table."""
    return int(o.start), _nt(o.p), {"s": _nt(o.s), "o": _nt(o.o), "end": int(o.end)}


def drop_events(stream: Sequence[Any], drop: Iterable[int]) -> list:
    """``stream`` without the occurrences at the given indices; positions renumbered, times kept."""
    d = set(drop)
    kept = [o for i, o in enumerate(stream) if i not in d]
    return [o._replace(position=i) for i, o in enumerate(kept)]


_COMPACT_TIME = re.compile(r"^@?\[?(\d+)(?:[,\-](\d+))?\]?$")


def _compact_term(tok: str) -> str:
    """``ACME``/``:ACME`` -> ``<http://example.org/ACME>``; integers and N-Triples terms as they are."""
    if tok.startswith(("<", '"', "_:")) or re.fullmatch(r"[+-]?\d+(\.\d+)?", tok) or tok in ("true", "false"):
        return tok
    return f"<{EX}{tok.lstrip(':')}>"


def parse_compact_stream(value: Any, file: str = "<string>") -> list:
    """Papers-check streams: occurrences ``"S P O T"`` / ``"S P O T1 T2"`` / ``"S P O @[T1,T2]"`` (bare names
    are ``http://example.org/`` IRIs, numbers literals, N-Triples terms allowed), as a list of strings or
    one string separated by ``;``; stably sorted by end (the note lists them by subject), then read by the
    line-format reader (checks, dedupe, positions)."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    items = [x.strip() for x in value.split(";")] if isinstance(value, str) else list(value)
    occ = []
    for i, it in enumerate(x for x in items if x):
        toks = str(it).split()
        times = []
        while toks and _COMPACT_TIME.match(toks[-1]) and len(toks) > 3:
            times.insert(0, toks.pop())
        if len(toks) != 3 or not times:
            raise StreamError(f"expected 'S P O T1 [T2]', got {it!r}", file, i + 1, 1)
        nums = [int(n) for t in times for n in _COMPACT_TIME.match(t).groups() if n is not None]
        if len(nums) > 2:
            raise StreamError(f"at most two times in {it!r}", file, i + 1, 1)
        s, e = nums[0], nums[-1]
        occ.append((e, i, f"{' '.join(_compact_term(t) for t in toks)} {s} {e} ."))
    occ.sort(key=lambda x: (x[0], x[1]))
    return read_line_stream("\n".join(x[2] for x in occ) + "\n", file)


def paper_stream(value: Any, file: str) -> list:
    """A papers-check stream: a stream file next to the case file (``.trig``/``.nt``/...), or the compact
    notation of :func:`parse_compact_stream`."""
    if isinstance(value, dict) and "events" in value:
        value = value["events"]
    if isinstance(value, str) and re.search(r"\.(trig|nt|txt|stream|jsonl)$", value):
        return read_stream(Path(file).parent / value)
    if isinstance(value, (str, list)):
        return parse_compact_stream(value, file)
    raise StreamError(f"cannot read an EP-SPARQL stream from {value!r}", file)


def _compact_value(v: Any) -> str:
    if isinstance(v, bool):
        return f'"{str(v).lower()}"^^<http://www.w3.org/2001/XMLSchema#boolean>'
    if isinstance(v, int):
        return f'"{v}"^^<http://www.w3.org/2001/XMLSchema#integer>'
    s = str(v)
    if re.fullmatch(r"[+-]?\d+", s):
        return f'"{int(s)}"^^<http://www.w3.org/2001/XMLSchema#integer>'
    if s.startswith(("<", '"', "_:")):
        return s
    return f"<{EX}{s.lstrip(':')}>"


def paper_expected(items: Any, file: str = "<string>") -> Any:
    """Expected results of a papers-check case in canonical JSON form. Accepts the canonical form and a
    compact one: ``{"map": {"company": "ACME", "p": 100}, "at": [1, 20], "query"?: 0, "count"?: 2}`` and
    ``{"triple": "ACME downratedby Moodys", "at": [1, 4]}`` (bare names ``http://example.org/`` IRIs,
    integers ``xsd:integer`` literals)."""
    if items is None:
        return None
    out = []
    for x in items:
        if isinstance(x, dict) and "at" in x:
            s, e = x["at"]
            if "triple" in x:
                t = x["triple"].split() if isinstance(x["triple"], str) else x["triple"]
                out.append({"triple": [_compact_value(v) for v in t], "start": s, "end": e})
            else:
                j = {"query": int(x.get("query", 0)),
                     "mapping": {k: _compact_value(v) for k, v in (x.get("map") or {}).items()},
                     "start": s, "end": e}
                if "count" in x:
                    j["count"] = x["count"]
                out.append(j)
        else:
            out.append(x)
    return out


def project_results(results: list, head: str) -> list:
    """Canonical results restricted by ``head``: ``"select"`` (the SELECT rows), ``"construct"`` (the
    derived triples) or ``"select:N"`` (the rows of SELECT query ``N``)."""
    from ceplab.workbench.compare import sort_json

    if head == "construct":
        return sort_json(r for r in results if "triple" in r)
    if head.startswith("select"):
        n = head.partition(":")[2]
        return sort_json(r for r in results if "mapping" in r and (not n or r.get("query") == int(n)))
    raise ValueError(f"result_head for epsparql must be select, select:N or construct, got {head!r}")


# ----------------------------------------------------------------------------- generators
def _strategies() -> Any:
    from ceplab.workbench.strategies import EpsparqlStrategies

    return EpsparqlStrategies()


#: Non-default values of each switch, drawn occasionally by :func:`random_options`.
SWITCHES: dict[str, tuple] = {
    "optional_end": ("strict",), "srj_filter_interval": ("mandatory",), "lj_filter_interval": ("hull",),
    "optional_filter": ("group",), "bgp_mode": ("per_triple",), "construct_unbound": ("drop_triple",),
    "output": ("bag",), "filter_errors": ("error_is_false",),
}


def random_options(rng: random.Random) -> Options:
    """Random switches: each one non-default with probability 0.15."""
    kw = {k: rng.choice(v) for k, v in SWITCHES.items() if rng.random() < 0.15}
    return Options(**kw)


#: Fraction of random cases (Spark fuzzing) that draw background knowledge (a static graph and an RDFS ontology).
P_BACKGROUND = 0.25


def _random_case(rng: random.Random, length: int) -> tuple[str, list, Options]:
    """A seeded random case: the shared generator's (query text, stream) plus random switches. With probability
    :data:`P_BACKGROUND` (decided first) the case has background knowledge, written inline into the query text
    (:func:`background_comment`), so the oracle and the engine both get it through ``parse`` and reproducers
    replay it. Query texts that do not parse or that the engine refuses are redrawn from the same ``rng`` (at
    most 30 times)."""
    from ceplab.workbench.strategies import random_epsparql_case

    text, stream = "", []
    background = rng.random() < P_BACKGROUND
    for _ in range(30):
        text, stream = random_epsparql_case(rng, length, background=background)
        try:
            _evaluator(_parse(text), Options())
        except (ParseError, UnsupportedError):
            continue
        break
    return text, stream, random_options(rng)


def _real_cases() -> list:
    try:
        from ceplab.workbench.epsparql_data import real_cases
    except ImportError:
        return []
    return real_cases(include_background=True)   # parse() attaches the bundled background


def _paper_cases() -> list:
    from ceplab.workbench.papers import load_cases

    return load_cases("epsparql")


def _simplify(text: str, lang: Any = None) -> Any:
    from ceplab.workbench.shrink import epsparql_simplifications

    return epsparql_simplifications(text, lang)


def _factory() -> Language:
    return _LANG


_LANG = Language(
    name="epsparql",
    parse=_parse,
    parse_file=_parse_file,
    read_stream=read_stream,
    options=Options,
    oracle=_oracle,
    evaluator=_evaluator,
    result_to_json=result_to_json,
    result_end=result_end,
    strategies=_strategies,
    real_cases=_real_cases,
    paper_cases=_paper_cases,
    random_case=_random_case,
    extra={
        "result_positions": result_positions,
        "simplify": _simplify,
        "render": _render,
        "result_from_json": result_from_json,
        "stream_from_json": stream_from_json,
        "stream_to_json": stream_to_json,
        "event_row": event_row,
        "drop_events": drop_events,
        "paper_stream": paper_stream,
        "paper_expected": paper_expected,
        "with_background": with_background,
        "background_json": _background_json,
        "peers": {"etalis": peer_etalis},
        "project_results": project_results,
        "paper": PAPER,
        "provenance_legend": "N = stated by the note epsparql.md 5 (clingo-confirmed there), "
                             "D = derived from the note's example by a stated projection",
    },
)

register("epsparql", _factory)
