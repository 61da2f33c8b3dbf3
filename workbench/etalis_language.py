"""Registers ETALIS (Anicic, Fodor, Rudolph, Stühmer, Stojanovic, Studer: "Real-time complex event
recognition and reasoning -- a logic programming approach", Applied Artificial Intelligence 26(1-2),
2012) as ``etalis`` in :mod:`ceplab.workbench.languages`.

The record wires together the parser (:mod:`ceplab.semantics.etalis.parser`, ``.event`` rule files), the
stream readers (:func:`ceplab.semantics.etalis.streams.read_events`: JSON Lines or ``.stream``), the switches
(:class:`ceplab.semantics.etalis.options.Options`), the clingo oracle (:func:`ceplab.asp.etalis.oracle`), the
incremental engine (:func:`ceplab.engine.etalis.evaluator`), the seeded generators and hypothesis
strategies (:mod:`ceplab.workbench.strategies`), the bundled real-data cases
(``ceplab.workbench.etalis_data.real_cases``, optional) and the paper's worked examples
(``papers-check/etalis``).

Results are ``(atom_text, start, end)`` tuples; their canonical JSON form (DESIGN.md section 4) is
``[atom, start, end]`` with the atom written as in ETALIS (``d(1,abc)``).

Emission positions. ETALIS streams are ordered by end time and a result is determined when the stream
clock reaches its end (note etalis.md 9.5), by the event that completes it. The language therefore
provides ``extra["result_positions"]`` (used by :func:`ceplab.workbench.compare.compare` instead of
``result_end``): a result ending at ``t`` is expected

* at the only event ending at ``t``;
* among several events ending at ``t`` (ties): at the first one whose stream prefix already entails
  it, decided by the oracle on those prefixes for streams of at most :data:`EXACT_TIES_MAX_EVENTS`
  events (the fuzz cases); on longer streams (the real data: one oracle call per prefix would be
  quadratic) and when a prefix call is undecided, any event of the tie group is accepted;
* if no event ends at ``t`` (``t`` is an absolute time point): at the first event ending after
  ``t``, or at ``close()`` when there is none;
* with ``during_result="contained"`` a result's interval is not the hull of what it was built from
  (``p1 during p2`` ends before ``p2`` does), so only "not before its end" is checked.

``result_end`` returns the end time of a result (not a position).

Errors: the oracle's and the engine's ``UnsupportedError`` (a ``ValueError``), the oracle's
``ModelError`` (no unique model) and a consumption policy whose modules are not installed become
:class:`ceplab.semantics.errors.UnsupportedError` (an ``InputError``: the CLI prints it and exits 2).

Heavy modules (clingo, the engine, hypothesis) are imported on first use.
"""
from __future__ import annotations

import bisect
import dataclasses
import json
import random
from pathlib import Path
from typing import Any, Iterable, Sequence

from ceplab.semantics.errors import InputError, ParseError, UnsupportedError
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.streams import read_events
from ceplab.workbench.languages import Language, register

PAPER = ("Anicic, Fodor, Rudolph, Stühmer, Stojanovic, Studer: Real-time complex event recognition "
         "and reasoning - a logic programming approach, Applied Artificial Intelligence 26(1-2), 2012")

#: Streams up to this length get the exact tie check of :func:`result_positions` (prefix oracles).
EXACT_TIES_MAX_EVENTS = 64

#: Consumption policies other than the default (their modules are optional, see :func:`_policies`).
POLICIES = ("chronological", "recent", "recent_lifo")


# ----------------------------------------------------------------------------- parsing
def _parse(text: str, file: str | None = None) -> Any:
    from ceplab.semantics.etalis.parser import parse

    return parse(text, file)


def _parse_file(path: Any) -> Any:
    from ceplab.semantics.etalis.parser import parse_file

    return parse_file(path)


# ----------------------------------------------------------------------------- evaluation
def _unsupported(e: BaseException, what: str) -> UnsupportedError:
    if isinstance(e, InputError):
        return e  # type: ignore[return-value]
    return UnsupportedError(f"{what}: {e}" if what else str(e))


def _is_unsupported(e: BaseException) -> bool:
    return type(e).__name__ == "UnsupportedError" and not isinstance(e, InputError)


def _policy_missing(options: Options, e: ImportError) -> UnsupportedError:
    return UnsupportedError(f"the consumption policy {options.policy!r} is not available "
                            f"({type(e).__name__}: {e})")


def _oracle(query: Any, stream: Any, options: Options, limits: Any) -> Any:
    from ceplab.asp.etalis import oracle
    from ceplab.semantics.errors import ModelError

    try:
        return oracle(query, stream, options, limits)
    except ImportError as e:
        if options.policy != "unrestricted":
            raise _policy_missing(options, e) from None
        raise
    except ModelError as e:
        raise UnsupportedError(f"no unique model: {e}") from None
    except Exception as e:
        if _is_unsupported(e):
            raise _unsupported(e, "oracle") from None
        raise


