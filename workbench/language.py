"""The language plugin interface and the registry (DESIGN.md section 3).

A language is one :class:`Language` value. ceplab finds languages through the Python entry-point
group ``ceplab.languages`` (:data:`ENTRY_POINT_GROUP`): each entry names a ``Language`` object, e.g.
in a package's ``pyproject.toml``::

    [project.entry-points."ceplab.languages"]
    cel = "ceplab.workbench.langs.cel:LANGUAGE"

so a researcher adds a language in their own package, with no change to ceplab. The shared
workbench modules (``compare``, ``shrink``, ``spark``, ``papers``, ``cli``, the bench harness) use
only the members below and name no language.

Every capability is a typed, documented member; optional ones are ``None`` (or empty) when a
language does not have them, and the workbench says so instead of guessing.
"""
from __future__ import annotations

import importlib.metadata
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Iterator, Mapping, Protocol

#: The entry-point group languages register under.
ENTRY_POINT_GROUP = "ceplab.languages"

Query = Any      #: a parsed query (the language's AST)
Stream = Any     #: a sequence of events, each with a ``position`` (its index in the file)
Result = Hashable  #: one result in the language's canonical, hashable form
Options = Any    #: an instance of the language's frozen ``Options`` dataclass


class Evaluator(Protocol):
    """An incremental evaluator (DESIGN.md section 3).

    ``push(event)`` consumes the next event and returns the results determined by it; ``close()``
    ends the stream and returns results determined only by its end. Every result is returned
    exactly once, at the earliest event at which it is determined. ``path`` names the evaluation
    algorithm used (shown by ``ceplab run``).
    """

    path: str

    def push(self, event: Any) -> list[Result]: ...

    def close(self) -> list[Result]: ...


class Strategies(Protocol):
    """Hypothesis strategies of a language (its property tests and ``ceplab matrix`` draw from them)."""

    def queries(self, **kw: Any) -> Any: ...

    def streams(self, min_len: int = 0, max_len: int = 6) -> Any: ...

    def options(self) -> Any: ...

    def render(self, query: Any) -> str: ...


@dataclass(frozen=True)
class Input:
    """An input only some languages take (a static graph, an ontology, a horizon, ...), offered by
    the CLI generically as ``--NAME VALUE`` on ``run`` and ``compare``.

    Attributes:
        name: the option name without dashes (``background`` -> ``--background``).
        help: one line for ``ceplab languages`` and error messages.
        kind: ``"path"`` (an existing file), ``"int"`` or ``"str"``: how the CLI converts the value.
        apply: ``apply(query, value) -> query``: the query with this input attached; raises
            ``InputError`` (e.g. ``StreamError`` naming the file) on bad input.
    """

    name: str
    help: str
    kind: str
    apply: Callable[[Query, Any], Query]


@dataclass(frozen=True)
class Peer:
    """An external engine run beside ceplab on the same input (``ceplab compare --peer NAME``).

    Attributes:
        name: the peer's name.
        help: what it is and what it needs (e.g. an environment variable naming its checkout).
        run: ``run(query, stream, options, timeout_s) -> iterable of results`` in the language's
            result form; raises ``UnsupportedError`` when the input is outside what the peer can
            express and ``PeerError`` when the peer is absent (by name), fails or times out.
    """

    name: str
    help: str
    run: Callable[[Query, Stream, Options, float | None], Iterable[Result]]


@dataclass(frozen=True)
class Mutant:
    """One planted semantic bug in a language's engine (``ceplab bench mutants``, :mod:`ceplab.workbench.mutants`):
    the text ``old``, which must occur exactly once in ``file``, is replaced by ``new`` in a temporary copy of the
    engine; the oracle is never touched.

    Attributes:
        name: a short identifier, unique within the language (``window-off-by-one``).
        kind: the kind of bug (``window``, ``selection``, ``filter``, ``ties``, ``consumption``, ``gc``, ``switch``,
            ``operator``, ...).
        file: the engine file, relative to the ``engine`` package (``cel/automaton.py``).
        old: the exact original text (one occurrence).
        new: its replacement.
        description: what the mutant changes, in the semantics' terms.
        exposes: an input that exposes it (query and stream in a line), or, for a mutant no check can kill, why
            it is equivalent; shown beside survivors.
    """

    name: str
    kind: str
    file: str
    old: str
    new: str
    description: str
    exposes: str = ""


