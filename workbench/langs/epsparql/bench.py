"""``ceplab bench epsparql``: throughput of the incremental EP-SPARQL engine (``ceplab.engine.epsparql``), and the clingo
oracle's time as the stream grows.

Same shape as ``ceplab bench etalis`` (:mod:`ceplab.workbench.langs.etalis.bench`, run by :mod:`ceplab.workbench.bench`): seeded, prefix-stable workloads; a timed
push pass (best of repeats per tenth of the stream, CPU time of this thread); a memory pass (``tracemalloc``);
oracle rows as the stream grows, with the engine's results compared to the oracle's; a targets table (reported,
never an exit code).

Streams. Occurrence ``i`` is the triple ``:c{k} :P "v"^^xsd:integer`` with ``k`` uniform in ``0..SUBJECTS-1``,
``v`` uniform in ``0..VALUES-1`` and ``:P`` uniform over the workload's stream predicates, at the point interval
``[t, t]`` with ``t = i`` (one occurrence per tick) or ``t = i // 2`` (two per tick), position ``i``. Draws are
made in stream order from ``random.Random(f"ceplab-bench-epsparql:{seed}:{stream}")`` so the stream of length n
is a prefix of every longer one (the same seed gives the same occurrences, hence the same result counts).

Workloads (``PREFIX : <http://example.org/>``; ``D`` the duration bound, :data:`DURATION`):

    S2     SELECT ?c WHERE {?c :p ?x} SEQ {?c :p ?y} FILTER(getDURATION() < D)
    S3     the same with 3 patterns (the issue's target case)
    S5     the same with 5 patterns
    S3x2   S3 on a stream with two occurrences per tick
    NEG    {?c :p ?x} SEQ {?c :p ?y} EQUALSOPTIONAL {{?c :p ?x} SEQ {?c :p ?m} SEQ {?c :p ?y}}
           FILTER(!BOUND(?m) && getDURATION() < D)          (docs/semantics/epsparql.md's E5 negation idiom: consecutive prices)
    CON    CONSTRUCT {?c :q ?y} WHERE {?c :p ?x} SEQ {?c :p ?y} FILTER(?y > ?x && getDURATION() < D)
           SELECT ?c WHERE {?c :q ?a} SEQ {?c :q ?b} FILTER(?b > ?a && getDURATION() < D)   (a CONSTRUCT chain)
    S3R    S3 with RDFS: the stream uses :p1 and :p2 (ontology :p2 rdfs:subPropertyOf :p1 rdfs:subPropertyOf :p;
           the ontology also holds a subclass chain :Sub rdfs:subClassOf :Mid rdfs:subClassOf :Company and the
           static graph ``:c{k} a :Sub``, which the query does not ask for: they only size the closure).
    CONR   CON with RDFS: the stream uses :p1/:p2, and the derived :q is a subproperty of :r, which the SELECT asks.

E13 scaled up (the paper's Test 2, section 6; docs/semantics/epsparql.md#epsparql-E13), a section of its own (``e13`` in the JSON): a synthetic
class tree (:func:`class_tree`) of 40,080 subclasses of ``:Tracheobionta`` on 8 levels (quick grid: 600), a
stream ``:plant{i} a C`` with ``C`` a random leaf (one in ten ``:Fungi``, outside the tree), and ``SELECT ?x WHERE
{ ?x a :Tracheobionta }`` answered through RDFS.  Reported: the time of the RDFS closure of the ontology (computed
once, by owlrl, memoised for every later evaluator), the evaluator's build time with the closure cached, the
engine's push throughput per stream length (and its answers against the expected count), and the oracle's time
on short streams, its results compared with the engine's.

The RDFS workloads need ``background=`` on ``ceplab.engine.epsparql.evaluator`` (and on ``ceplab.asp.epsparql.oracle`` for their
oracle rows), detected with :func:`inspect.signature`; without it their rows say "n/a (no background support)".

Per row (workload, n), with a fresh evaluator per pass:

1. push: ``evaluator.push(occ)`` on every occurrence, occurrences built :data:`BLOCK` at a time just before they
   are fed, CPU time of this thread per block; repeated ``Grid.repeats(n)`` times, each tenth keeping its fastest
   time. ``tps`` (triples/s) is n over the sum; ``steady_us`` the median per-triple time over tenths 2..10,
   ``drift`` late/early.
2. memory: ``tracemalloc`` while a fresh evaluator is fed the whole stream (occurrences built beforehand):
   ``peak_kib``, ``retained_kib`` after a full collection; the same pass counts the results (``push`` plus
   ``close``) and samples ``stats()["stored"]`` every :data:`SAMPLE` triples (``stored``, ``stored_max``).

Cold and warm: the push pass (and E13's) runs ``Grid.repeats(n)`` times; *cold* is the first run, *warm* keeps the
fastest run per tenth of the stream (both shown side by side; the target uses warm).  Floor rows: S3's streams
through the push pass's loop calling a no-op function (:func:`ceplab.workbench.bench.harness.floor_pass`).

Oracle rows: ``ceplab.asp.epsparql.oracle`` on every workload at growing n (limit ``Grid.oracle_seconds``); once a
workload is undecided its longer streams are skipped. The engine's results on the same stream are compared as
sets: a mismatch is a disagreement (exit code 1), with a reproducer in the JSON row.

Target (from the issue; reported PASS/MISS, not enforced): >= 20,000 triples/s on a 3-pattern SEQ with a duration
filter (S3, every n); S3x2 (two triples per tick, so twice the triples in every duration window) is shown beside
it as information.
"""
from __future__ import annotations

