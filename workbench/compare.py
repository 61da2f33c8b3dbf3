"""Oracle versus engine on one case (DESIGN.md sections 1, 3 and 4).

:func:`compare` runs the language's reference oracle and its incremental evaluator on the same query
and stream and returns a :class:`Report`. Besides comparing the two result sets it checks the
streaming contract of the evaluator: every result is emitted exactly once, at the position
``Language.result_end(result)`` at which it is determined (or at ``close()`` for results a language
defers to the end of the stream, see ``Language.deferred``). A language whose emission position
depends on the stream (e.g. the first event at which the clock reaches the result's end and its
prefix entails it) gives ``Language.result_positions`` instead. A result emitted twice or at the
wrong position is a disagreement with a description in ``Report.problems``.

:func:`options_from_kv` turns ``--set NAME=VALUE`` strings (over a ``--profile``'s values,
:func:`profile_values`) into an ``Options`` value.

The engine runs under a per-case limit (:class:`ceplab.workbench.limits.EngineLimits`, by default
10 s and 2048 MiB): an engine that overruns it is stopped and the report's verdict is
``engine_limit``, a finding of its own (the engine derives forever or grows without bound on this
case), distinct from a disagreement and from an undecided oracle. An ``InputError`` the engine
raises (it refuses the query) propagates from :func:`compare` marked as the engine's
(:func:`engine_refusal`), so that a campaign can count refusals of queries the oracle answers.
"""
from __future__ import annotations

import dataclasses
import json
import time
import traceback
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

from ceplab.semantics.errors import InputError
from ceplab.workbench.limits import (EngineLimitExceeded, EngineLimits, call_limited,
                                     memory_reason)


class OptionError(InputError):
    """A bad ``--set NAME=VALUE`` (unknown name, malformed, or value not allowed)."""


# ----------------------------------------------------------------------------- options
def _allowed(tp: Any) -> tuple[list[Any] | None, type | None]:
    """(allowed literal values, or None; base type, or None) of an annotation."""
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return list(typing.get_args(tp)), None
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return _allowed(args[0])
    if isinstance(tp, type):
        return None, tp
    return None, None


def _convert(raw: str, tp: Any, name: str) -> Any:
    allowed, base = _allowed(tp)
    if allowed is not None:
        for a in allowed:
            if str(a) == raw or (isinstance(a, bool) and raw.lower() == str(a).lower()):
                return a
        raise OptionError(f"bad value {raw!r} for {name}; allowed: "
                          + ", ".join(str(a) for a in allowed), "--set")
    if base is bool:
        low = raw.lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        raise OptionError(f"bad value {raw!r} for {name}; allowed: true, false", "--set")
    if base is int:
        try:
            return int(raw)
        except ValueError:
            raise OptionError(f"bad value {raw!r} for {name}; expected an integer", "--set") from None
    if base is float:
        try:
            return float(raw)
        except ValueError:
            raise OptionError(f"bad value {raw!r} for {name}; expected a number", "--set") from None
    return raw


def profile_values(lang: Any, name: str | None) -> dict[str, Any]:
    """The switch values of the language's profile ``name`` (``Language.profiles``, ``--profile NAME``); ``{}``
    for None.

    Raises:
        OptionError: ``lang`` has no profile ``name`` (the message lists the ones it has).
    """
    if name is None:
        return {}
    profiles = getattr(lang, "profiles", None) or {}
    if name not in profiles:
        raise OptionError(f"unknown profile {name!r} for {lang.name}; its profiles: "
                          + (", ".join(profiles) or "none"), "--profile")
    return dict(profiles[name])


