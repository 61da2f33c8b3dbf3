"""CEL (Grez, Riveros, Ugarte, Bucchi, "Foundations of Complex Event Processing", arXiv:1709.05369) as a
ceplab language plugin: :data:`LANGUAGE`, registered under the entry point ``cel``.

The plugin wires together the parser (:mod:`ceplab.semantics.cel.parser`), the switches
(:class:`ceplab.semantics.cel.options.Options`), the clingo oracle (:func:`ceplab.asp.cel.oracle`), the
incremental engine (:func:`ceplab.engine.cel.evaluator`), the canonical result form
(:mod:`ceplab.semantics.cel.results`: a complex event is the sorted tuple of its positions, emitted at
its last position), the generators (:mod:`.generators`), the shrinking candidates (:mod:`.simplify`),
the bundled real-data cases (:mod:`.data`), the paper's worked examples (``papers-check/cel``), the
benchmark (:mod:`.bench`) and the OpenCEP peer of the benchmark (:mod:`.peer`).

Heavy modules (clingo, the engine, hypothesis) are imported on first use.
"""
from __future__ import annotations

import functools

import random
from pathlib import Path
from typing import Any

from ceplab.semantics.cel import results as R
from ceplab.semantics.cel.options import Options
from ceplab.semantics.events import parse_jsonl, read_stream
from ceplab.workbench.language import Language, PaperFormat, StreamFormat, jsonl_stream_format, stream_json_default
from ceplab.workbench.shrink import drop_events


# The workbench parses before it knows the switches (``ceplab run --set ...``): nested strategies
# (docs/semantics/cel.md#cel-G5) are parsed here and accepted or rejected by the oracle and the engine, which check
# ``Options.nested_strategies`` themselves (a ParseError naming the switch, with line and column).
_PARSE_ALL = Options(nested_strategies="compositional")


@functools.lru_cache(maxsize=512)
def _parse(text: str, file: str | None = None) -> Any:
    """:func:`ceplab.semantics.cel.parser.parse` with every nested strategy accepted, memoised on ``(text, file)``:
    the AST is immutable, and a differential case parses its query more than once (the generator's validity
    check, the comparison).  Errors are not memoised (they are raised again)."""
    from ceplab.semantics.cel.parser import parse

    return parse(text, file, options=_PARSE_ALL)


def _parse_file(path: Any) -> Any:
    from ceplab.semantics.cel.parser import parse_file

    return parse_file(path, options=_PARSE_ALL)


def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.cel import oracle

    return oracle(query, stream, options, limits)


def _evaluator(query: Any, options: Options) -> Any:
    from ceplab.engine.cel import evaluator

    return evaluator(query, options)


def _deferred(query: Any, options: Options) -> bool:
    """MAX with ``max_scope=global`` is not streamable: the engine emits at ``close()``."""
    return getattr(query, "strategy", None) == "MAX" and options.max_scope == "global"


def _strategies() -> Any:
    from ceplab.workbench.langs.cel.generators import CelStrategies

    return CelStrategies()