def _evaluator(query: Any, options: Options) -> Any:
    from ceplab.engine.etalis import evaluator

    try:
        return evaluator(query, options)
    except ImportError as e:
        if options.policy != "unrestricted":
            raise _policy_missing(options, e) from None
        raise
    except Exception as e:
        if _is_unsupported(e):
            raise _unsupported(e, "") from None
        raise


def _policies() -> bool:
    """True once the consumption-policy engine and oracle modules exist."""
    from ceplab.workbench.strategies import _etalis_policy_available

    return _etalis_policy_available()


# ----------------------------------------------------------------------------- results
def result_to_json(r: Any) -> list:
    """``(atom, start, end)`` -> ``[atom, start, end]`` (DESIGN.md section 4)."""
    atom, s, e = r
    return [str(atom), int(s), int(e)]


def result_from_json(x: Any) -> tuple:
    """Inverse of :func:`result_to_json`."""
    atom, s, e = x
    return (str(atom), int(s), int(e))


def result_end(r: Any) -> int:
    """The end time of a result (ETALIS positions come from ``extra["result_positions"]``)."""
    return int(r[2])


def result_positions(query: Any, stream: Sequence[Any], options: Options, limits: Any,
                     results: Iterable[Any]) -> dict:
    """The stream position at which each result is determined (see the module docstring).

    Returns:
        result -> position (``None`` = ``close()``), or a frozenset of acceptable positions when an
        oracle call on a prefix was undecided.
    """
    from ceplab.workbench.compare import run_oracle

    stream = list(stream)
    if dataclasses.is_dataclass(limits) and hasattr(limits, "isolate"):
        # a prefix grounds a subset of what the full call (already decided) grounded: run in-process
        limits = dataclasses.replace(limits, isolate=False)
    ends = [int(e.end) for e in stream]
    pos = [getattr(e, "position", i) for i, e in enumerate(stream)]
    out: dict = {}
    ties: dict[int, list] = {}
    contained = getattr(options, "during_result", "container") == "contained"
    for r in results:
        t = int(r[2])
        lo = bisect.bisect_left(ends, t)
        hi = bisect.bisect_right(ends, t)
        if contained:   # the result's interval need not be its hull: not before its end
            out[r] = frozenset(pos[lo:]) | {None}
        elif lo == hi:   # a time point: determined when the clock passes it
            out[r] = pos[lo] if lo < len(stream) else None
        elif hi - lo == 1:
            out[r] = pos[lo]
        else:
            ties.setdefault(t, []).append(r)
    exact = len(stream) <= EXACT_TIES_MAX_EVENTS
    for t, rs in ties.items():
        lo = bisect.bisect_left(ends, t)
        hi = bisect.bisect_right(ends, t)
        if not exact:
            for r in rs:
                out[r] = frozenset(pos[lo:hi])
            continue
        todo = set(rs)
        for i in range(lo, hi - 1):
            try:
                got, undecided, _s, _st = run_oracle(_LANG, query, stream[:i + 1], options, limits)
            except Exception:
                got, undecided = None, "error"
            if got is None or undecided:
                for r in todo:
                    out[r] = frozenset(pos[j] for j in range(i, hi))
                todo = set()
                break
            for r in [r for r in todo if r in got]:
                out[r] = pos[i]
                todo.discard(r)
            if not todo:
                break
        for r in todo:
            out[r] = pos[hi - 1]
    return out


# ----------------------------------------------------------------------------- streams
def stream_from_json(items: list[dict], name: str = "<reproducer>") -> list:
    """A stream from a list of event JSON objects (``StreamEvent.to_json`` form)."""
    from ceplab.semantics.etalis.streams import read_jsonl_events

    return read_jsonl_events("".join(json.dumps(x) + "\n" for x in items), name)


def event_row(e: Any) -> tuple[int, str, dict]:
    """``(time, type, attrs)`` of an event for the Spark streams table: the start time, the
    predicate and ``{"args": [...], "end": end}``."""
    d = e.to_json()
    return int(e.start), str(e.atom.name), {"args": d.get("args", []), "end": int(e.end)}


def drop_events(stream: Sequence[Any], drop: Iterable[int]) -> list:
    """``stream`` without the events at the given indices; positions renumbered, times kept."""
    d = set(drop)
    kept = [e for i, e in enumerate(stream) if i not in d]
    return [dataclasses.replace(e, position=i) for i, e in enumerate(kept)]