@dataclass(frozen=True)
class PaperFormat:
    """How a language's worked examples are written in ``papers-check/<lang>/*.json``
    (:mod:`ceplab.workbench.papers` reads the layouts; these members fill in what is language-specific).

    Attributes:
        with_strategy: ``(formula_text, strategy) -> query_text`` for the formulas x strategies
            layout, or None when the language has no selection strategies.
        parse_unchecked: ``(text, file) -> query`` without the well-formedness check (cases the
            paper states on formulas the engine refuses), or None.
        stream: ``(value, file) -> stream`` from a case's ``stream`` value (inline objects, a file
            next to the case file, or a compact notation), or None for the flat-event forms.
        pattern_query: ``(rules, head, pattern) -> query_text`` for the shared-rules x patterns
            layout, or None.
        project_results: ``(canonical results, head) -> canonical results`` restricted to ``head``.
        expected: ``(items, file) -> canonical results``: expected results in a compact notation.
        provenance_legend: the meaning of the provenance letters in the verdict table.
        unchecked_note: why cases marked ``"check": false`` run through the oracle only (shown
            in the verdict table).
        answers_are_positions: the canonical results are lists of stream positions (a complex event as the set
            of its positions): the errata report's figures draw them at the events at those positions.
        query_suffix: the file suffix of the language's query files (``".cel"``, ``".event"``, ...), used
            when a case's query is written to a file (the errata report's replay cases,
            :mod:`ceplab.workbench.report`).
    """

    with_strategy: Callable[[str, str], str] | None = None
    parse_unchecked: Callable[[str, str | None], Query] | None = None
    stream: Callable[[Any, str], Stream] | None = None
    pattern_query: Callable[[Any, str, str], str] | None = None
    project_results: Callable[[list, str], list] | None = None
    expected: Callable[[Any, str], Any] | None = None
    provenance_legend: str = ""
    unchecked_note: str = ""
    query_suffix: str = ".txt"
    answers_are_positions: bool = False


@dataclass(frozen=True)
class StreamFormat:
    """One stream file format a language's ``read_stream`` reads, as the malformed-input campaigns
    (``ceplab fuzz LANG --malformed``, :mod:`ceplab.workbench.malformed`) write and mutate it.

    Attributes:
        suffix: the file suffix ``read_stream`` recognises the format by (``".jsonl"``, ``".trig"``, ...).
        dumps: ``(stream) -> str``: the file text of a stream, which ``read_stream`` reads back.
        time_pattern: a regular expression (``re.MULTILINE``) whose group 1 matches one event's time stamp
            (an integer, in the stream's ticks) in that text, once per event: what the stream-level
            mutations (out-of-order, duplicate and huge time stamps) rewrite.
    """

    suffix: str
    dumps: Callable[[Any], str]
    time_pattern: str


def jsonl_stream_format(stream_to_json: Callable[[Any], list[dict]], time_key: str) -> StreamFormat:
    """The ``.jsonl`` :class:`StreamFormat` of a language whose JSON Lines streams are its ``stream_to_json``
    objects, one per line (``json.dumps`` with sorted keys), each with the integer time stamp ``time_key``."""
    import json
    import re

    def dumps(stream: Any) -> str:
        return "".join(json.dumps(x, sort_keys=True) + "\n" for x in stream_to_json(stream))

    return StreamFormat(".jsonl", dumps, rf'"{re.escape(time_key)}": (-?\d+)')


class SuiteReport(Protocol):
    """The verdicts of an external example suite (:attr:`ExampleSuite.run`).

    ``ok``: True when every example the suite could run agrees (examples outside the language do not count);
    ``to_json()``: one JSON object (``ceplab papers-check LANG --suite DIR --json`` prints it);
    ``table()``: a rich renderable (what the command prints otherwise).
    """

    @property
    def ok(self) -> bool: ...

    def to_json(self) -> dict: ...

    def table(self) -> Any: ...