def options_from_kv(options_cls: type, items: Iterable[str] | None, base: Mapping[str, Any] | None = None) -> Any:
    """Build ``options_cls(**{name: value})`` from ``["name=value", ...]``.

    Values are converted by the field's annotation (``Literal`` choices, bool, int, float, str).  ``base``
    (typed values, e.g. a profile's, :func:`profile_values`) is applied first; ``items`` override it.

    Raises:
        OptionError: malformed item (no ``=``), unknown name (the message lists the known ones),
            a value that is not allowed (the message lists the allowed ones), or a combination the
            ``Options`` class rejects (its ``ValueError`` message). Plain ``str`` fields take the
            value as it is.
    """
    fields = {f.name: f for f in dataclasses.fields(options_cls)}
    try:
        hints = typing.get_type_hints(options_cls)
    except Exception:  # pragma: no cover - unresolvable annotations: treat as strings
        hints = {}
    kw: dict[str, Any] = {}
    for name, value in (base or {}).items():
        if name not in fields:
            raise OptionError(f"the profile sets an unknown switch {name!r}; known: {', '.join(fields)}",
                              "--profile")
        kw[name] = value
    for item in items or ():
        name, eq, raw = item.partition("=")
        name, raw = name.strip(), raw.strip()
        if not eq or not name:
            raise OptionError(f"expected NAME=VALUE, got {item!r}", "--set")
        if name not in fields:
            raise OptionError(f"unknown switch {name!r}; known: {', '.join(fields) or '(none)'}",
                              "--set")
        kw[name] = _convert(raw, hints.get(name, str), name)
    try:
        return options_cls(**kw)
    except (ValueError, TypeError) as e:  # the Options' own validation (combinations, formats)
        raise OptionError(str(e), "--set") from None


def options_to_json(options: Any) -> dict[str, Any]:
    """The switches of an ``Options`` value as a JSON object."""
    return dataclasses.asdict(options) if dataclasses.is_dataclass(options) else {}


# ----------------------------------------------------------------------------- report
def sort_json(items: Iterable[Any]) -> list[Any]:
    """JSON values in a canonical order (natural order when comparable, else by their JSON text)."""
    items = list(items)
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))


#: ``ceplab compare``'s exit code per verdict (2 bad input or a refused query and 4 an oracle failure
#: come from :data:`ceplab.semantics.errors.EXIT_CODES`).
EXIT_CODES: dict[str, int] = {"agree": 0, "disagree": 1, "undecided": 3, "engine_limit": 5}


def _default_to_json(r: Any) -> Any:
    return list(r) if isinstance(r, tuple) else r


@dataclass
class Report:
    """The outcome of one oracle-versus-engine comparison.

    Attributes:
        agree: True iff the oracle decided, both result sets are equal and every engine result was
            emitted exactly once at its position.
        oracle_only: results the oracle has and the engine did not emit (canonical form).
        engine_only: results the engine emitted that the oracle does not have.
        undecided: None, or why the oracle gave no verdict (time or grounding limit, ...).
        engine_limit: None, or which per-case engine limit the engine overran (``time limit of
            10 s exceeded in push() of the event at index 3 (3 of 6 events done)``); the engine was stopped, ``emissions`` holds what
            it emitted until then and the result sets are not compared.
        oracle_count / engine_count: number of distinct results (oracle_count None if undecided).
        oracle_seconds / engine_seconds: wall-clock time of each side.
        problems: human-readable descriptions of everything wrong besides the set difference:
            duplicate emissions, emissions at the wrong position, exceptions.
        engine_path: the evaluator's ``path`` (which algorithm ran).
        oracle_results: the oracle's results (None if undecided).
        emissions: the engine's emission log, ``(result, position or None for close())``.
    """

    agree: bool
    oracle_only: list[Any] = field(default_factory=list)
    engine_only: list[Any] = field(default_factory=list)
    undecided: str | None = None
    engine_limit: str | None = None
    oracle_count: int | None = None
    engine_count: int = 0
    oracle_seconds: float = 0.0
    engine_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    engine_path: str | None = None
    oracle_results: frozenset | None = None
    emissions: list[tuple[Any, int | None]] = field(default_factory=list)
    oracle_stats: Any = None
    result_to_json: Callable[[Any], Any] = field(default=_default_to_json, repr=False,
                                                 compare=False)

    @property
    def verdict(self) -> str:
        """``agree``, ``disagree``, ``undecided`` or ``engine_limit`` (an engine limit beats
        everything: the engine's output is incomplete; a disagreement beats undecided)."""
        if self.engine_limit is not None:
            return "engine_limit"
        if self.agree:
            return "agree"
        if self.undecided is not None and not self.problems:
            return "undecided"
        return "disagree"

    @property
    def exit_code(self) -> int:
        """CLI exit code (:data:`EXIT_CODES`): 0 agree, 1 disagree, 3 undecided, 5 engine limit."""
        return EXIT_CODES[self.verdict]

    @property
    def engine_results(self) -> frozenset:
        """The distinct results the engine emitted."""
        return frozenset(r for r, _ in self.emissions)

    def to_json(self) -> dict[str, Any]:
        """The ``compare --json`` object (DESIGN.md section 4), results in canonical sorted form."""
        tj = self.result_to_json
        return {
            "verdict": self.verdict,
            "agree": self.agree,
            "oracle_only": sort_json(tj(r) for r in self.oracle_only),
            "engine_only": sort_json(tj(r) for r in self.engine_only),
            "undecided": self.undecided,
            "engine_limit": self.engine_limit,
            "oracle_count": self.oracle_count,
            "engine_count": self.engine_count,
            "oracle_seconds": round(self.oracle_seconds, 6),
            "engine_seconds": round(self.engine_seconds, 6),
            "problems": list(self.problems),
            "engine_path": self.engine_path,
        }

    def summary(self) -> str:
        """One line for humans."""
        if self.verdict == "agree":
            return (f"agree: {self.oracle_count} results (oracle {self.oracle_seconds:.3f} s, "
                    f"engine {self.engine_seconds:.3f} s)")
        if self.verdict == "undecided":
            return f"undecided: {self.undecided}"
        if self.verdict == "engine_limit":
            return (f"engine limit: {self.engine_limit} (engine stopped after "
                    f"{self.engine_seconds:.3f} s, {self.engine_count} result(s) emitted so far)")
        return (f"disagree: {len(self.oracle_only)} oracle-only, {len(self.engine_only)} "
                f"engine-only, {len(self.problems)} other problem(s)")