import inspect
import random
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Optional, Sequence

from rdflib import RDF, RDFS, XSD, Graph, Literal, Namespace

from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.results import canonical_term
from ceplab.semantics.epsparql.streams import Background, Occurrence

from ceplab.workbench.bench import Benchmark
from ceplab.workbench.bench import harness as H
from ceplab.workbench.bench.harness import (FLOOR_TEXT, SEED, agreement, chunk_stats, engine_results, floor_pass,
                                            fmt, record_oracle, repeats_for, report_head, timed_chunks,
                                            traced_goal_run)

#: the peers this benchmark can run beside ceplab: none
PEERS: tuple[str, ...] = ()

EX = Namespace("http://example.org/")
PREFIX = "PREFIX : <http://example.org/>\n"
SUBJECTS = 4
VALUES = 100
DURATION = 10
BLOCK = 1000
SAMPLE = 100
TARGET_TPS = 20_000.0
TARGET_WORKLOADS = ("S3",)
#: reported beside the target, as information: the same query with twice the triples in every duration window
INFO_WORKLOADS = ("S3x2", "S3E")
NO_BACKGROUND = "n/a (no background support)"

_D = f"getDURATION() < {DURATION}"


@dataclass(frozen=True)
class Workload:
    """A benchmark query set and its stream.

    Attributes:
        name: ``S2``, ``S3``, ...
        title: one-line description.
        text: the query set (EP-SPARQL text, with :data:`PREFIX`).
        preds: the stream predicates (local names in :data:`EX`).
        per_tick: occurrences per tick (1 or 2).
        rdfs: whether it needs background knowledge (:func:`background`).
        backend: ``native`` (:func:`ceplab.engine.epsparql.evaluator`) or ``etalis`` (the query compiled to ETALIS
            rules and run on the ETALIS engine, :class:`ceplab.engine.epsparql.etalis_backend.EtalisBackedEvaluator`).
    """

    name: str
    title: str
    text: str
    preds: tuple[str, ...] = ("p",)
    per_tick: int = 1
    rdfs: bool = False
    backend: str = "native"

    @property
    def stream(self) -> str:
        """The name of the stream (workloads with the same predicates and rate share it)."""
        return f"{'+'.join(self.preds)}/{self.per_tick}"


def _seq(k: int, pred: str = ":p", extra: str = "") -> str:
    vs = "xyzuvw"[:k] if k <= 6 else [f"x{i}" for i in range(k)]
    return " SEQ ".join(f"{{ ?c {pred} ?{v}{extra} }}" for v in vs)


_S3 = f"SELECT ?c WHERE {_seq(3)} FILTER({_D})"
_CON = (f"CONSTRUCT {{ ?c :q ?y }} WHERE {{ ?c :p ?x }} SEQ {{ ?c :p ?y }} FILTER(?y > ?x && {_D})\n"
        f"SELECT ?c WHERE {{ ?c {{Q}} ?a }} SEQ {{ ?c {{Q}} ?b }} FILTER(?b > ?a && {_D})")
WORKLOADS: dict[str, Workload] = {
    "S2": Workload("S2", "SEQ of 2 patterns, duration filter", PREFIX + f"SELECT ?c WHERE {_seq(2)} FILTER({_D})"),
    "S3": Workload("S3", "SEQ of 3 patterns, duration filter", PREFIX + _S3),
    "S5": Workload("S5", "SEQ of 5 patterns, duration filter", PREFIX + f"SELECT ?c WHERE {_seq(5)} FILTER({_D})"),
    "S3x2": Workload("S3x2", "S3, two triples per tick", PREFIX + _S3, per_tick=2),
    "S3E": Workload("S3E", "S3 compiled to ETALIS rules, on the ETALIS engine", PREFIX + _S3, backend="etalis"),
    "NEG": Workload("NEG", "EQUALSOPTIONAL negation (consecutive values)", PREFIX + (
        "SELECT ?c ?x ?y WHERE { { ?c :p ?x } SEQ { ?c :p ?y } } EQUALSOPTIONAL "
        f"{{ {{ ?c :p ?x }} SEQ {{ ?c :p ?m }} SEQ {{ ?c :p ?y }} }} FILTER(!BOUND(?m) && {_D})")),
    "CON": Workload("CON", "CONSTRUCT chain (derived :q feeds a SEQ)", PREFIX + _CON.replace("{Q}", ":q")),
    "S3R": Workload("S3R", "S3 with RDFS (the stream uses subproperties of :p)", PREFIX + _S3,
                    preds=("p1", "p2"), rdfs=True),
    "CONR": Workload("CONR", "CON with RDFS (subproperties in the stream and on the derived triple)",
                     PREFIX + _CON.replace("{Q}", ":r"), preds=("p1", "p2"), rdfs=True),
}
PLAIN = ("S2", "S3", "S5", "S3x2", "S3E", "NEG", "CON")
WITH_RDFS = ("S3R", "CONR")


def ontology() -> Graph:
    """The RDFS ontology of the RDFS workloads: ``:p2 ⊑ :p1 ⊑ :p``, ``:q ⊑ :r``, ``:Sub ⊑ :Mid ⊑ :Company``."""
    g = Graph()
    g.add((EX.p2, RDFS.subPropertyOf, EX.p1))
    g.add((EX.p1, RDFS.subPropertyOf, EX.p))
    g.add((EX.q, RDFS.subPropertyOf, EX.r))
    g.add((EX.Sub, RDFS.subClassOf, EX.Mid))
    g.add((EX.Mid, RDFS.subClassOf, EX.Company))
    return g