def parse_compact_stream(text: str, file: str = "<string>") -> list:
    """``"a@1 b(1,x)@2 p@3-5"`` -> stream events (point ``@t`` or interval ``@start-end``), stably
    ordered by end time, positions renumbered (papers-check notation)."""
    from ceplab.semantics.errors import StreamError
    from ceplab.semantics.etalis import ast as A
    from ceplab.semantics.etalis.parser import parse_term
    from ceplab.semantics.etalis.streams import StreamEvent

    out = []
    for i, tok in enumerate(text.split()):
        atom, at, t = tok.rpartition("@")
        s, _, e = t.partition("-")
        if not at or not s.isdigit() or (e and not e.isdigit()):
            raise StreamError(f"expected ATOM@T or ATOM@START-END, got {tok!r}", file)
        try:
            term = parse_term(atom, file)
        except ParseError as err:
            raise StreamError(f"bad event {atom!r}: {err.message}", file) from None
        if isinstance(term, A.Sym):
            ea = A.EventAtom(term.name, ())
        elif isinstance(term, A.Compound):
            ea = A.EventAtom(term.functor, term.args)
        else:
            raise StreamError(f"bad event {atom!r}", file)
        out.append(StreamEvent(ea, int(s), int(e or s), i))
    out.sort(key=lambda x: x.end)
    return [dataclasses.replace(x, position=i) for i, x in enumerate(out)]


def paper_stream(value: Any, file: str) -> list:
    """A papers-check stream: inline event objects (JSON Lines form), a ``.jsonl``/``.stream``
    file next to the case file, or the compact ``"a@1 b(2)@3-5"`` notation."""
    from ceplab.semantics.errors import StreamError
    from ceplab.semantics.etalis.streams import read_jsonl_events

    if isinstance(value, dict) and "events" in value:
        value = value["events"]
    if isinstance(value, str):
        if value.endswith((".jsonl", ".stream")):
            return read_events(Path(file).parent / value)
        return parse_compact_stream(value, file)
    if isinstance(value, list):
        return read_jsonl_events("".join(json.dumps(x) + "\n" for x in value), file)
    raise StreamError(f"cannot read an ETALIS stream from {value!r}", file)


def pattern_query(rules: Any, head: str, pattern: str) -> str:
    """The query of a Figure-1-style case: the shared ``rules`` plus ``head <- pattern.``."""
    pre = "\n".join(rules) if isinstance(rules, list) else str(rules or "")
    return (pre + "\n" if pre else "") + f"{head} <- {pattern}.\n"


def project_results(results: list, head: str) -> list:
    """Canonical results restricted to ``head``: a predicate name (``r``: every ``r`` and ``r(..)``)
    or one atom (``r(1)``). 0-ary atoms become ``[start, end]`` intervals (how the paper's figures
    state them), others stay ``[atom, start, end]``."""
    from ceplab.workbench.compare import sort_json

    out = []
    for a, s, e in results:
        if a == head or ("(" not in head and a.split("(", 1)[0] == head):
            out.append([s, e] if "(" not in a else [a, s, e])
    return sort_json(out)


# ----------------------------------------------------------------------------- generators
def _strategies() -> Any:
    from ceplab.workbench.strategies import EtalisStrategies

    return EtalisStrategies()


def random_options(rng: random.Random) -> Options:
    """Random switches the engine implements; a consumption policy only when its modules exist."""
    kw: dict[str, Any] = {}
    if rng.random() < 0.2:
        kw["not_local_vars"] = "free"
    if rng.random() < 0.2:
        kw["proper_intervals_only"] = True
    if rng.random() < 0.2:
        kw["window"] = "exactly"
    if rng.random() < 0.1:
        kw["during_result"] = "contained"
    if _policies() and rng.random() < 0.4:
        kw["policy"] = rng.choice(POLICIES)
        if rng.random() < 0.3:
            kw["interval_policy"] = rng.choice(("longest", "shortest", "max:X", "min:X"))
    try:
        return Options(**kw)
    except ValueError:
        kw.pop("interval_policy", None)
        return Options(**kw)


def _random_case(rng: random.Random, length: int) -> tuple[str, list, Options]:
    """A seeded random case: the shared generator's (rules, stream) plus random switches.

    Rejection sampling: a program that does not parse (``ParseError``, e.g. an unsafe head) or that
    the oracle's compiler / the engine refuse (``UnsupportedError``) is redrawn from the same ``rng``
    (at most 30 times). Switches the engine refuses for the drawn program (``during_result=
    contained`` with ``not``, a policy whose modules are missing) fall back to the defaults, so the
    case stays a function of the seed.
    """
    from ceplab.workbench.strategies import random_etalis_case

    text, stream, prog = "", [], None
    for _ in range(30):
        text, stream = random_etalis_case(rng, length)
        try:
            prog = _parse(text)
            _evaluator(prog, Options())
        except (ParseError, UnsupportedError):
            prog = None
            continue
        break
    options = random_options(rng)
    if prog is not None and options != Options():
        for cand in (options, dataclasses.replace(options, during_result="container"), Options()):
            try:
                _evaluator(prog, cand)
            except (UnsupportedError, ValueError):
                continue
            options = cand
            break
    return text, stream, options