@dataclass(frozen=True)
class ExampleSuite:
    """An external system's own example suite, run as a regression check against the oracle and the engine
    (``ceplab papers-check LANG --suite DIR``).  The suite's files are not part of ceplab: the user points at
    them.

    Attributes:
        help: what ``DIR`` is and what the run needs (one line, shown by ``ceplab languages`` and in errors).
        unavailable: ``() -> str | None``: why the suite cannot run here (a sentence naming what is missing,
            e.g. the external system itself), or None; the command then exits 2.
        run: ``(directory, limits, progress) -> SuiteReport`` (``limits``: the oracle's
            :class:`ceplab.asp.oracle.Limits`; ``progress``: show a progress bar on stderr); it reports every
            unreadable example in the report and raises only ``OSError`` for an unreadable ``directory``.
        time_s: the oracle's time limit per example when ``--timeout`` is not given (seconds), or None for the
            oracle's default.
    """

    help: str
    unavailable: Callable[[], str | None]
    run: Callable[[Path, Any, bool], SuiteReport]
    time_s: float | None = None


#: ``(name, query_text, stream)``: one bundled real-data case.
RealCase = tuple[str, str, Stream]


def _never_deferred(query: Query, options: Options) -> bool:
    return False


@dataclass(frozen=True)
class Language:
    """A registered language (DESIGN.md section 3).

    Required members:
        name: CLI name (``cel``, ``etalis``, ...).
        paper: the citation of the paper whose semantics the language implements.
        parse: ``parse(text, file=None) -> Query``; raises ``ParseError`` (file, line, column).
        parse_file: ``parse_file(path) -> Query``; raises ``ParseError``.
        render: ``render(query) -> str`` in concrete syntax, with ``parse(render(q)) == q``.
        read_stream: ``read_stream(path) -> Stream``; raises ``StreamError``.
        options: the frozen ``Options`` dataclass of named semantic switches.
        oracle: ``oracle(query, stream, options, limits) -> OracleResult | Undecided``
            (``limits``: :class:`ceplab.asp.oracle.Limits`); raises ``UnsupportedError``.  The workbench may run
            it in another process (:mod:`ceplab.workbench.oracle_worker`); see ``oracle_done``.
        evaluator: ``evaluator(query, options) -> Evaluator``; raises ``UnsupportedError``.
        result_to_json / result_from_json: the canonical JSON form of one result (DESIGN.md
            section 4) and its inverse.

    Emission contract (where each result must be emitted; :func:`ceplab.workbench.compare.compare`
    checks it). Exactly one of:
        result_end: ``result_end(result) -> position``: the stream position of the event that
            determines the result (e.g. its last event).
        result_positions: ``(query, stream, options, limits, results) -> {result: position |
            None (close()) | frozenset of acceptable positions}``, for languages whose positions
            depend on the stream (time-ordered streams with ties, results determined when the clock
            passes a time).
    and:
        deferred: ``deferred(query, options) -> bool``: True when all results of the query are
            determined only at the end of the stream (emitted by ``close()``).

    Streams (reproducers, shrinking, the Spark streams table):
        stream_to_json: ``(stream) -> list of JSON objects``; stream_from_json: the inverse,
            ``(items, name) -> Stream``, raising ``StreamError``.
        drop_events: ``(stream, indices) -> Stream`` without those events, positions renumbered.
        event_row: ``(event) -> (time, type, attrs dict)``: one row of the Spark streams table.

    Generators and shrinking:
        strategies: ``() -> Strategies`` (hypothesis), or None.
        random_case: ``(rng, length) -> (query_text, stream, options)``, a seeded case drawn with the
            same generators (Spark fuzzing), or None (the language is not fuzzed).
        simplify: ``(query_text) -> iterator of strictly smaller query texts``, or None.
        case_extras: ``(query_text) -> JSON object or None``: anything beyond the query text and the
            stream a reproducer should show (e.g. inline background knowledge).

    Switches:
        profiles: named sets of switch values, ``{profile name: {Options field: value}}`` (``--profile NAME`` on
            ``run``, ``compare`` and ``check``: the profile's values first, then ``--set`` overrides them); e.g. the
            readings of a reference implementation where it departs from the paper. Empty when the language has
            none; listed by ``ceplab languages`` and ``ceplab run --help``.

    Data and inputs:
        real_cases: ``() -> list of (name, query_text, stream)``: the bundled real-data cases.
        papers_dir: the folder of the paper's worked examples (``papers-check/<lang>``), or None.
        paper_format: see :class:`PaperFormat`.
        suite: an external system's own example suite (:class:`ExampleSuite`: ``ceplab papers-check LANG --suite
            DIR``), or None.
        inputs: the extra inputs the language takes (:class:`Input`).
        declared_options: ``(query, options, explicit_names, file) -> (options, notes)``: switches a
            query file sets itself (``explicit_names``: those given with ``--set``, which win); each
            note is printed so no choice is silent. None when query files set none.
        peers: external engines by name (:class:`Peer`).
        benchmark: ``() -> ceplab.workbench.bench.Benchmark``, or None.
        mutants: ``() -> tuple of Mutant``: the planted engine bugs of ``ceplab bench mutants`` (at least 10 per
            language), or None.

    Optional:
        oracle_done: ``(query, stream, options, answer) -> None``, called in the caller's process with every
            answer of ``oracle`` the workbench obtained (the oracle itself may have run in a worker process), e.g.
            to keep what ``result_positions`` needs for the same case; or None.

    Scale (segmented solving, ``ceplab bench oracles``):
        locality: ``(query, options, stream) -> Locality | None``: the claim that the query's answer on
            ``stream`` decomposes into overlapping segments (:class:`ceplab.workbench.segments.Locality`); None
            when it does not (e.g. a consumption policy, an unwindowed sequence), or when the language
            makes no such claim.  It may depend on the stream only through properties of single events (the
            longest interval, a blank node): ``ceplab check`` reads a dataset piece by piece and combines the
            pieces' claims (:func:`ceplab.workbench.segments.combine`: the largest span and lookahead, None if
            any piece's is None).
        oracle_workload: ``(n, w, seed) -> (query_text, stream, options)``: a documented windowed query with
            window ``w`` (ticks or positions, as the language's windows count) over a seeded random stream of
            ``n`` events, the workload of ``ceplab bench oracles``; or None.
        stream_chunk: ``(seed, stream, start, count) -> Stream``: the events ``start .. start+count-1`` (positions
            and times ``start``, ``start+1``, ... unless the language's streams need ties) of seeded random long
            stream ``stream``, drawn from a generator seeded by ``(seed, stream, start)`` alone, so that chunks
            can be drawn in parallel (``ceplab generate``); or None.
        offset_positions: ``(stream, offset) -> Stream``: the same events with every position moved by ``offset``
            (a piece of a long stream rebuilt with ``stream_from_json`` starts at position 0; ``ceplab check``
            reads a generated dataset piece by piece and moves each piece to its place); or None (the language's
            datasets are read whole).

    Cross-language matrix (``ceplab matrix``, docs/matrix.md):
        translation: ``() -> ceplab.workbench.matrix.translate.Translation``: core queries and streams in the
            language, and its results projected back to core matches; or None (the language is not in the matrix).

    Files on disk (malformed-input campaigns, ``ceplab fuzz LANG --malformed``, :mod:`ceplab.workbench.malformed`):
        stream_formats: the stream file formats ``read_stream`` reads (:class:`StreamFormat`); each mutant is
            written in one of them. Empty: the JSON Lines form of ``stream_to_json`` (``.jsonl``), which every
            language's ``read_stream`` must read (reproducers are written so).
        bundled_graphs: ``(input name, file)`` pairs: bundled static graphs (Turtle, ...) the campaign passes as
            ``--NAME FILE`` (one of the language's ``inputs`` of kind ``path``), mutated or not; empty when
            the language takes none.
    """

    name: str
    paper: str
    parse: Callable[..., Query]
    parse_file: Callable[[Any], Query]
    render: Callable[[Query], str]
    read_stream: Callable[[Any], Stream]
    options: type
    oracle: Callable[[Query, Stream, Options, Any], Any]
    evaluator: Callable[[Query, Options], Evaluator]
    result_to_json: Callable[[Result], Any]
    result_from_json: Callable[[Any], Result]
    stream_to_json: Callable[[Stream], list[dict]]
    stream_from_json: Callable[[list[dict], str], Stream]
    drop_events: Callable[[Stream, Iterable[int]], Stream]
    event_row: Callable[[Any], tuple[int, str, dict]]
    result_end: Callable[[Result], int] | None = None
    result_positions: Callable[[Query, Stream, Options, Any, Iterable[Result]], Mapping[Result, Any]] | None = None
    deferred: Callable[[Query, Options], bool] = _never_deferred
    strategies: Callable[[], Strategies] | None = None
    random_case: Callable[[random.Random, int], tuple[str, Stream, Options]] | None = None
    simplify: Callable[[str], Iterator[str]] | None = None
    case_extras: Callable[[str], dict | None] | None = None
    real_cases: Callable[[], list[RealCase]] = list
    papers_dir: Path | None = None
    paper_format: PaperFormat = field(default_factory=PaperFormat)
    suite: ExampleSuite | None = None
    inputs: tuple[Input, ...] = ()
    declared_options: Callable[[Query, Options, set[str], str | None], tuple[Options, list[str]]] | None = None
    profiles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    peers: Mapping[str, Peer] = field(default_factory=dict)
    benchmark: Callable[[], Any] | None = None
    mutants: Callable[[], tuple[Mutant, ...]] | None = None
    oracle_done: Callable[[Query, Stream, Options, Any], None] | None = None
    locality: Callable[[Query, Options, Stream], Any] | None = None
    oracle_workload: Callable[[int, int, int], tuple[str, Stream, Options]] | None = None
    stream_chunk: Callable[[int, int, int, int], Stream] | None = None
    offset_positions: Callable[[Stream, int], Stream] | None = None
    stream_formats: tuple[StreamFormat, ...] = ()
    bundled_graphs: tuple[tuple[str, Path], ...] = ()
    translation: Callable[[], Any] | None = None

    def __post_init__(self) -> None:
        if (self.result_end is None) == (self.result_positions is None):
            raise TypeError(f"language {self.name!r}: give exactly one of result_end and result_positions")