def _random_case(rng: random.Random, length: int) -> tuple[str, Any, Options]:
    """A seeded random case: the shared generator's (query, stream) plus random switches.

    A fraction :data:`P_NESTED` of the cases has one nested selection strategy
    (:func:`.generators.random_nested_cel_case`) and runs under
    ``nested_strategies="compositional"``; a fraction :data:`P_LONG` of the others has a long stream
    (40-200 events, whatever ``length`` says) under a small window (``random_cel_case(long=True)``: window
    expiry, the compiled step code and the root pruning, docs/semantics/cel.md#cel-G8, #cel-G15); a fraction
    :data:`.generators.P_LATER` of the others compares an iteration's rounds with a later variable (binding
    runs, docs/semantics/cel.md#cel-10.4). Nothing is redrawn: a query the engine refuses while the
    oracle answers it is counted by the campaign as an engine refusal (expected: none).

    Switches: ``max_scope=global`` in 20% of the cases (40% of the nested ones: a nested MAX block must
    compare per end position whatever the switch says, docs/semantics/cel.md#cel-G5), ``nxt_output=top_ranked``
    in 20%,
    ``engine_path=interpreted`` (the engine option, semantics/cel/options.py: the reference evaluator of
    ALL/STRICT, which must give the same results) in :data:`P_INTERPRETED`.
    """
    from ceplab.workbench.langs.cel.generators import random_cel_case, random_nested_cel_case

    nested = rng.random() < P_NESTED
    base = Options(nested_strategies="compositional") if nested else Options()
    if nested:
        text, stream = random_nested_cel_case(rng, length)
    elif rng.random() < P_LONG:
        text, stream = random_cel_case(rng, rng.randint(40, 200), long=True)
    else:
        text, stream = random_cel_case(rng, length)
    options = Options(max_scope="global" if rng.random() < (0.4 if nested else 0.2) else "same_end",
                      nxt_output="top_ranked" if rng.random() < 0.2 else "marked",
                      nested_strategies=base.nested_strategies,
                      engine_path="interpreted" if rng.random() < P_INTERPRETED else "generated")
    return text, stream, options


#: Fraction of fuzz cases with a nested selection strategy (docs/semantics/cel.md#cel-G5, compositional reading).
P_NESTED = 0.15
#: Fraction of the other fuzz cases with a long stream (40-200 events) under ``WITHIN 1..3``.
P_LONG = 0.1
#: Fraction of fuzz cases run with ``engine_path=interpreted``.
P_INTERPRETED = 0.25


def _real_cases() -> list:
    from ceplab.workbench.langs.cel.data import real_cases

    return real_cases()


def _simplify(text: str) -> Any:
    from ceplab.workbench.langs.cel.simplify import simplifications

    return simplifications(text)


def _parse_unchecked(text: str, file: str | None = None) -> Any:
    """Parse without the strong well-formedness check (oracle-only paper examples, docs/semantics/cel.md#cel-G3)."""
    from ceplab.semantics.cel.parser import parse

    return parse(text, file, check=False, options=_PARSE_ALL)


def _with_strategy(formula_text: str, strategy: str) -> str:
    """``STRATEGY(formula)``; ``ALL`` leaves the formula as it is."""
    return formula_text if strategy.upper() in ("ALL", "ANY") else f"{strategy}({formula_text})"


def _render(query: Any) -> str:
    return str(query)


def _stream_from_json(items: list[dict], name: str = "<reproducer>") -> Any:
    import json

    return parse_jsonl("".join(json.dumps(x) + "\n" for x in items), name)


def _offset_positions(stream: Any, offset: int) -> Any:
    """``stream`` with every position moved by ``offset`` (``Language.offset_positions``)."""
    from ceplab.semantics.events import Event, Stream

    return Stream([Event(e.type, e.time, e.attrs, e.position + offset, e.end) for e in stream],
                  getattr(stream, "name", "<stream>"))


def _event_row(e: Any) -> tuple[int, str, dict]:
    return e.time, e.type, e.attrs


def _locality(query: Any, options: Options, stream: Any) -> Any:
    """Segmented solving (:mod:`ceplab.workbench.segments`): a query with a top-level ``WITHIN n`` is local in
    positions with span ``n`` -- every complex event C has ``max C - min C <= n`` (docs/semantics/cel.md#cel-G8),
    the window applies before the selection strategy, and every strategy of the paper compares only complex
    events with the same last position (STRICT, NXT, LAST, MAX with ``max_scope="same_end"``), so whether C
    is a result depends only on the events at positions ``max C - n .. max C``.  Not local: no ``WITHIN``, MAX
    with ``max_scope="global"`` (it compares across end positions), and nested strategies (a claim not
    made here)."""
    from ceplab.semantics.cel.ast import has_nested
    from ceplab.workbench.segments import POSITION, Locality

    within = getattr(query, "within", None)
    if within is None or has_nested(query):
        return None
    if query.strategy == "MAX" and options.max_scope == "global":
        return None
    return Locality(span=int(within), unit=POSITION, last=R.end, shift=_shift)


