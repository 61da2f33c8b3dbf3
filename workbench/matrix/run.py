"""The cross-language semantics matrix (docs/matrix.md): the same core query on the same stream under every
language that declares a translation, each evaluated by its oracle AND its engine, compared pair by pair.

A case is a seeded core query exercising one construct and a seeded core stream.  For every language the query
and the stream are translated (:class:`ceplab.workbench.matrix.translate.Translation`), run through
:func:`ceplab.workbench.compare.compare` (oracle and engine, with the engine's emission check), and the agreed
results are projected to core matches (sets of positions).  For every pair of languages a cell per construct
says: *equivalent* on all the cases both could express, *different* with the first distinguishing case, shrunk
to a minimal stream on which both languages' oracles and engines still agree with themselves and the two
languages still differ, or *not expressible* (one of them cannot express any drawn case).  A language whose
oracle and engine disagree on a case is a bug of ceplab, reported as such and left out of the cell.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from itertools import combinations
from typing import Any, Callable, Iterable, Optional, Sequence

from ceplab.semantics.errors import InputError
from ceplab.workbench.compare import compare, options_from_kv
from ceplab.workbench.matrix.core import (CONSTRUCTS, CoreEvent, CoreQuery, parse, random_query, random_stream,
                                          smaller_queries,
                                          stream_text)
from ceplab.workbench.matrix.translate import NotExpressible


@dataclass(frozen=True)
class Outcome:
    """One language on one case.

    Attributes:
        lang: the language's name.
        status: ``ok`` (oracle and engine agree), ``not_expressible``, ``undecided`` (the oracle hit a limit),
            ``disagree`` (oracle and engine differ: a ceplab bug) or ``error`` (the translation was refused).
        matches: the core matches (frozenset of frozensets of positions) when ``ok``.
        query: the translated query text (None when not expressible).
        switches: the switch values the translation set.
        detail: why, for every status but ``ok``.
    """
    lang: str
    status: str
    matches: Optional[frozenset] = None
    query: Optional[str] = None
    switches: tuple = ()
    detail: str = ""


def evaluate(lang: Any, q: CoreQuery, events: Sequence[CoreEvent], limits: Any = None) -> Outcome:
    """Translate ``q`` and ``events`` into ``lang`` (a :class:`ceplab.workbench.language.Language` with a
    ``translation``), run its oracle and engine, and project the results (module docstring)."""
    t = lang.translation()
    try:
        text, switches = t.query(q)
    except NotExpressible as e:
        return Outcome(lang.name, "not_expressible", detail=f"{e.construct}: {e.reason}")
    sw = tuple(sorted(switches.items()))
    try:
        query = lang.parse(text)
        options = options_from_kv(lang.options, [f"{k}={v}" for k, v in sw])
        rep = compare(lang, query, t.stream(events), options, limits)
    except InputError as e:
        return Outcome(lang.name, "error", query=text, switches=sw, detail=f"{type(e).__name__}: {e}")
    if rep.verdict == "undecided":
        return Outcome(lang.name, "undecided", query=text, switches=sw, detail=str(rep.undecided))
    if rep.verdict != "agree":
        return Outcome(lang.name, "disagree", query=text, switches=sw,
                       detail=f"oracle only {rep.oracle_only[:3]}, engine only {rep.engine_only[:3]}; "
                              f"{'; '.join(rep.problems)[:300]}")
    return Outcome(lang.name, "ok", t.project(rep.oracle_results, events), text, sw)


@dataclass
class Witness:
    """A minimal distinguishing case of two languages: the core query and stream, and each side's matches and
    translated query (``right_query``: the right side's core query when it differs, an across comparison of
    :func:`claims`)."""
    query: str
    stream: str
    left: Outcome
    right: Outcome
    right_query: Optional[str] = None

    def to_json(self) -> dict:
        def side(o: Outcome) -> dict:
            return {"lang": o.lang, "query": o.query, "switches": dict(o.switches),
                    "matches": sorted(sorted(m) for m in o.matches)}
        out = {"query": self.query, "stream": self.stream, "left": side(self.left), "right": side(self.right)}
        if self.right_query is not None:
            out["right_query"] = self.right_query
        return out


@dataclass
class Cell:
    """One construct and one pair of languages.

    Attributes:
        construct, left, right: the row and the pair (language names, in registry order).
        cases: the cases both languages expressed and settled (``ok``).
        witness: the first distinguishing case, shrunk (None: equivalent on ``cases``).
        reasons: why a side could not express a case (``lang: reason``), distinct.
    """
    construct: str
    left: str
    right: str
    cases: int = 0
    witness: Optional[Witness] = None
    reasons: set = field(default_factory=set)

    def count(self, left: "Outcome", right: "Outcome") -> bool:
        """Add one case's outcomes to the cell (the reasons of a side that cannot express it; a case when both are
        ``ok``); True when this is the first case on which they differ (the caller shrinks it into the witness)."""
        for o in (left, right):
            if o.status == "not_expressible":
                self.reasons.add(f"{o.lang}: {o.detail}")
        if not (left.status == right.status == "ok"):
            return False
        self.cases += 1
        return self.witness is None and left.matches != right.matches

    @property
    def verdict(self) -> str:
        """``different``, ``equivalent`` or ``not expressible``."""
        if self.witness is not None:
            return "different"
        return "equivalent" if self.cases else "not expressible"

    def to_json(self) -> dict:
        return {"construct": self.construct, "left": self.left, "right": self.right, "verdict": self.verdict,
                "cases": self.cases, "witness": None if self.witness is None else self.witness.to_json(),
                "not_expressible": sorted(self.reasons)}


@dataclass
class MatrixResult:
    """All cells, the ceplab bugs found on the way (a language's oracle and engine disagreeing), and the run's
    parameters."""
    languages: list[str]
    constructs: list[str]
    cells: list[Cell]
    bugs: list[dict]
    cases: int
    seed: int
    undecided: int = 0

    def to_json(self) -> dict:
        return {"languages": self.languages, "constructs": self.constructs, "cases_per_construct": self.cases,
                "seed": self.seed, "undecided": self.undecided, "bugs": self.bugs,
                "cells": [c.to_json() for c in self.cells]}


#: The matrix's claims (:func:`claims`): ``workbench/matrix/data/expectations.json``.
CLAIMS_FILE = Path(__file__).with_name("data") / "expectations.json"


@lru_cache(maxsize=1)
def claims() -> dict:
    """The comparisons across selections and the expectations of ``CLAIMS_FILE`` (data, so that this shared module
    names no language): ``{"across": [(language, its selection, language, its selection), ..], "expectations":
    [{"claim", "pair", "constructs", "verdict"}, ..]}``.  An *across* comparison pairs readings the literature pairs
    although the core names them differently (skip-till-next against a recent policy, docs/matrix.md#across); it
    runs on the cases of the row ``sel:<first selection>`` with each side's selection put in, as a cell named
    ``<first>~<second>`` (lower case) with its sides in that order."""
    data = json.loads(CLAIMS_FILE.read_text(encoding="utf-8"))
    return {"across": [tuple(a) for a in data["across"]], "expectations": data["expectations"]}


def case_rng(seed: int, construct: str, k: int) -> random.Random:
    """The generator of case ``k`` of ``construct``: seeded by ``(seed, construct, k)`` alone, so any subset of
    the cases can be drawn anywhere (on Spark executors) with the same result."""
    h = hashlib.sha256(f"{seed}/{construct}/{k}".encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def draw_case(seed: int, row: str, k: int) -> tuple[CoreQuery, tuple[CoreEvent, ...]]:
    """Case ``k`` of a matrix row: for a construct (:data:`CONSTRUCTS`) a random core query exercising it
    (:func:`random_query`), for any other row the row itself, a core query text (``ceplab matrix --patterns``);
    and a random stream of 3..8 events.

    Raises:
        ParseError: a row that is neither a construct nor a core query.
    """
    rng = case_rng(seed, row, k)
    q = random_query(rng, row) if row in CONSTRUCTS else parse(row)
    return q, random_stream(rng, rng.randint(3, 8))


def _differ(a: Outcome, b: Outcome) -> bool:
    return a.status == b.status == "ok" and a.matches != b.matches


def shrink(langs: dict, q: CoreQuery, events: tuple[CoreEvent, ...], left: str, right: str,
           limits: Any = None, q_right: Optional[CoreQuery] = None, keep: Optional[str] = None,
           ) -> tuple[CoreQuery, Optional[CoreQuery], tuple[CoreEvent, ...], Outcome, Outcome]:
    """A smaller case on which ``left`` (on ``q``) and ``right`` (on ``q_right`` when given, else on ``q``) are both
    ``ok`` and still differ: simpler patterns first (:func:`ceplab.workbench.matrix.core.smaller_queries`, keeping
    construct ``keep``; ``q_right`` follows ``q``'s pattern with its own selection), then events deleted one at a
    time, to a fixpoint.  Returns ``(q, q_right, events, left outcome, right outcome)``."""
    def run(ql: CoreQuery, qr: Optional[CoreQuery], ev: tuple) -> tuple[Outcome, Outcome]:
        return evaluate(langs[left], ql, ev, limits), evaluate(langs[right], ql if qr is None else qr, ev, limits)

    a, b = run(q, q_right, events)
    progress = True
    while progress:
        progress = False
        for cand in smaller_queries(q, keep):
            cr = None if q_right is None else replace(cand, selection=q_right.selection)
            ca, cb = run(cand, cr, events)
            if _differ(ca, cb):
                q, q_right, a, b, progress = cand, cr, ca, cb, True
                break
        if progress:
            continue
        for i in range(len(events)):
            cand_ev = events[:i] + events[i + 1:]
            ca, cb = run(q, q_right, cand_ev)
            if _differ(ca, cb):
                events, a, b, progress = cand_ev, ca, cb, True
                break
    return q, q_right, events, a, b


def run_matrix(langs: Sequence[Any], constructs: Sequence[str] = CONSTRUCTS, cases: int = 20, seed: int = 0,
               limits: Any = None, progress: Optional[Callable[[str, int], None]] = None,
               outcomes: Optional[Callable[[str, int], dict]] = None) -> MatrixResult:
    """Run the matrix.

    Args:
        langs: languages with a ``translation`` (:class:`ceplab.workbench.language.Language`).
        constructs: the rows: constructs (:data:`ceplab.workbench.matrix.core.CONSTRUCTS`) or core query texts
            (:func:`draw_case`).
        cases: cases per construct.
        seed: the run's seed (:func:`case_rng`).
        limits: the oracles' ``Limits``.
        progress: called with ``(construct, k)`` after each case.
        outcomes: ``(construct, k) -> {lang name: Outcome}`` computed elsewhere (e.g. on Spark); by default each
            case is evaluated here.

    Returns:
        A :class:`MatrixResult`; cells for every construct and every pair, in registry order.
    """
    by_name = {L.name: L for L in langs}
    names = [L.name for L in langs]
    cells = {(c, a, b): Cell(c, a, b) for c in constructs for a, b in combinations(names, 2)}
    bugs: list[dict] = []
    undecided = 0
    for c in constructs:
        for k in range(cases):
            q, events = draw_case(seed, c, k)
            res = outcomes(c, k) if outcomes is not None else {n: evaluate(by_name[n], q, events, limits)
                                                              for n in names}
            for n in names:
                o = res[n]
                if o.status in ("disagree", "error"):
                    bugs.append({"lang": n, "status": o.status, "query": str(q), "stream": stream_text(events),
                                 "translated": o.query, "detail": o.detail})
                undecided += o.status == "undecided"
            for a, b in combinations(names, 2):
                cell = cells[(c, a, b)]
                if cell.count(res[a], res[b]):
                    sq, _, ev, sa, sb = shrink(by_name, q, events, a, b, limits, keep=c if c in CONSTRUCTS else None)
                    cell.witness = Witness(str(sq), stream_text(ev), sa, sb)
            if progress is not None:
                progress(c, k)
    across = []
    for la, sa, lb, sb in claims()["across"]:
        row = f"sel:{sa.lower()}"
        if la not in by_name or lb not in by_name or row not in constructs:
            continue
        cell = Cell(f"{sa.lower()}~{sb.lower()}", la, lb)
        for k in range(cases):
            q, events = draw_case(seed, row, k)
            qa, qb = replace(q, selection=sa), replace(q, selection=sb)
            oa = (outcomes(row, k) if outcomes is not None else {la: evaluate(by_name[la], qa, events, limits)})[la]
            ob = evaluate(by_name[lb], qb, events, limits)
            if cell.count(oa, ob):
                sqa, sqb, ev, wa, wb = shrink(by_name, qa, events, la, lb, limits, qb, keep="seq")
                cell.witness = Witness(str(sqa), stream_text(ev), wa, wb, str(sqb))
        across.append(cell)
    return MatrixResult(names, list(constructs), list(cells.values()) + across, bugs, cases, seed, undecided)


def outcome_to_json(o: Outcome) -> dict:
    """An :class:`Outcome` as JSON (Spark rows); :func:`outcome_from_json` is the inverse."""
    return {"lang": o.lang, "status": o.status, "query": o.query, "switches": [list(s) for s in o.switches],
            "detail": o.detail, "matches": None if o.matches is None else sorted(sorted(m) for m in o.matches)}


def outcome_from_json(d: dict) -> Outcome:
    """Inverse of :func:`outcome_to_json`."""
    m = d["matches"]
    return Outcome(d["lang"], d["status"], None if m is None else frozenset(frozenset(x) for x in m), d["query"],
                   tuple(tuple(s) for s in d["switches"]), d["detail"])


def replay(langs: Iterable[Any], query: str, stream: str, limits: Any = None) -> dict[str, Outcome]:
    """Every language on one core case given as text (``ceplab matrix --query Q --stream S``)."""
    from ceplab.workbench.matrix.core import parse_stream
    q = parse(query, "--query")
    try:
        events = parse_stream(stream)
    except InputError as e:
        raise e.located("--stream") from None
    return {L.name: evaluate(L, q, events, limits) for L in langs}