# ----------------------------------------------------------------------------- compare
def run_engine(lang: Any, query: Any, stream: Sequence[Any], options: Any,
               limits: EngineLimits | None = None
               ) -> tuple[list[tuple[Hashable, int | None]], float, str | None]:
    """Push every event of ``stream`` through a fresh evaluator, then close it.

    Args:
        limits: the per-case engine limit (:mod:`ceplab.workbench.limits`); None runs without one.

    Returns:
        ``(emissions, seconds, path)`` where emissions are ``(result, position)`` pairs in emission
        order, position ``None`` for results returned by ``close()``.

    Raises:
        EngineLimitExceeded: the engine overran ``limits``; its ``partial`` is a dict with the
            ``emissions`` so far (empty if a worker was killed), ``pushed`` (events pushed
            completely, None if unknown), ``events``, ``path`` and ``seconds``.
        InputError: the evaluator refuses the query (``UnsupportedError``), unchanged.
    """
    t0 = time.perf_counter()
    state: dict[str, Any] = {"emissions": [], "pushed": 0, "path": None}

    def snapshot() -> dict[str, Any]:
        return {"emissions": list(state["emissions"]), "pushed": state["pushed"],
                "path": state["path"]}

    def job() -> tuple[list[tuple[Hashable, int | None]], str | None]:
        out = state["emissions"]
        hit = False
        try:
            ev = lang.evaluator(query, options)
            state["path"] = getattr(ev, "path", None)
            for i, e in enumerate(stream):
                pos = getattr(e, "position", i)
                out.extend((r, pos) for r in ev.push(e))
                state["pushed"] = i + 1
            out.extend((r, None) for r in ev.close())
        except MemoryError:
            if limits is None or limits.memory_mb is None:
                raise
            ev = None               # let the evaluator's memory go before reporting
            hit = True
        except EngineLimitExceeded as e:
            e.partial = snapshot()
            raise
        if hit:                     # raised outside the handler: no reference to the MemoryError
            raise EngineLimitExceeded(memory_reason(limits), "memory", snapshot())
        return out, state["path"]

    try:
        out, path = call_limited(job, limits=limits)
    except EngineLimitExceeded as e:
        part = dict(e.partial) if isinstance(e.partial, dict) else \
            {"emissions": [], "pushed": None, "path": None}
        part.update(events=len(stream), seconds=time.perf_counter() - t0)
        raise EngineLimitExceeded(e.reason, e.kind, part) from None
    return out, time.perf_counter() - t0, path


