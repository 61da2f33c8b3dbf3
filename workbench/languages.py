"""The language registry (DESIGN.md section 3): name -> :class:`Language`.

Every language plugs into the shared workbench (compare, hypothesis strategies, Spark, CLI) through
this record; nothing in the workbench knows a language's internals.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Protocol


class Evaluator(Protocol):
    """An incremental evaluator (DESIGN.md section 3).

    ``push(event)`` consumes the next event and returns the results determined by it;
    ``close()`` ends the stream and returns results determined only by its end. Every result is
    returned exactly once, at the earliest event at which it is determined. ``path`` names the
    evaluation algorithm used (shown by ``ceplab run``).
    """

    path: str

    def push(self, event: Any) -> list[Hashable]: ...

    def close(self) -> list[Hashable]: ...


@dataclass(frozen=True)
class Language:
    """A registered language.

    Attributes:
        name: CLI name (``cel``, ``etalis``, ...).
        parse: ``parse(text, file=None) -> Query``; raises ``ParseError``.
        parse_file: ``parse_file(path) -> Query``; raises ``ParseError``.
        read_stream: ``read_stream(path) -> Stream``; raises ``StreamError``.
        options: the frozen ``Options`` dataclass of named switches.
        oracle: ``oracle(query, stream, options, limits) -> OracleResult | Undecided``.
        evaluator: ``evaluator(query, options) -> Evaluator``.
        result_to_json: canonical JSON form of one result (DESIGN.md section 4).
        result_end: the stream position at which a result is determined (for prefix checks);
            a language whose positions depend on the stream provides
            ``extra["result_positions"]`` instead (see below) and may return anything here.
        strategies: ``strategies()`` -> object with hypothesis strategies ``queries()``,
            ``streams()``, ``options()`` and a ``render(query) -> str`` printer.
        real_cases: ``real_cases()`` -> list of (name, query_text, stream) bundled real-data cases.
        paper_cases: ``paper_cases()`` -> list of paper worked examples (see papers-check/).
        random_case: ``random_case(rng, length) -> (query_text, stream, options)`` for Spark fuzzing,
            drawn with the same generators as the hypothesis strategies.
        extra: optional hooks, by key (all optional; the workbench falls back to CEL-style streams):
            ``deferred(query, options) -> bool`` (results held back until ``close()``);
            ``result_positions(query, stream, options, limits, results) -> {result: position |
            None | frozenset of positions}`` (where each result must be emitted; overrides
            ``result_end``); ``simplify(query_text, lang)`` (shrinking candidates); ``render``;
            ``result_from_json``; ``parse_unchecked``; ``with_strategy``; ``paper`` (citation);
            ``stream_from_json(items, name)`` (a stream from event JSON objects, for reproducers);
            ``stream_to_json(stream) -> list of dicts`` (reproducers; default ``event.to_json()``);
            ``event_row(event) -> (time, type, attrs dict)`` (the Spark streams table);
            ``drop_events(stream, indices)`` (shrinking); ``paper_stream(value, file)``,
            ``pattern_query(rules, head, pattern)``, ``project_results(results, head)`` and
            ``paper_expected(items, file)`` (expected results in a compact notation -> canonical JSON) and
            ``provenance_legend`` (papers-check layouts and table, see :mod:`ceplab.workbench.papers`).
    """

    name: str
    parse: Callable[..., Any]
    parse_file: Callable[..., Any]
    read_stream: Callable[..., Any]
    options: type
    oracle: Callable[..., Any]
    evaluator: Callable[..., Any]
    result_to_json: Callable[[Any], Any]
    result_end: Callable[[Any], int]
    strategies: Callable[[], Any] | None = None
    real_cases: Callable[[], list] | None = None
    paper_cases: Callable[[], list] | None = None
    random_case: Callable[..., Any] | None = None
    extra: dict = field(default_factory=dict)


_REGISTRY: dict[str, Callable[[], Language]] = {}


def register(name: str, factory: Callable[[], Language]) -> None:
    """Register a language under ``name``; ``factory`` is called lazily on first use."""
    _REGISTRY[name] = factory


#: The built-in languages, in the order the CLI lists and runs them (independent of import order).
BUILTINS = ("cel", "etalis", "epsparql")


def names() -> list[str]:
    """Registered language names: the built-ins in :data:`BUILTINS` order, then the others in
    registration order."""
    _load_builtins()
    return [n for n in BUILTINS if n in _REGISTRY] + [n for n in _REGISTRY if n not in BUILTINS]


def get(name: str) -> Language:
    """The language called ``name``.

    Raises:
        KeyError: unknown language (the message lists the known ones).
    """
    _load_builtins()
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise KeyError(f"unknown language {name!r}; known: {', '.join(names())}") from None


_loaded = False


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from ceplab.workbench import cel_language  # noqa: F401  (registers "cel")
    from ceplab.workbench import etalis_language  # noqa: F401  (registers "etalis")
    from ceplab.workbench import epsparql_language  # noqa: F401  (registers "epsparql")