def _real_cases() -> list:
    try:
        from ceplab.workbench.etalis_data import real_cases
    except ImportError:
        return []
    return real_cases()


def _paper_cases() -> list:
    from ceplab.workbench.papers import load_cases

    return load_cases("etalis")


def _simplify(text: str, lang: Any = None) -> Any:
    from ceplab.workbench.shrink import etalis_simplifications

    return etalis_simplifications(text, lang)


def _render(query: Any) -> str:
    return str(query)


def declared_options(query: Any, options: Options, explicit: set[str], file: str | None = None
                     ) -> tuple[Options, list[str]]:
    """Honour a consumption policy the rule file sets for ETALIS (``event_consumption_policy``).

    Args:
        query: the parsed program.
        options: the options from ``--set``.
        explicit: the option names given explicitly with ``--set`` (they win over the file).
        file: the rule file's name, for the messages.

    Returns:
        ``(options, notes)``: the options to use and one message per decision taken (printed by the CLI, so
        no choice is silent).  ETALIS's ``unrestricted``, ``chronological_2`` and ``recent_2`` map to
        ``unrestricted``, ``chronological`` and ``recent_lifo``; its default-style ``recent`` and
        ``chronological`` (one goal per key, consumed) have no counterpart and leave the policy unchanged.
    """
    from ceplab.semantics.etalis.policies import ETALIS_POLICY_FLAGS, declared_policy

    dec = declared_policy(query)
    if dec is None:
        return options, []
    flag, pos = dec
    where = f"{file or '<rules>'}:{pos[0]}:{pos[1]}" if pos else (file or "<rules>")
    mapped = ETALIS_POLICY_FLAGS.get(flag)
    if "policy" in explicit:
        if mapped != options.policy:
            return options, [f"{where}: the file sets ETALIS's event_consumption_policy '{flag}'; "
                             f"--set policy={options.policy} overrides it"]
        return options, []
    if mapped is None:
        return options, [f"{where}: the file sets ETALIS's event_consumption_policy '{flag}', which keeps one "
                         "goal per key and consumes it; ceplab has no such policy (its policies: unrestricted, "
                         "chronological, recent, recent_lifo; semantics/etalis/policies.py), so the run uses "
                         f"policy={options.policy}; choose one with --set policy=NAME"]
    if mapped == options.policy:
        return options, []
    import dataclasses
    try:
        new = dataclasses.replace(options, policy=mapped)
    except ValueError as e:
        raise UnsupportedError(f"the file's event_consumption_policy '{flag}' (= policy {mapped}) conflicts "
                               f"with the other switches: {e}", file, *(pos or (0, 0))) from None
    return new, [f"{where}: policy={mapped} (the file sets ETALIS's event_consumption_policy '{flag}')"]


def peer_etalis(query: Any, stream: list, options: Options, timeout_s: float | None = None) -> frozenset:
    """The real ETALIS (``ceplab.workbench.peers.etalis``) on the same rules and stream under the matching policy.

    Returns:
        the set of ``(atom_text, start, end)`` ETALIS fired for derived predicates.

    Raises:
        ceplab.semantics.errors.UnsupportedError: the peer is not available (the reason is given), the policy has no
            ETALIS counterpart (``recent``), or the rules use a construct ETALIS cannot express.
        RuntimeError: ETALIS failed or timed out (``PeerError``).
    """
    from ceplab.workbench.peers import etalis as P

    reason = P.unavailable_reason()
    if reason is not None:
        raise UnsupportedError(reason)
    try:
        res = P.run_etalis(query, stream, policy=options.policy, timeout_s=timeout_s or 60)
    except P.Unsupported as e:
        raise UnsupportedError(f"peer etalis: {e}") from None
    return res.results


def _factory() -> Language:
    return _LANG


_LANG = Language(
    name="etalis",
    parse=_parse,
    parse_file=_parse_file,
    read_stream=read_events,
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
        "declared_options": declared_options,
        "peers": {"etalis": peer_etalis},
        "simplify": _simplify,
        "render": _render,
        "result_from_json": result_from_json,
        "stream_from_json": stream_from_json,
        "event_row": event_row,
        "drop_events": drop_events,
        "paper_stream": paper_stream,
        "pattern_query": pattern_query,
        "project_results": project_results,
        "paper": PAPER,
        "provenance_legend": "T = paper text, R = reconstructed rule text, I = implementation, "
                             "V = clingo-verified (note etalis.md 0, 5)",
    },
)

register("etalis", _factory)