def limit_text(e: EngineLimitExceeded) -> str:
    """``time limit of 10 s exceeded in push() of the event at index 3 (3 of 6 events done)``, or
    ``... in close() after all 6 events``."""
    p = e.partial if isinstance(e.partial, dict) else {}
    pushed, n = p.get("pushed"), p.get("events")
    if pushed is None or n is None:
        return e.reason
    if pushed >= n:
        return f"{e.reason} in close() after all {n} events"
    return f"{e.reason} in push() of the event at index {pushed} ({pushed} of {n} events done)"


def engine_refusal(e: BaseException) -> bool | None:
    """For an ``InputError`` that :func:`compare` let through: None if the engine did not raise
    it (the oracle refused, or the query does not parse), else whether the oracle had answered
    the case (decided, no problem) before the engine refused it."""
    if getattr(e, "refused_by", None) != "engine":
        return None
    return bool(getattr(e, "oracle_answered", False))


def run_oracle(lang: Any, query: Any, stream: Any, options: Any, limits: Any = None
               ) -> tuple[frozenset | None, str | None, float, Any]:
    """Run the oracle (in the persistent isolated worker of :mod:`ceplab.workbench.oracle_worker` when
    ``limits.isolate``). Returns ``(results or None, undecided reason or None, seconds, stats)``."""
    if limits is None:
        limits = default_limits()
    from ceplab.workbench import oracle_worker

    t0 = time.perf_counter()
    res = oracle_worker.call(lang, query, stream, options, limits)
    secs = time.perf_counter() - t0
    stats = getattr(res, "stats", None)
    results = getattr(res, "results", None)
    if results is None:
        return None, str(getattr(res, "reason", "undecided")), secs, stats
    return frozenset(results), None, secs, stats


def default_limits(time_s: float | None = None, max_ground_size: int | None = None) -> Any:
    """``ceplab.asp.oracle.Limits`` with its defaults, overriding the given fields."""
    from ceplab.asp.oracle import Limits

    kw = {}
    if time_s is not None:
        kw["time_s"] = time_s
    if max_ground_size is not None:
        kw["max_ground_size"] = max_ground_size
    return Limits(**kw)


def is_deferred(lang: Any, query: Any, options: Any) -> bool:
    """True if the language holds this query's results back until ``close()``."""
    return bool(lang.deferred(query, options))


def _describe(tj: Callable[[Any], Any], r: Any) -> str:
    try:
        return json.dumps(tj(r))
    except Exception:
        return repr(r)


def _where(p: int | None) -> str:
    return "at close()" if p is None else f"at position {p}"


def _expected_text(e: Any) -> str:
    if isinstance(e, (set, frozenset)):
        ps = sorted(e, key=lambda x: (x is None, x if x is not None else 0))
        return "one of " + ", ".join("close()" if p is None else f"position {p}" for p in ps)
    return "close()" if e is None else f"position {e}"


def position_problems(lang: Any, emissions: Sequence[tuple[Any, int | None]], deferred: bool,
                      expected: Mapping[Any, Any] | None = None) -> list[str]:
    """Check that each result is emitted once, at ``result_end`` (or at close() if deferred).

    ``expected`` (from the language's ``result_positions``) overrides ``result_end``:
    result -> position, ``None`` for ``close()``, a set of acceptable positions, or ``...`` (any).
    """
    return [p for ps in position_problems_by_result(lang, emissions, deferred, expected).values() for p in ps]