def static_graph() -> Graph:
    """The static data of the RDFS workloads: every subject ``:c{k}`` is a ``:Sub``."""
    g = Graph()
    for k in range(SUBJECTS):
        g.add((EX[f"c{k}"], RDF.type, EX.Sub))
    return g


def background() -> Background:
    return Background(static_graph(), ontology())


def _short(triple) -> str:
    """``s p o`` with ``:`` for :data:`EX`, ``rdfs:`` and ``a``."""
    out = []
    for t in triple:
        x = str(t)
        if t == RDF.type:
            out.append("a")
        elif x.startswith(str(EX)):
            out.append(":" + x[len(str(EX)):])
        elif x.startswith(str(RDFS)):
            out.append("rdfs:" + x[len(str(RDFS)):])
        else:
            out.append(t.n3())
    return " ".join(out)


def background_support() -> dict[str, bool]:
    """Whether ``ceplab.engine.epsparql.evaluator`` and ``ceplab.asp.epsparql.oracle`` accept ``background=``."""
    from ceplab.asp.epsparql import oracle
    from ceplab.engine.epsparql import evaluator
    return {key: "background" in inspect.signature(f).parameters
            for key, f in (("engine", evaluator), ("oracle", oracle))}


# ----------------------------------------------------------------------------- grid
@dataclass(frozen=True)
class Grid:
    """What one run measures.

    Attributes:
        name: ``quick``, ``default`` or ``full``.
        cells: the (workload, n) rows.
        oracle_cases: (workload, stream lengths) per oracle case.
        oracle_seconds: time limit of one oracle call.
        repeat_events: the push pass is repeated ``max(2, min(5, repeat_events // n))`` times.
        e13_classes: subclasses of the root in the E13 class tree (:func:`class_tree`, depth :data:`E13_DEPTH`).
        e13_ns: E13 stream lengths (engine); ``e13_oracle_ns``: the E13 stream lengths the oracle runs.
    """

    name: str
    cells: tuple[tuple[str, int], ...]
    oracle_cases: tuple[tuple[str, tuple[int, ...]], ...]
    oracle_seconds: float = 60.0
    repeat_events: int = 100_000
    e13_classes: int = 40_080
    e13_ns: tuple[int, ...] = (10_000, 50_000)
    e13_oracle_ns: tuple[int, ...] = (10, 100)

    def repeats(self, n: int) -> int:
        """Timed repeats of a pass over ``n`` events (:func:`ceplab.workbench.bench.harness.repeats_for`)."""
        return repeats_for(n, self.repeat_events)


def make_grid(kind: str = "default") -> Grid:
    """The grid called ``kind``.

    * ``quick`` (seconds; the tests): every workload at n = 300, 1000; oracle at n = 20, 40 (S5: 20); E13 on a
      tree of :data:`E13_QUICK_CLASSES` classes at n = 300, 1000, oracle n = 10.
    * ``default`` (a few minutes): n = 10^4,
      5·10^4; oracle at n = 200, 1000, 2000 (linear in n since docs/semantics/epsparql.md#epsparql-9.5); E13 on :data:`E13_CLASSES` classes at n = 10^4,
      5·10^4, oracle n = 10, 100.
    * ``full``: n = 10^4, 10^5, 10^6; oracle up to n = 32,000; E13 at n = 10^4, 10^5, 10^6, oracle n = 10,
      100, 1000.

    Raises:
        ValueError: unknown kind.
    """
    if kind == "quick":
        ns, on, o5, secs, rep = (300, 1000), (20, 40), (20,), 30.0, 2000
        e13 = (E13_QUICK_CLASSES, (300, 1000), (10,))
    elif kind == "default":
        ns, on, o5, secs, rep = (10_000, 50_000), (200, 1000, 2000), (200, 1000, 2000), 60.0, 100_000
        e13 = (E13_CLASSES, (10_000, 50_000), (10, 100))
    elif kind == "full":
        ns, on, o5, secs, rep = ((10_000, 100_000, 1_000_000), (200, 1000, 2000, 8000, 32_000),
                                 (200, 1000, 2000, 8000, 32_000), 120.0, 200_000)
        e13 = (E13_CLASSES, (10_000, 100_000, 1_000_000), (10, 100, 1000))
    else:
        raise ValueError(f"unknown grid {kind!r}; known: quick, default, full")
    cells = tuple((wl, n) for wl in WORKLOADS for n in ns)
    ocases = tuple((wl, o5 if wl == "S5" else on) for wl in WORKLOADS)
    return Grid(kind, cells, ocases, oracle_seconds=secs, repeat_events=rep, e13_classes=e13[0], e13_ns=e13[1],
                e13_oracle_ns=e13[2])


# ----------------------------------------------------------------------------- workload
_DRAWS: dict[tuple[str, int], list[tuple[int, int, int]]] = {}


def workload_draws(wl: str, n: int, seed: int = SEED) -> list[tuple[int, int, int]]:
    """(subject, predicate index, value) of the first ``n`` occurrences of ``wl``'s stream; prefix-stable."""
    w = WORKLOADS[wl]
    key = (w.stream, seed)
    have = _DRAWS.get(key, [])
    if len(have) < n:
        rng = random.Random(f"ceplab-bench-epsparql:{seed}:{w.stream}")
        rnd, k = rng.random, len(w.preds)
        have = [(int(rnd() * SUBJECTS), int(rnd() * k) if k > 1 else 0, int(rnd() * VALUES)) for _ in range(n)]
        _DRAWS[key] = have
    return have[:n] if len(have) > n else have