# ----------------------------------------------------------------------------- the registry
class RegistryError(LookupError):
    """An unknown language name, or an entry point that does not give a :class:`Language`."""


_ADDED: dict[str, Language] = {}
_LOADED: dict[str, Language] = {}


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    seen: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        seen.setdefault(ep.name, ep)      # the first distribution on sys.path wins (like imports)
    return list(seen.values())


def names() -> list[str]:
    """The registered language names: entry points in the order their distributions declare them,
    then languages added in-process with :func:`add`."""
    out = [ep.name for ep in _entry_points()]
    return out + [n for n in _ADDED if n not in out]


def get(name: str) -> Language:
    """The language called ``name`` (its entry point is loaded on first use).

    Raises:
        RegistryError: unknown language (the message lists the known ones), or an entry point that
            does not give a ``Language`` whose ``name`` is ``name``.
    """
    if name in _ADDED:
        return _ADDED[name]
    if name in _LOADED:
        return _LOADED[name]
    for ep in _entry_points():
        if ep.name == name:
            obj = ep.load()
            if not isinstance(obj, Language) or obj.name != name:
                raise RegistryError(f"entry point {ep.value!r} of group {ENTRY_POINT_GROUP!r} does not give "
                                    f"a ceplab Language named {name!r} (got {type(obj).__name__})")
            _LOADED[name] = obj
            return obj
    raise RegistryError(f"unknown language {name!r}; known: {', '.join(names()) or '(none)'}")


def languages() -> list[Language]:
    """Every registered language, in :func:`names` order."""
    return [get(n) for n in names()]


def add(language: Language) -> None:
    """Register ``language`` in this process only (tests, notebooks); packages use entry points."""
    _ADDED[language.name] = language


def remove(name: str) -> None:
    """Undo :func:`add`."""
    _ADDED.pop(name, None)


def stream_json_default(stream: Stream) -> list[dict]:
    """``[event.to_json() for event in stream]``: the ``stream_to_json`` of languages whose events
    serialise themselves."""
    return [e.to_json() for e in stream]


def package_data(module_file: str, *parts: str) -> Path:
    """A path inside a language package (``package_data(__file__, "data", "queries")``)."""
    return Path(module_file).resolve().parent.joinpath(*parts)


__all__ = ["ENTRY_POINT_GROUP", "Evaluator", "Strategies", "Input", "Peer", "Mutant", "PaperFormat", "ExampleSuite",
           "SuiteReport", "Language", "RealCase", "RegistryError", "names", "get", "languages", "add", "remove"]