def position_problems_by_result(lang: Any, emissions: Sequence[tuple[Any, int | None]], deferred: bool,
                                expected: Mapping[Any, Any] | None = None) -> dict[Any, list[str]]:
    """:func:`position_problems` grouped by result: result -> its problems (results without one left out)."""
    tj = lang.result_to_json
    seen: dict[Any, list[int | None]] = {}
    for r, p in emissions:
        seen.setdefault(r, []).append(p)
    # fast path: a result emitted once where it is expected has no problem (most results of a long stream)
    by_expected = expected is not None and not deferred
    end = lang.result_end
    suspects = []
    for r, ps in seen.items():
        if len(ps) == 1:
            p = ps[0]
            if by_expected:
                want = expected.get(r, _MISSING)
                if want is ... or (p in want if isinstance(want, (set, frozenset)) else
                                   (want is not _MISSING and p == want)):
                    continue
            elif deferred:
                if p is None:
                    continue
            else:
                try:
                    if p is not None and p == end(r):
                        continue
                except Exception:  # noqa: BLE001 - a malformed result: reported below
                    pass
        suspects.append((r, ps))
    out: dict[Any, list[str]] = {}
    for r, ps in suspects:
        problems = out[r] = []
        name = _Name(tj, r)      # formatted only into a problem (naming every result of a long stream is slow)
        if len(ps) > 1:
            problems.append(f"result {name} emitted {len(ps)} times ("
                            + ", ".join(_where(p) for p in ps) + ")")
        if expected is not None and not deferred:
            if r not in expected:
                problems.append(f"result {name}: no expected emission position")
                continue
            want = expected[r]
            if want is ...:
                continue
            ok = (lambda p: p in want) if isinstance(want, (set, frozenset)) else (lambda p: p == want)
            for p in sorted(set(ps), key=lambda x: (x is None, x if x is not None else 0)):
                if not ok(p):
                    problems.append(f"result {name} emitted {_where(p)}, expected at "
                                    f"{_expected_text(want)} (where it is determined)")
            continue
        try:
            expected_p: int | None = None if deferred else lang.result_end(r)
        except Exception as e:  # a malformed result
            problems.append(f"result {name} is malformed: {e}")
            continue
        for p in sorted(set(ps), key=lambda x: (x is None, x if x is not None else 0)):
            if p != expected_p:
                if expected_p is None:
                    why = "the results of this query are determined only at the end of the stream"
                    problems.append(f"result {name} emitted {_where(p)}, expected at close() ({why})")
                elif p is None:
                    problems.append(f"result {name} emitted at close(), expected at position "
                                    f"{expected_p} (its last event)")
                elif p < expected_p:
                    problems.append(f"result {name} emitted at position {p}, before its last event "
                                    f"at position {expected_p}")
                else:
                    problems.append(f"result {name} emitted late at position {p}, expected at "
                                    f"position {expected_p} (its last event)")
    return {r: ps for r, ps in out.items() if ps}


_MISSING = object()


class _Name:
    """A result's name, formatted on first use (``f"{name}"``)."""

    __slots__ = ("_tj", "_r")

    def __init__(self, tj: Callable[[Any], Any], r: Any) -> None:
        self._tj, self._r = tj, r

    def __format__(self, spec: str) -> str:
        return format(_describe(self._tj, self._r), spec)

    def __str__(self) -> str:
        return _describe(self._tj, self._r)


def expected_positions(lang: Any, query: Any, stream: Any, options: Any, limits: Any,
                       results: Iterable[Any]) -> Mapping[Any, Any] | None:
    """The language's ``result_positions`` for ``results``, or None when it gives ``result_end``."""
    hook = lang.result_positions
    if hook is None:
        return None
    if limits is None:
        limits = default_limits()
    return hook(query, stream, options, limits, results)