@lru_cache(maxsize=None)
def _terms(preds: tuple[str, ...]) -> tuple[tuple, tuple, tuple]:
    subs = tuple(EX[f"c{k}"] for k in range(SUBJECTS))
    ps = tuple(EX[p] for p in preds)
    vals = tuple(canonical_term(Literal(str(v), datatype=XSD.integer)) for v in range(VALUES))
    return subs, ps, vals


def make_occurrences(wl: str, draws: Sequence[tuple[int, int, int]], start: int = 0) -> list[Occurrence]:
    """Fresh occurrences for ``draws``: occurrence ``i = start + j`` at tick ``i // per_tick``, position ``i``."""
    w = WORKLOADS[wl]
    subs, ps, vals = _terms(w.preds)
    pt = w.per_tick
    return [Occurrence(subs[s], ps[p], vals[v], i // pt, i // pt, i)
            for i, (s, p, v) in zip(range(start, start + len(draws)), draws)]


def workload_stream(wl: str, n: int, seed: int = SEED) -> list[Occurrence]:
    """The first ``n`` occurrences of workload ``wl``'s stream."""
    return make_occurrences(wl, workload_draws(wl, n, seed))


def blocks(wl: str, draws: Sequence, lo: int = 0, hi: Optional[int] = None):
    hi = len(draws) if hi is None else hi
    for a in range(lo, hi, BLOCK):
        b = min(hi, a + BLOCK)
        yield make_occurrences(wl, draws[a:b], a)


@lru_cache(maxsize=64)
def parse_workload(wl: str):
    from ceplab.semantics.epsparql.parser import parse
    return parse(WORKLOADS[wl].text)


def engine_factory(wl: str) -> Callable[[], Any]:
    """Zero-argument factory of fresh evaluators (raises ImportError without ``ceplab.engine.epsparql``; for an RDFS
    workload, passes ``background=`` and so needs :func:`background_support`)."""
    from ceplab.engine.epsparql import evaluator
    qs = parse_workload(wl)
    opts = Options()
    if WORKLOADS[wl].backend == "etalis":
        from ceplab.engine.epsparql.etalis_backend import EtalisBackedEvaluator
        return lambda: EtalisBackedEvaluator(qs, opts)
    if WORKLOADS[wl].rdfs:
        bg = background()
        return lambda: evaluator(qs, opts, background=bg)
    return lambda: evaluator(qs, opts)


# ----------------------------------------------------------------------------- passes
def _timed_pass(wl: str, factory: Callable[[], Any], draws: Sequence) -> tuple[list[float], str]:
    ev = factory()
    times = timed_chunks(ev.push, len(draws), lambda lo, hi: blocks(wl, draws, lo, hi))
    ev.close()
    return times, str(getattr(ev, "path", "?"))


def push_pass(wl: str, factory: Callable[[], Any], draws: Sequence, repeats: int) -> dict:
    """Pass 1: push throughput in triples/s (best of ``repeats`` per tenth of the stream,
    :func:`ceplab.workbench.bench.harness.chunk_stats`)."""
    passes = [_timed_pass(wl, factory, draws) for _ in range(repeats)]
    c = chunk_stats([t for t, _p in passes], len(draws))
    return {"seconds": c["seconds"], "tps": c["eps"], "us": c["us"], "cold_seconds": c["cold_seconds"],
            "cold_tps": c["cold_eps"], "cold_us": c["cold_us"], "clock": c["clock"], "chunk_us": c["chunk_us"],
            "steady_us": c["steady_us"], "drift": c["drift"], "path": passes[-1][1], "repeats": repeats}


def memory_pass(wl: str, factory: Callable[[], Any], draws: Sequence) -> dict:
    """Pass 2: tracemalloc peak/retained KiB, result count, stored entries (end and max)."""
    occs = make_occurrences(wl, draws)

    def feed(ev: Any) -> tuple[int, int]:
        push, stats = ev.push, ev.stats
        results = stored_max = 0
        for i, o in enumerate(occs, 1):
            results += len(push(o))
            if i % SAMPLE == 0:
                stored_max = max(stored_max, stats().get("stored") or 0)
        return results, stored_max

    return traced_goal_run(factory, feed)


# ----------------------------------------------------------------------------- oracle
def reproducer(wl: str, n: int, seed: int) -> str:
    """Python code recomputing an oracle row (engine vs oracle) from scratch."""
    bg = ", background=BE.background()" if WORKLOADS[wl].rdfs else ""
    return ("from ceplab.workbench.langs.epsparql import bench as BE; from ceplab.semantics.epsparql.options import Options; "
            "from ceplab.asp.epsparql import oracle; from ceplab.engine.epsparql import evaluator; "
            f"q = BE.parse_workload({wl!r}); s = BE.workload_stream({wl!r}, {n}, seed={seed}); "
            f"ours = evaluator(q, Options(){bg}).run(s); theirs = oracle(q, s, Options(){bg}).results; "
            "print(sorted(map(str, set(ours) ^ set(theirs))))")


def oracle_pass(grid: Grid, seed: int, support: dict,
                note: Callable[[str], None] = lambda s: None) -> list[dict]:
    """Oracle rows (see the module docstring)."""
    from ceplab.asp import epsparql as asp_eps
    from ceplab.asp.oracle import Limits
    limits = Limits(time_s=grid.oracle_seconds)
    rows = []
    for wl, ns in grid.oracle_cases:
        rdfs = WORKLOADS[wl].rdfs
        given_up: Optional[str] = None
        for n in ns:
            row: dict[str, Any] = {"workload": wl, "n": n, "limit_seconds": grid.oracle_seconds}
            if rdfs and not support.get("oracle"):
                row.update(status="n/a", reason=NO_BACKGROUND)
                rows.append(row)
                continue
            if given_up:
                row.update(status="skipped", reason=given_up)
                rows.append(row)
                continue
            note(f"oracle {wl} n={n}")
            qs = parse_workload(wl)
            occs = workload_stream(wl, n, seed)
            kw = {"background": background()} if rdfs else {}
            t0 = time.perf_counter()
            try:
                res = asp_eps.oracle(qs, occs, Options(), limits, **kw)
            except Exception as e:  # an oracle failure is reported (not a disagreement)
                row.update(status="error", reason=f"{type(e).__name__}: {e}", seconds=time.perf_counter() - t0)
                rows.append(row)
                given_up = f"n={n} failed"
                continue
            row["seconds"] = time.perf_counter() - t0
            results = record_oracle(row, res)
            if results is None:
                given_up = f"n={n} was undecided"
                rows.append(row)
                continue
            if not (rdfs and not support.get("engine")):
                try:
                    eng = engine_results(engine_factory(wl), occs)
                except Exception as e:
                    row["engine_error"] = f"{type(e).__name__}: {e}"
                else:
                    row.update(agreement(eng, results))
                    if not row["agree"]:
                        row["missing_in_engine"] = sorted(map(str, set(results) - set(eng)))[:5]
                        row["extra_in_engine"] = sorted(map(str, set(eng) - set(results)))[:5]
                        row["engine_duplicates"] = len(eng) - len(set(eng))
                        row["reproducer"] = reproducer(wl, n, seed)
            rows.append(row)
    return rows


# ----------------------------------------------------------------------------- targets
def targets(rows: list[dict]) -> list[dict]:
    """Verdicts on the issue's target from the measured rows."""
    out: list[dict] = []
    for r in rows:
        if r["workload"] in TARGET_WORKLOADS + INFO_WORKLOADS and r.get("tps"):
            info = r["workload"] in INFO_WORKLOADS
            out.append({"target": f"throughput >= {TARGET_TPS:,.0f} triples/s" + (" (info)" if info else ""),
                        "case": r["workload"], "where": f"n={r['n']:,}", "value": r["tps"], "kind": "eps",
                        "ok": None if info else r["tps"] >= TARGET_TPS, "detail": WORKLOADS[r["workload"]].title})
    return out


# ----------------------------------------------------------------------------- E13 scaled up (paper Test 2)
#: The paper's Test 2 (section 6): 40,080 subclasses of Tracheobionta, maximal depth 8.
E13_CLASSES = 40_080
E13_QUICK_CLASSES = 600
E13_DEPTH = 8
#: One stream triple in :data:`E13_OTHER` types its subject with a class outside the tree (no answer).
E13_OTHER = 10
E13_ROOT = "Tracheobionta"
E13_QUERY = PREFIX + f"SELECT ?x WHERE {{ ?x a :{E13_ROOT} }}"


def _level_sizes(n_classes: int, depth: int) -> list[int]:
    """Classes per level 1..depth: geometric (branching ``b`` with ``sum b^d`` = ``n_classes``), the deepest
    level taking the rounding so that the sizes add up to ``n_classes`` exactly."""
    if n_classes < depth:
        raise ValueError(f"a class tree of depth {depth} needs at least {depth} classes, got {n_classes}")
    lo, hi = 1.0, float(n_classes)
    for _ in range(100):
        b = (lo + hi) / 2
        if sum(b ** d for d in range(1, depth + 1)) < n_classes:
            lo = b
        else:
            hi = b
    sizes = [max(1, round(lo ** d)) for d in range(1, depth + 1)]
    for d in range(1, depth):
        sizes[d] = max(sizes[d], sizes[d - 1])
    sizes[-1] += n_classes - sum(sizes)
    return sizes


@lru_cache(maxsize=4)
def class_tree(n_classes: int = E13_CLASSES, depth: int = E13_DEPTH) -> tuple[Graph, tuple]:
    """The synthetic hierarchy of E13 / Test 2: ``n_classes`` subclasses of ``:Tracheobionta`` on ``depth``
    levels (``:C{d}_{i}``; the parent of class ``i`` of level ``d`` is class ``i * |level d-1| // |level d|``
    of level ``d-1``), plus ``:Fungi rdfs:subClassOf :Eukaryota`` (outside the tree).  Returns the ontology and
    the leaves (level ``depth``)."""
    g = Graph()
    prev = [EX[E13_ROOT]]
    for d, size in enumerate(_level_sizes(n_classes, depth), start=1):
        cur = [EX[f"C{d}_{i}"] for i in range(size)]
        for i, c in enumerate(cur):
            g.add((c, RDFS.subClassOf, prev[i * len(prev) // size]))
        prev = cur
    g.add((EX.Fungi, RDFS.subClassOf, EX.Eukaryota))
    return g, tuple(prev)


def e13_stream(n: int, n_classes: int = E13_CLASSES, seed: int = SEED, start: int = 0) -> list[Occurrence]:
    """Occurrences ``start..start+n-1`` of the E13 stream: occurrence ``i`` is ``:plant{i} rdf:type C`` at ``[i,
    i]`` with ``C`` a leaf of :func:`class_tree` drawn uniformly (``:Fungi`` for one in :data:`E13_OTHER`); draw
    ``i`` depends only on ``(seed, i)``, so streams are prefix-stable."""
    _g, leaves = class_tree(n_classes)
    out = []
    for i in range(start, start + n):
        rng = random.Random(f"ceplab-bench-epsparql-e13:{seed}:{i}")
        c = EX.Fungi if rng.random() * E13_OTHER < 1 else leaves[rng.randrange(len(leaves))]
        out.append(Occurrence(EX[f"plant{i}"], RDF.type, c, i, i, i))
    return out


def e13_reproducer(n_classes: int, n: int, seed: int) -> str:
    """Python code recomputing an E13 oracle row (engine vs oracle) from scratch."""
    return ("from ceplab.workbench.langs.epsparql import bench as BE; from ceplab.semantics.epsparql.options import Options; "
            "from ceplab.semantics.epsparql.parser import parse; from ceplab.semantics.epsparql.streams import Background; "
            "from ceplab.asp.epsparql import oracle; from ceplab.engine.epsparql import evaluator; "
            f"q = parse(BE.E13_QUERY); bg = Background(ontology=BE.class_tree({n_classes})[0]); "
            f"s = BE.e13_stream({n}, {n_classes}, seed={seed}); ours = evaluator(q, Options(), background=bg).run(s); "
            "theirs = oracle(q, s, Options(), background=bg).results; print(sorted(map(str, set(ours) ^ set(theirs))))")


def _e13_triples(onto: Graph) -> frozenset:
    return frozenset((s, p, canonical_term(o)) for s, p, o in onto)


def e13_pass(grid: Grid, seed: int, support: dict, note: Callable[[str], None] = lambda s: None) -> dict:
    """E13 scaled up: the closure of the class tree (computed once, through the engine's memoised
    ``cached_rdfs_closure``), the engine's push throughput at ``grid.e13_ns`` (``SELECT ?x WHERE { ?x a
    :Tracheobionta }``, evaluator built outside the timing) and the oracle's time at ``grid.e13_oracle_ns``, its
    results compared with the engine's."""
    k = grid.e13_classes
    out: dict[str, Any] = {"classes": k, "depth": E13_DEPTH, "query": E13_QUERY, "rows": [], "oracle": []}
    if not support.get("engine"):
        out["skipped"] = NO_BACKGROUND
        return out
    from ceplab.engine.epsparql import evaluator
    from ceplab.engine.epsparql.evaluate import cached_rdfs_closure
    from ceplab.semantics.epsparql.parser import parse
    note(f"E13: class tree of {k:,} classes")
    onto, leaves = class_tree(k)
    out.update(levels=_level_sizes(k, E13_DEPTH), leaves=len(leaves), ontology_triples=len(onto))
    triples = _e13_triples(onto)
    cached_rdfs_closure.cache_clear()
    t0 = time.perf_counter()
    closure = cached_rdfs_closure(triples)
    out["closure_seconds"] = time.perf_counter() - t0
    out["closure_triples"] = len(closure)
    bg = Background(ontology=onto)
    qs = parse(E13_QUERY)
    opts = Options()
    t0 = time.perf_counter()
    evaluator(qs, opts, background=bg)
    out["build_seconds"] = time.perf_counter() - t0          # closure cached: loading the static schema
    factory = lambda: evaluator(qs, opts, background=bg)      # noqa: E731
    for n in grid.e13_ns:
        note(f"E13 n={n:,}")
        row: dict[str, Any] = {"n": n}
        runs = []
        for _ in range(grid.repeats(n)):
            ev = factory()
            runs.append(timed_chunks(ev.push, n, lambda lo, hi: (e13_stream(min(hi, b + BLOCK) - b, k, seed, b)
                                                                 for b in range(lo, hi, BLOCK))))
            ev.close()
        c = chunk_stats(runs, n)
        row.update(seconds=c["seconds"], tps=c["eps"], us=c["us"], cold_seconds=c["cold_seconds"],
                   cold_tps=c["cold_eps"], cold_us=c["cold_us"], clock=c["clock"], repeats=c["repeats"],
                   path=str(getattr(ev, "path", "?")))
        occs = e13_stream(n, k, seed)
        row["results"] = len(engine_results(factory, occs))
        row["expected"] = sum(1 for o in occs if o.o != EX.Fungi)   # every leaf is a Tracheobionta
        out["rows"].append(row)
    if not support.get("oracle"):
        out["oracle"] = [{"n": n, "status": "n/a", "reason": NO_BACKGROUND} for n in grid.e13_oracle_ns]
        return out
    from ceplab.asp import epsparql as asp_eps
    from ceplab.asp.oracle import Limits

    limits = Limits(time_s=grid.oracle_seconds)
    for n in grid.e13_oracle_ns:
        note(f"E13 oracle n={n}")
        occs = e13_stream(n, k, seed)
        row = {"n": n, "limit_seconds": grid.oracle_seconds}
        t0 = time.perf_counter()
        try:
            res = asp_eps.oracle(qs, occs, opts, limits, background=bg)
        except Exception as e:  # reported, not a disagreement
            row.update(status="error", reason=f"{type(e).__name__}: {e}", seconds=time.perf_counter() - t0)
            out["oracle"].append(row)
            break
        row["seconds"] = time.perf_counter() - t0
        results = record_oracle(row, res)
        if results is None:
            out["oracle"].append(row)
            break
        row.update(agreement(engine_results(factory, occs), results))
        out["oracle"].append(row)
    return out


# ----------------------------------------------------------------------------- the run
def bench_epsparql(grid: Grid, seed: int = SEED, peer: Optional[str] = None,
                   progress: Optional[Callable[[str], None]] = None) -> dict:
    """Run the EP-SPARQL benchmark on ``grid``; returns the report (the ``--json`` object).

    Args:
        grid: from :func:`make_grid`.
        seed: workload seed.
        peer: must be None (there is no peer; :data:`PEERS` is empty).
        progress: called with a short text before each step.

    Keys: ``bench`` ("epsparql"), ``grid``, ``seed``, ``python``, ``machine``, ``workload``, ``background``
    (``engine``/``oracle``: whether ``background=`` is accepted), ``memory_method``, ``rows`` (one per
    (workload, n); warm ``tps``/``us``, cold ``cold_tps``/``cold_us``), ``floor`` (one per n), ``oracle``,
    ``e13``, ``targets``, ``disagreements``.

    Raises:
        ValueError: ``peer`` is not None.
    """
    if peer is not None:
        raise ValueError(f"the EP-SPARQL benchmark has no peer, got {peer!r}")
    note = progress or (lambda s: None)
    support = background_support()
    report: dict[str, Any] = {
        **report_head("epsparql", grid.name, seed),
        "workload": {"subjects": SUBJECTS, "values": VALUES, "duration": DURATION,
                     "time": "occurrence i on [t, t], t = i // per_tick",
                     "queries": {k: {"title": w.title, "text": w.text, "preds": list(w.preds),
                                     "per_tick": w.per_tick, "rdfs": w.rdfs} for k, w in WORKLOADS.items()},
                     "ontology": sorted(_short(t) for t in ontology()),
                     "static": sorted(_short(t) for t in static_graph())},
        "background": support,
        "memory_method": ("tracemalloc, while the evaluator is built and fed the whole stream (occurrences "
                          "allocated beforehand): peak, and kept = live after close() and a full collection"),
    }
    rows = []
    for i, (wl, n) in enumerate(grid.cells, 1):
        note(f"[{i}/{len(grid.cells)}] {wl} n={n:,}")
        w = WORKLOADS[wl]
        row: dict[str, Any] = {"workload": wl, "n": n, "rdfs": w.rdfs, "per_tick": w.per_tick}
        if w.rdfs and not support["engine"]:
            row["skipped"] = NO_BACKGROUND
            rows.append(row)
            continue
        draws = workload_draws(wl, n, seed)
        t0 = time.perf_counter()
        try:
            fac = engine_factory(wl)
            row.update(push_pass(wl, fac, draws, grid.repeats(n)))
            row.update(memory_pass(wl, fac, draws))
        except Exception as e:
            row["skipped"] = f"engine failed: {type(e).__name__}: {e}"
        row["bench_seconds"] = time.perf_counter() - t0
        rows.append(row)
    report["rows"] = rows
    note("floor")
    report["floor"] = []
    for n in sorted({n for _wl, n in grid.cells}):
        draws = workload_draws("S3", n, seed)
        report["floor"].append(dict(floor_pass(n, lambda lo, hi, d=draws: blocks("S3", d, lo, hi), grid.repeats(n)),
                                    events="S3"))
    fl = {f["n"]: f for f in report["floor"]}
    for r in rows:
        if r.get("us") and fl.get(r["n"], {}).get("us"):
            r["x_floor"] = r["us"] / fl[r["n"]]["us"]
    report["oracle"] = oracle_pass(grid, seed, support, note)
    report["e13"] = e13_pass(grid, seed, support, note)
    report["targets"] = targets(rows)
    report["disagreements"] = [
        f"oracle and engine disagree on {o['workload']} n={o['n']}: {o['results']} vs {o['engine_results']} results;"
        f" reproducer: {o['reproducer']}" for o in report["oracle"] if o.get("agree") is False]
    report["disagreements"] += [
        f"oracle and engine disagree on E13 ({grid.e13_classes:,} classes) n={o['n']}: {o['results']} vs "
        f"{o['engine_results']} results; reproducer: {e13_reproducer(grid.e13_classes, o['n'], seed)}"
        for o in report["e13"]["oracle"] if o.get("agree") is False]
    report["disagreements"] += [
        f"E13 ({grid.e13_classes:,} classes) n={r['n']}: the engine answers {r['results']} of the "
        f"{r['expected']} Tracheobionta triples" for r in report["e13"]["rows"] if r["results"] != r["expected"]]
    return report


# ----------------------------------------------------------------------------- printing
def _e13_oracle_cells(o: dict) -> tuple[str, str, str]:
    if not o:
        return "-", "-", "-"
    if o.get("status") != "decided":
        return f"{o.get('status', '').upper()} ({o.get('reason', '')})", "-", "-"
    return (f"{o['seconds']:.2f}", fmt(o["results"], "int"),
            "yes" if o.get("agree") else "[red]NO[/red]")


def render(report: dict, console: Any) -> None:
    """Print the report as rich tables on ``console``."""
    from rich.table import Table
    console.print(f"[bold]ceplab bench epsparql[/bold]  grid={report['grid']}  seed={report['seed']}  "
                  f"{report['python']}  {report['machine']}")
    wk = report["workload"]
    for k, q in wk["queries"].items():
        console.print(f"  {k} ({q['title']}; stream {'/'.join(q['preds'])}, {q['per_tick']}/tick): "
                      + " ".join(q["text"].split("\n")[1:]), markup=False, highlight=False)
    console.print(f"  stream: :c0..:c{wk['subjects'] - 1} P \"v\"^^xsd:integer, v uniform in 0..{wk['values'] - 1}; "
                  f"RDFS ontology: {'; '.join(wk['ontology'])}; background= accepted by engine: "
                  f"{report['background']['engine']}, oracle: {report['background']['oracle']}",
                  markup=False, highlight=False)
    t = Table(title="EP-SPARQL engine: push throughput per workload (CPU time of the feeding thread)")
    for col in ("workload", "RDFS", "n", "cold triples/s", "warm triples/s", "cold µs/triple", "warm µs/triple",
                "steady µs", "x floor", "drift", "results", "stored", "stored max", "peak KiB", "kept KiB"):
        t.add_column(col, justify="left" if col in ("workload", "RDFS") else "right", no_wrap=True)
    for r in report["rows"]:
        rd = "yes" if r["rdfs"] else "no"
        if "skipped" in r:
            t.add_row(r["workload"], rd, fmt(r["n"], "int"), r["skipped"], *[""] * 11)
            continue
        t.add_row(r["workload"], rd, fmt(r["n"], "int"), fmt(r.get("cold_tps"), "eps"), fmt(r["tps"], "eps"),
                  fmt(r.get("cold_us"), "us"), fmt(r["us"], "us"), fmt(r["steady_us"], "us"),
                  fmt(r.get("x_floor"), "ratio"), fmt(r["drift"], "ratio"), fmt(r["results"], "int"),
                  fmt(r["stored"], "int"), fmt(r["stored_max"], "int"), fmt(r["peak_kib"], "kib"),
                  fmt(r["retained_kib"], "kib"))
    for f in report.get("floor", []):
        t.add_row("floor", "-", fmt(f["n"], "int"), fmt(f["cold_eps"], "eps"), fmt(f["eps"], "eps"),
                  fmt(f["cold_us"], "us"), fmt(f["us"], "us"), "", "1.00", *[""] * 6)
    console.print(t)
    console.print(f"cold: the first timed run; warm: the fastest run per tenth of the stream, summed. "
                  f"{FLOOR_TEXT} ({', '.join(sorted({f['events'] for f in report.get('floor', [])}))} events).",
                  markup=False, highlight=False)
    ot = Table(title="Oracle (ceplab.asp.epsparql, clingo) as the stream grows (wall time of one run each)")
    for col in ("workload", "n", "status", "seconds", "ground rules", "atoms", "results", "engine results",
                "agree"):
        ot.add_column(col, justify="left" if col in ("workload", "status") else "right")
    for o in report["oracle"]:
        status = o["status"]
        if status in ("undecided", "error"):
            status = f"{status.upper()} ({o.get('reason', '')})"
        elif status in ("n/a", "skipped"):
            status = o.get("reason", status)
        agree = "-" if "agree" not in o else ("yes" if o["agree"] else "[red]NO[/red]")
        if "engine_error" in o:
            agree = f"engine failed: {o['engine_error']}"
        ot.add_row(o["workload"], fmt(o["n"], "int"), status, f"{o['seconds']:.2f}" if "seconds" in o else "-",
                   fmt(o.get("ground_rules") or None, "int"), fmt(o.get("atoms"), "int"),
                   fmt(o.get("results"), "int"), fmt(o.get("engine_results"), "int"), agree)
    console.print(ot)
    e13 = report.get("e13")
    if e13:
        head = (f"E13 scaled up (paper Test 2): SELECT ?x WHERE {{ ?x a :{E13_ROOT} }} over a class tree of "
                f"{e13['classes']:,} subclasses, depth {e13['depth']}")
        if "skipped" in e13:
            console.print(f"{head}: {e13['skipped']}", markup=False, highlight=False)
        else:
            console.print(f"{head} (levels {e13['levels']}); stream :plant{{i}} a <random leaf> (1 in {E13_OTHER} "
                          f":Fungi); RDFS closure computed once: {e13['closure_triples']:,} triples in "
                          f"{e13['closure_seconds']:.2f} s (owlrl); evaluator build with the closure cached "
                          f"{e13['build_seconds']:.2f} s", markup=False, highlight=False)
            et = Table(title="E13 scaled up: engine push throughput (CPU time of the feeding thread) and oracle time "
                             "(wall time of one run)")
            for col in ("n", "cold triples/s", "warm triples/s", "cold µs/triple", "warm µs/triple", "results",
                        "expected", "oracle s", "oracle results", "agree"):
                et.add_column(col, justify="right")
            orc = {o["n"]: o for o in e13["oracle"]}
            for r in e13["rows"]:
                o = orc.pop(r["n"], {})
                et.add_row(fmt(r["n"], "int"), fmt(r.get("cold_tps"), "eps"), fmt(r["tps"], "eps"),
                           fmt(r.get("cold_us"), "us"), fmt(r["us"], "us"), fmt(r["results"], "int"),
                           fmt(r["expected"], "int"), *_e13_oracle_cells(o))
            for n, o in orc.items():
                et.add_row(fmt(n, "int"), "-", "-", "-", "-", "-", "-", *_e13_oracle_cells(o))
            console.print(et)
    H.render_targets(report, console)
    H.render_footer(report, console)


def _measure(grid: Grid, seed: int, peer: Optional[str], note: Callable[[str], None]) -> dict:
    return bench_epsparql(grid, seed, peer, note)


#: the EP-SPARQL benchmark, for ``ceplab bench epsparql``
BENCHMARK = Benchmark(name="epsparql", peers=PEERS, make_grid=make_grid, measure=_measure, render=render)