def _shift(c: Any, offset: int) -> Any:
    """A complex event with every position moved by ``offset``."""
    return R.ce(p + offset for p in c)


#: The query of ``ceplab bench oracles`` (window ``{w}`` in positions).
ORACLE_WORKLOAD = "(A AS a ; B AS b ; C AS c) FILTER (a.v = b.v AND b.v = c.v) WITHIN {w}"


def _oracle_workload(n: int, w: int, seed: int) -> tuple[str, Any, Options]:
    """:data:`ORACLE_WORKLOAD` with window ``w`` over the first ``n`` events of :func:`_stream_chunk`'s stream 0."""
    return ORACLE_WORKLOAD.format(w=w), _stream_chunk(seed, 0, 0, n), Options()


def _stream_chunk(seed: int, stream: int, start: int, count: int) -> Any:
    """Events ``start .. start+count-1`` of random stream ``stream`` (``ceplab generate``, the oracle workload):
    types uniform over A, B, C and three noise types, ``v`` uniform in 0..4 (so about one pair in 25 before a C
    completes a match of :data:`ORACLE_WORKLOAD`), event ``i`` at time and position ``i``; drawn from a
    generator seeded by ``(seed, stream, start)``."""
    from ceplab.semantics.events import Event, Stream

    rng = random.Random(f"ceplab-stream:cel:{seed}:{stream}:{start}")
    types = ("A", "B", "C", "N1", "N2", "N3")
    choice, rr = rng.choice, rng.randrange
    evs = [Event(choice(types), i, {"v": rr(5)}, i) for i in range(start, start + count)]
    return Stream(evs, f"<random stream {stream} seed={seed}>")


def _translation():
    """The matrix translation (docs/matrix.md), imported when the matrix runs."""
    from ceplab.workbench.langs.cel.matrix import CelTranslation
    return CelTranslation()


def _mutants() -> tuple:
    from ceplab.workbench.langs.cel.mutants import mutants

    return mutants()


def _benchmark() -> Any:
    from ceplab.workbench.langs.cel.bench import BENCHMARK

    return BENCHMARK


PAPER = "Grez, Riveros, Ugarte, Bucchi: Foundations of Complex Event Processing (arXiv:1709.05369)"


def _dumps_csv(stream: Any) -> str:
    from ceplab.semantics.events import dumps_csv

    return dumps_csv(list(stream))


#: The stream files ``read_stream`` reads (JSON Lines, CSV), for ``ceplab fuzz cel --malformed``: the time stamp
#: is the ``time`` field, or the second CSV column.
STREAM_FORMATS = (jsonl_stream_format(stream_json_default, "time"),
                  StreamFormat(".csv", _dumps_csv, r"^[^,\n]*,(-?\d+)"))


LANGUAGE = Language(
    name="cel",
    paper=PAPER,
    parse=_parse,
    parse_file=_parse_file,
    render=_render,
    read_stream=read_stream,
    options=Options,
    oracle=_oracle,
    evaluator=_evaluator,
    result_to_json=R.to_json,
    result_from_json=R.from_json,
    stream_to_json=stream_json_default,
    stream_from_json=_stream_from_json,
    drop_events=drop_events,
    event_row=_event_row,
    result_end=R.end,
    deferred=_deferred,
    strategies=_strategies,
    random_case=_random_case,
    simplify=_simplify,
    real_cases=_real_cases,
    papers_dir=Path(__file__).resolve().parents[3] / "papers-check" / "cel",
    paper_format=PaperFormat(with_strategy=_with_strategy, parse_unchecked=_parse_unchecked, answers_are_positions=True,
                             unchecked_note="not strongly well-formed, finite-word semantics (docs/semantics/cel.md#cel-G2/#cel-G3)",
                             query_suffix=".cel"),
    benchmark=_benchmark,
    mutants=_mutants,
    translation=_translation,
    locality=_locality,
    oracle_workload=_oracle_workload,
    stream_chunk=_stream_chunk,
    offset_positions=_offset_positions,
    stream_formats=STREAM_FORMATS,
)