def compare(lang: Any, query: Any, stream: Any, options: Any = None, limits: Any = None,
            engine_limits: EngineLimits | None = None) -> Report:
    """Compare the oracle and the engine of ``lang`` on one case.

    Args:
        lang: a :class:`ceplab.workbench.language.Language`.
        query: a parsed query.
        stream: a Stream (events in order, ``position`` = index).
        options: the language's Options (default: ``lang.options()``).
        limits: ``ceplab.asp.oracle.Limits`` for the oracle (default: its defaults).
        engine_limits: the engine's per-case limit (default ``EngineLimits()``: 10 s, 2048 MiB,
            in-process; ``EngineLimits(None, None)`` for none). Overrunning it gives the verdict
            ``engine_limit``.

    Returns:
        A :class:`Report`. ``InputError`` (e.g. an evaluator's ``UnsupportedError``) propagates;
        one raised by the engine carries ``refused_by = "engine"`` and ``oracle_answered`` (see
        :func:`engine_refusal`). Any other exception of either side becomes a problem (a
        disagreement) with its traceback tail.
    """
    if options is None:
        options = lang.options()
    tj = lang.result_to_json
    problems: list[str] = []
    oracle_results = None
    undecided = None
    oracle_seconds = 0.0
    stats = None
    try:
        oracle_results, undecided, oracle_seconds, stats = run_oracle(lang, query, stream, options,
                                                                      limits)
    except InputError:
        raise
    except Exception as e:
        problems.append(f"oracle raised {type(e).__name__}: {e} "
                        f"[{_tb_tail()}]")
    if engine_limits is None:
        engine_limits = EngineLimits()
    emissions: list[tuple[Any, int | None]] = []
    engine_seconds = 0.0
    path = None
    limit = None
    t0 = time.perf_counter()
    try:
        emissions, engine_seconds, path = run_engine(lang, query, stream, options, engine_limits)
    except InputError as e:
        e.refused_by = "engine"       # type: ignore[attr-defined]
        e.oracle_answered = (oracle_results is not None and undecided is None  # type: ignore[attr-defined]
                             and not problems)
        raise
    except EngineLimitExceeded as e:
        limit = limit_text(e)
        part = e.partial or {}
        emissions, path = part.get("emissions") or [], part.get("path")
        engine_seconds = part.get("seconds", time.perf_counter() - t0)
    except Exception as e:
        engine_seconds = time.perf_counter() - t0
        problems.append(f"engine raised {type(e).__name__}: {e} [{_tb_tail()}]")
    try:
        engine_set = frozenset(r for r, _ in emissions)
    except TypeError as e:
        problems.append(f"engine emitted an unhashable result: {e}")
        engine_set = frozenset()
    if limit is not None:          # incomplete output: neither positions nor sets are compared
        return Report(agree=False, undecided=undecided, engine_limit=limit,
                      oracle_count=None if oracle_results is None or undecided else len(oracle_results),
                      engine_count=len(engine_set), oracle_seconds=oracle_seconds,
                      engine_seconds=engine_seconds, problems=problems, engine_path=path,
                      oracle_results=oracle_results, emissions=emissions, oracle_stats=stats,
                      result_to_json=tj)
    if engine_set:
        deferred = is_deferred(lang, query, options)
        expected = None
        if not deferred:
            try:
                expected = expected_positions(lang, query, stream, options, limits, engine_set)
            except InputError:
                raise
            except Exception as e:
                problems.append(f"computing the expected emission positions raised "
                                f"{type(e).__name__}: {e} [{_tb_tail()}]")
                expected = {r: ... for r in engine_set}   # still check duplicates
        problems.extend(position_problems(lang, emissions, deferred, expected))
    oracle_only: list[Any] = []
    engine_only: list[Any] = []
    if oracle_results is not None:
        oracle_only = sorted(oracle_results - engine_set, key=lambda r: json.dumps(tj(r)))
        engine_only = sorted(engine_set - oracle_results, key=lambda r: json.dumps(tj(r)))
    agree = (oracle_results is not None and undecided is None and not problems
             and not oracle_only and not engine_only)
    return Report(agree=agree, oracle_only=oracle_only, engine_only=engine_only,
                  undecided=undecided, oracle_count=None if oracle_results is None or undecided
                  else len(oracle_results), engine_count=len(engine_set),
                  oracle_seconds=oracle_seconds, engine_seconds=engine_seconds, problems=problems,
                  engine_path=path, oracle_results=oracle_results, emissions=emissions,
                  oracle_stats=stats, result_to_json=tj)


def _tb_tail() -> str:
    exc = __import__("sys").exc_info()[1]
    if getattr(exc, "worker_tb_tail", None):     # raised in an isolated engine worker
        return exc.worker_tb_tail
    tb = traceback.extract_tb(__import__("sys").exc_info()[2])
    if not tb:
        return ""
    f = tb[-1]
    return f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} in {f.name}"
