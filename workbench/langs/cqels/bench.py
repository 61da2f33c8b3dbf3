"""``ceplab bench cqels``: throughput of the incremental CQELS-CEP engine (``ceplab.engine.cqels``) on a 3-element
``SEQ`` with a negation (middle, head, tail), window ranges swept, the number of time points answered swept, the
static part's path evaluation as the static graph grows, the bundled weather queries on whole datasets, and the
clingo oracle's time as the stream grows.

Same shape as ``ceplab bench spaseq`` (:mod:`ceplab.workbench.langs.spaseq.bench`, run by
:mod:`ceplab.workbench.bench`): seeded, prefix-stable streams; a timed push pass (CPU time of this thread, best of
repeats per tenth of the stream, :func:`ceplab.workbench.bench.harness.chunk_stats`); oracle rows with the engine's
answers compared; a targets table (reported, never an exit code).

Streams (``:`` = ``http://example.org/``).  Element ``i`` is one triple on the stream ``:s``, atomic, at tick
``i * gap`` (``gap`` ticks between elements, 1 unless swept), position ``i``, drawn in stream order from
``random.Random(f"ceplab-bench-cqels:{seed}:{family}")`` (the stream of length n is a prefix of every longer one):

* family ``sparse`` (the target's stream, as ``tests/cqels/bench_cqels_engine.py``): ``(:x{k} :p :o)`` with ``k``
  uniform in ``0..SUBJECTS-1`` and ``:p`` uniform in ``:pa :pn :pc``;
* family ``dense`` (the oracle test's stream, ``tests/cqels/test_oracle.py``): ``(:x{k} :p :o{m})`` with ``k, m``
  uniform in ``0..4`` and ``:p`` uniform in ``:a :n :c``.

Workloads (one window ``:W ON :s [RANGE T]``, ``T`` in ticks; answers for every ``t`` in ``[0, H]``, ``H = (n - 1) *
gap + T``, docs/semantics/cqels.md#cqels-3.8):

    NEG     SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o})      sparse   SEQ_WO (the target case)
    NEG-G   the same, each element an rdflib Graph of its triple (what the TriG reader gives)
    HEAD    SEQ(!{?x :pn :o}, {?x :pa :o}, {?x :pc :o})      sparse   NO_HEAD: answers appear when the negative expires
    TAIL    SEQ({?x :pa :o}, {?x :pc :o}, !{?x :pn :o})      sparse   NO_TAIL: answers withdrawn by a later negative
    DENSE   SEQ({?x :a ?y}, !{?x :n ?z}, {?x :c ?w})         dense    SELECT *: many answers per time point

Per row (workload, T, gap, n): elements/s (warm: best repeat per tenth; cold: the first repeat, which also counts
the answers), µs/element, time points answered ``H + 1`` and time points/s, answers (one per answer per time
point) and answers/s, the time points with a non-empty answer.  ``close()`` (the snapshots after the last element)
is timed with the last tenth.

Two sweeps of the number of time points answered at ``n`` fixed: ``gap`` in 1, 4, 16, 64 with ``RANGE 100`` (each
element adds ``gap`` time points; the window holds fewer elements as ``gap`` grows, so the snapshots shrink), and
the same gaps with ``RANGE 100 * gap`` ("scaled": the window holds the same elements, every snapshot is as large as
at ``gap = 1`` and there are ``gap`` times more of them, so the output grows ``gap`` times; µs/answer there).

Paths (docs/semantics/cqels.md#cqels-3.4): the running example's query (Example 6, ``tests/cqels/queries/
ex6_running.q``: ``?v rdf:type :subway . ?s (^:beg/[:means :subway]/:end)+ :c`` joined with ``SEQ({?v :delayAt ?s},
{?v :delayAt ?s}, !{?v :arriveAt ?s})``, here in ``RANGE 60``, :data:`PATH_RANGE`; the paper's is 10) on a
generated transport network (:func:`network`) of ``m`` connections ``:k{j} :beg :n{j} ; :end :n{p} ; :means
:subway`` (a tram one time in five) towards a stop ``:n{p}`` with ``p < j`` drawn uniformly (a random recursive
tree rooted at the centre ``:c = :n0``), plus :data:`VEHICLES` vehicles typed ``:subway`` (four in five) or
``:tram``, swept up to 10^5 triples.  Per size: the engine's static part (:class:`ceplab.engine.cqels.static.
StaticPart`, ``sol(P, D)`` computed once per version of D: the path's fixpoint and the join; CPU time, best of
three), the pairs of the ``+`` relation, the static solutions, and the whole query on a stream of delays
(``:v{j} :delayAt :n{k}``, an ``:arriveAt`` one time in ten, ``k`` among the :data:`HOT_STOPS` stops nearest the
centre): elements/s including that evaluation (a fresh evaluator computes it at ``t = 0``, in the first tenth of
the stream) and without it (the median of tenths 2-10).

Real data: the bundled weather queries (``workbench/langs/cqels/data/*.q``, :mod:`.data`, static data
``stations.ttl``) over the whole dataset each one reads (default and full grids) or the bundled slice (quick).

Oracle rows: ``ceplab.asp.cqels.oracle`` on each workload at growing n (limit ``Grid.oracle_seconds``), answers
compared with the engine's (a mismatch is a disagreement: exit code 1, with a reproducer); the path workload on the
two smallest networks; the largest NEG stream (``RANGE 100``) the oracle settles within the time limit (doubling n,
ground-size guard :data:`SEARCH_GROUND`); and the issue's oracle target, 2,000 elements with ``RANGE 100``.

Targets (from the issue; reported PASS/MISS, not enforced): >= 10,000 elements/s on NEG with ``RANGE 100``;
per-element cost flat within +-25% from the smallest to the largest n (NEG, ``RANGE 100``) and in the number of
time points answered (NEG, ``RANGE 100``, gap 1 to 64); the oracle answers 2,000 elements with ``RANGE 100`` for
every t in under 10 s.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Optional, Sequence

from rdflib import RDF, Graph, URIRef

from ceplab.semantics.cqels.options import Options
from ceplab.semantics.rdfstream import StreamElement

from ceplab.workbench.bench import Benchmark
from ceplab.workbench.bench import harness as H
from ceplab.workbench.bench.harness import (FLOOR_TEXT, SEED, STABILITY, agreement, chunk_stats, engine_results,
                                            floor_pass, fmt, record_oracle, repeats_for, report_head,
                                            timed_chunks)

#: the peers this benchmark can run beside ceplab: none
PEERS: tuple[str, ...] = ()

EX = "http://example.org/"
STREAM = URIRef(EX + "s")
SUBJECTS = 100
DENSE_NODES = 5
BLOCK = 1000
#: element lists up to this length are built once and reused by every pass (longer ones are built block by block)
CACHE_ELEMENTS = 20_000
#: vehicles of the generated transport network, and the stops the delays are drawn from
VEHICLES = 20
HOT_STOPS = 50
#: the path workload's window (ticks) and its stream length
PATH_RANGE = 60
PATH_STREAM = 10_000
#: the ground-size limit of the settled-size search (time, not the default ground-size guard, should stop it)
SEARCH_GROUND = 60_000_000
TARGET_EPS = 10_000.0
TARGET_WORKLOAD = "NEG"
TARGET_RANGE = 100
GAPS = (1, 4, 16, 64)
ORACLE_TARGET = (2000, 100, 10.0)   # elements, RANGE, seconds


@dataclass(frozen=True)
class Workload:
    """A benchmark query and its stream.

    Attributes:
        name: ``NEG``, ``HEAD``, ...
        title: one-line description.
        seq: the window's ``SEQ`` pattern.
        family: ``sparse`` or ``dense`` (module docstring).
        graph: each element is an rdflib Graph (else a triple).
        select: the projection.
    """

    name: str
    title: str
    seq: str
    family: str = "sparse"
    graph: bool = False
    select: str = "?x"


WORKLOADS: dict[str, Workload] = {
    "NEG": Workload("NEG", "middle negation, SEQ_WO (SEQ(A, !N, C))",
                    "SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o})"),
    "NEG-G": Workload("NEG-G", "NEG, each element an rdflib Graph", "SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o})",
                      graph=True),
    "HEAD": Workload("HEAD", "head negation, NO_HEAD (SEQ(!N, A, C))", "SEQ(!{?x :pn :o}, {?x :pa :o}, {?x :pc :o})"),
    "TAIL": Workload("TAIL", "tail negation, NO_TAIL (SEQ(A, C, !N))", "SEQ({?x :pa :o}, {?x :pc :o}, !{?x :pn :o})"),
    "DENSE": Workload("DENSE", "middle negation, 5 subjects and objects, SELECT *",
                      "SEQ({?x :a ?y}, !{?x :n ?z}, {?x :c ?w})", family="dense", select="*"),
}
_PREDS = {"sparse": ("pa", "pn", "pc"), "dense": ("a", "n", "c")}


def query_text(wl: str, rng: int) -> str:
    """The CQELS-CEP text of workload ``wl`` with ``RANGE rng`` (ticks)."""
    w = WORKLOADS[wl]
    return (f"PREFIX : <{EX}>\nSELECT {w.select}\nFROM NAMED WINDOW :W ON :s [RANGE {rng}]\n"
            f"WHERE {{ WINDOW :W {{ {w.seq} }} }}\n")


@lru_cache(maxsize=64)
def parse_workload(wl: str, rng: int) -> Any:
    """The parsed query (AST) of workload ``wl`` with ``RANGE rng``."""
    from ceplab.semantics.cqels.parser import parse

    return parse(query_text(wl, rng))


# ----------------------------------------------------------------------------- grid
@dataclass(frozen=True)
class Grid:
    """What one run measures.

    Attributes:
        name: ``quick``, ``default`` or ``full``.
        cells: the (workload, RANGE, gap, n) rows of the push pass.
        path_sizes: static graph sizes (triples, approximately) of the path rows.
        path_stream: elements of the path rows' delay stream.
        real: ``slices`` (the bundled slices) or ``whole`` (the whole datasets).
        oracle_cases: (workload, RANGE, stream lengths) of the oracle rows.
        oracle_paths: network sizes (triples) of the path workload's oracle rows (stream: 100 delays).
        oracle_search: stream lengths tried (doubling) for the largest NEG stream the oracle settles.
        oracle_target: whether to run the issue's 2,000-element, RANGE 100 oracle case.
        oracle_seconds: time limit of one oracle call.
        repeat_elements: the push pass is repeated ``max(2, min(5, repeat_elements // n))`` times.
    """

    name: str
    cells: tuple
    path_sizes: tuple
    path_stream: int
    real: str
    oracle_cases: tuple
    oracle_paths: tuple
    oracle_search: tuple
    oracle_target: bool
    oracle_seconds: float = 60.0
    repeat_elements: int = 100_000

    def repeats(self, n: int) -> int:
        """Timed repeats of a pass over ``n`` elements (:func:`ceplab.workbench.bench.harness.repeats_for`)."""
        return repeats_for(n, self.repeat_elements)


def make_grid(kind: str = "default") -> Grid:
    """The grid called ``kind``.

    * ``quick`` (seconds; the tests): NEG at ``RANGE`` 10 and 100 with n = 1000, at n = 2000, gap 4 (plain and
      scaled); every other workload at ``RANGE 100``, n = 1000; paths on 100 and 1,000 triples (stream 500); the
      bundled real-data slices (one pass each); oracle at n = 100, 200 (limit 30 s), on the 100-triple network;
      search 200, 400.
    * ``default`` (minutes): NEG at ``RANGE`` 10, 30, 100, 300, 1000 with n = 10^4, at n = 10^5, the gap sweeps at
      n = 10^4; the other workloads at ``RANGE 100``, n = 10^4; paths on 10^2 .. 10^5 triples (stream 10^4); the
      whole datasets; oracle at n = 250, 500, 1000 (limit 60 s), on the 100- and 1,000-triple networks; search
      from 1000 doubling to 64,000; the 2,000-element target.
    * ``full``: as default, plus NEG at n = 10^6 and the gap sweep at n = 10^5.

    Raises:
        ValueError: unknown kind.
    """
    others = tuple(wl for wl in WORKLOADS if wl != TARGET_WORKLOAD)
    if kind == "quick":
        cells = (("NEG", 10, 1, 1000), ("NEG", 100, 1, 1000), ("NEG", 100, 1, 2000), ("NEG", 100, 4, 1000),
                 ("NEG", 400, 4, 1000)) + tuple((wl, 100, 1, 1000) for wl in others)
        return Grid(kind, cells, (100, 1000), 500, "slices", tuple((wl, 100, (100, 200)) for wl in WORKLOADS),
                    (100,), (200, 400), False, 30.0, 2000)
    if kind not in ("default", "full"):
        raise ValueError(f"unknown grid {kind!r}; known: quick, default, full")
    big = (100_000, 1_000_000) if kind == "full" else (100_000,)
    gap_ns = (10_000, 100_000) if kind == "full" else (10_000,)
    cells = tuple(("NEG", r, 1, 10_000) for r in (10, 30, 100, 300, 1000)) + tuple(("NEG", 100, 1, n) for n in big)
    for n in gap_ns:
        cells += tuple(("NEG", 100, g, n) for g in GAPS[1:])     # gap 1: the RANGE sweep's and big rows
        cells += tuple(("NEG", 100 * g, g, n) for g in GAPS[1:])
    cells += tuple((wl, 100, 1, 10_000) for wl in others)
    return Grid(kind, cells, (100, 1000, 10_000, 100_000), PATH_STREAM, "whole",
                tuple((wl, 100, (250, 500, 1000)) for wl in WORKLOADS), (100, 1000),
                tuple(1000 * 2 ** i for i in range(7)), True, 60.0, 200_000 if kind == "full" else 100_000)


# ----------------------------------------------------------------------------- streams
_DRAWS: dict[tuple[str, int], list[tuple[int, int, int]]] = {}


def draws(family: str, n: int, seed: int = SEED) -> list[tuple[int, int, int]]:
    """(subject, predicate, object) indices of the first ``n`` elements of a stream family; prefix-stable."""
    key = (family, seed)
    have = _DRAWS.get(key, [])
    if len(have) < n:
        rnd = random.Random(f"ceplab-bench-cqels:{seed}:{family}").random
        if family == "sparse":
            have = [(int(rnd() * SUBJECTS), int(rnd() * 3), 0) for _ in range(n)]
        elif family == "dense":
            have = [(int(rnd() * DENSE_NODES), int(rnd() * 3), int(rnd() * DENSE_NODES)) for _ in range(n)]
        else:
            raise ValueError(f"unknown stream family {family!r}")
        _DRAWS[key] = have
    return have[:n] if len(have) > n else have


@lru_cache(maxsize=2)
def _terms(family: str) -> tuple:
    k = SUBJECTS if family == "sparse" else DENSE_NODES
    objs = (URIRef(EX + "o"),) if family == "sparse" else tuple(URIRef(f"{EX}o{m}") for m in range(DENSE_NODES))
    return (tuple(URIRef(f"{EX}x{i}") for i in range(k)), tuple(URIRef(EX + p) for p in _PREDS[family]), objs)


def make_elements(wl: str, ds: Sequence[tuple[int, int, int]], gap: int = 1, start: int = 0) -> list[StreamElement]:
    """Fresh stream elements for draws ``ds`` (element ``i = start + j`` at tick ``i * gap``; module docstring)."""
    w = WORKLOADS[wl]
    xs, ps, os_ = _terms(w.family)
    out = []
    for j, (k, p, m) in enumerate(ds):
        i = start + j
        tr = (xs[k], ps[p], os_[m])
        if w.graph:
            g = Graph()
            g.add(tr)
            out.append(StreamElement(g, i * gap, i * gap, STREAM, i))
        else:
            out.append(StreamElement(tr, i * gap, i * gap, STREAM, i))
    return out


_ELEMENTS: dict[tuple[str, int, int], list[StreamElement]] = {}


def workload_elements(wl: str, n: int, gap: int = 1, seed: int = SEED) -> list[StreamElement]:
    """The first ``n`` elements of ``wl``'s stream with ``gap`` ticks between elements (lists up to
    :data:`CACHE_ELEMENTS` elements are kept)."""
    key = (wl, gap, seed)
    have = _ELEMENTS.get(key, [])
    if len(have) >= n:
        return have[:n]
    els = make_elements(wl, draws(WORKLOADS[wl].family, n, seed), gap)
    if n <= CACHE_ELEMENTS:
        _ELEMENTS[key] = els
    return els


def blocks(wl: str, n: int, gap: int, seed: int, lo: int = 0, hi: Optional[int] = None):
    """The elements ``lo..hi-1`` in blocks of :data:`BLOCK` (from the cache, or built just before they are fed)."""
    hi = n if hi is None else hi
    if n <= CACHE_ELEMENTS:
        els = workload_elements(wl, n, gap, seed)
        for a in range(lo, hi, BLOCK):
            yield els[a:min(hi, a + BLOCK)]
        return
    ds = draws(WORKLOADS[wl].family, n, seed)
    for a in range(lo, hi, BLOCK):
        yield make_elements(wl, ds[a:min(hi, a + BLOCK)], gap, a)


def horizon(n: int, gap: int, rng: int) -> int:
    """``H`` of a stream of ``n`` elements ``gap`` ticks apart under ``RANGE rng``: the last start plus the range
    (docs/semantics/cqels.md#cqels-3.8)."""
    return (n - 1) * gap + rng


def engine_factory(query: Any, options: Options = Options(), static: Any = None) -> Callable[[], Any]:
    """Zero-argument factory of fresh engine evaluators of ``query`` (an AST) over ``static``."""
    from ceplab.engine.cqels import evaluator

    return lambda: evaluator(query, options, static)


# ----------------------------------------------------------------------------- passes
def timed_run(fac: Callable[[], Any], n: int, feed_blocks: Callable, repeats: int) -> tuple[dict, int, int]:
    """The timed pass shared by the stream rows: ``repeats`` fresh evaluators over the same elements, ``close()``
    timed with the last tenth; the first repeat counts the answers and the distinct time points they have.

    Returns:
        (:func:`ceplab.workbench.bench.harness.chunk_stats` of the runs, answers, non-empty time points).
    """
    clock, cost = H.CPU_CLOCK, H.cpu_clock_cost()
    count = [0]
    points: set = set()

    def closing(ev: Any, tally: bool) -> float:
        t0 = clock()
        out = ev.close()
        spent = max(0.0, clock() - t0 - cost)
        if tally:
            count[0] += len(out)
            points.update(a[0] for a in out)
        return spent

    ev = fac()
    push = ev.push

    def counting(e: StreamElement) -> None:
        out = push(e)
        if out:
            count[0] += len(out)
            points.update(a[0] for a in out)

    first = timed_chunks(counting, n, feed_blocks)
    first[-1] += closing(ev, True)
    runs = [first]
    for _ in range(repeats - 1):
        ev = fac()
        r = timed_chunks(ev.push, n, feed_blocks)
        r[-1] += closing(ev, False)
        runs.append(r)
    return chunk_stats(runs, n), count[0], len(points)


def push_pass(wl: str, rng: int, gap: int, n: int, seed: int, repeats: int) -> dict:
    """The timed push pass of one row (module docstring)."""
    fac = engine_factory(parse_workload(wl, rng))
    c, answers, nonempty = timed_run(fac, n, lambda lo, hi: blocks(wl, n, gap, seed, lo, hi), repeats)
    points = horizon(n, gap, rng) + 1
    secs = c["seconds"]
    return {"seconds": secs, "eps": c["eps"], "us": c["us"], "cold_seconds": c["cold_seconds"],
            "cold_eps": c["cold_eps"], "cold_us": c["cold_us"], "chunk_us": c["chunk_us"], "steady_us": c["steady_us"],
            "drift": c["drift"], "clock": c["clock"], "repeats": c["repeats"], "points": points,
            "points_per_element": points / n, "pps": points / secs if secs > 0 else None, "answers": answers,
            "answers_per_element": answers / n, "aps": answers / secs if secs > 0 else None,
            "us_per_answer": secs / answers * 1e6 if answers else None, "nonempty_points": nonempty}


# ----------------------------------------------------------------------------- paths
PATH_QUERY = f"""PREFIX : <{EX}>
SELECT ?s
FROM :transportationMap
FROM NAMED WINDOW :W ON :publicTransport [RANGE {PATH_RANGE}]
WHERE {{
  WINDOW :W {{ SEQ ({{?v :delayAt ?s}}, {{?v :delayAt ?s}}, !{{?v :arriveAt ?s}}) }}
  ?v rdf:type :subway .
  ?s (^:beg/[:means :subway]/:end)+ :c .
}}
"""
PT_STREAM = URIRef(EX + "publicTransport")


def _stop(j: int) -> URIRef:
    return URIRef(EX + "c") if j == 0 else URIRef(f"{EX}n{j}")


@lru_cache(maxsize=8)
def network(size: int, seed: int = SEED) -> tuple:
    """The generated transport network of about ``size`` triples (module docstring): ``m = max(1, (size -
    VEHICLES) // 3)`` connections and :data:`VEHICLES` typed vehicles; a tuple of rdflib triples."""
    rnd = random.Random(f"ceplab-bench-cqels:{seed}:network")
    beg, end, means = URIRef(EX + "beg"), URIRef(EX + "end"), URIRef(EX + "means")
    subway, tram = URIRef(EX + "subway"), URIRef(EX + "tram")
    out = []
    for j in range(1, connections(size) + 1):
        k = URIRef(f"{EX}k{j}")
        out += [(k, beg, _stop(j)), (k, end, _stop(int(rnd.random() * j))),
                (k, means, tram if rnd.random() < 0.2 else subway)]
    for v in range(VEHICLES):
        out.append((URIRef(f"{EX}v{v}"), RDF.type, tram if v % 5 == 4 else subway))
    return tuple(out)


def connections(size: int) -> int:
    """The number of connections of the network of about ``size`` triples (:func:`network`)."""
    return max(1, (size - VEHICLES) // 3)


def delay_stream(n: int, stops: int = HOT_STOPS, seed: int = SEED) -> list[StreamElement]:
    """The first ``n`` elements of the delay stream (module docstring), element ``i`` at tick ``i`` on
    ``:publicTransport``: ``:v{j} :delayAt :n{k}`` (an ``:arriveAt`` one time in ten), ``j`` uniform among the
    :data:`VEHICLES` vehicles and ``k`` among the first ``stops`` stops (``:n0`` is ``:c``); prefix-stable."""
    rnd = random.Random(f"ceplab-bench-cqels:{seed}:delays:{stops}")
    delay, arrive = URIRef(EX + "delayAt"), URIRef(EX + "arriveAt")
    out = []
    for i in range(n):
        v, k, a = int(rnd.random() * VEHICLES), int(rnd.random() * stops), rnd.random() < 0.1
        out.append(StreamElement((URIRef(f"{EX}v{v}"), arrive if a else delay, _stop(k)), i, i, PT_STREAM, i))
    return out


@lru_cache(maxsize=1)
def path_query() -> Any:
    """The parsed :data:`PATH_QUERY` (the running example's query with ``RANGE 10`` ticks)."""
    from ceplab.semantics.cqels.parser import parse

    return parse(PATH_QUERY)


def path_row(size: int, stream_n: int, seed: int, repeats: int) -> dict:
    """The path evaluation of one network size (module docstring)."""
    from ceplab.engine.cqels.match import Terms
    from ceplab.engine.cqels.static import Graph as SGraph, PathEvaluator, StaticPart
    from ceplab.semantics.cqels import ast as A
    from ceplab.semantics.cqels.streams import StaticData

    q = path_query()
    triples = network(size, seed)
    best = None
    sols = 0
    for _ in range(3):
        t0 = H.CPU_CLOCK()
        sp = StaticPart(q, Options(), Terms())
        sols = len(sp.solutions(triples))
        dt = H.CPU_CLOCK() - t0
        best = dt if best is None else min(best, dt)
    terms = Terms()
    g = SGraph(terms.triple(t) for t in triples)
    (path,) = A.query_paths(q)
    pairs = sum(len(ys) for ys in PathEvaluator(g, terms).rel(path, frozenset(g.voc)).values())
    static = StaticData.constant(triples)
    fac = engine_factory(q, Options(), static)
    els = delay_stream(stream_n, min(HOT_STOPS, connections(size) + 1), seed)
    c, answers, nonempty = timed_run(fac, stream_n, lambda lo, hi: [els[lo:hi]], repeats)
    return {"size": size, "triples": len(triples), "static_seconds": best, "static_ms": best * 1e3,
            "us_per_triple": best / len(triples) * 1e6, "path_pairs": pairs, "solutions": sols,
            "stream_n": stream_n, "eps": c["eps"], "steady_eps": 1e6 / c["steady_us"] if c["steady_us"] else None,
            "cold_eps": c["cold_eps"], "seconds": c["seconds"],
            "cold_seconds": c["cold_seconds"], "answers": answers, "nonempty_points": nonempty, "clock": c["clock"],
            "repeats": c["repeats"]}


# ----------------------------------------------------------------------------- real data
def real_rows(kind: str, repeats_for_n: Callable[[int], int]) -> list[dict]:
    """The bundled weather queries on the engine: over the whole dataset each reads (``kind = "whole"``) or over
    their bundled slice (``"slices"``); elements/s, answers (CPU time of this thread, as the stream rows)."""
    from ceplab.workbench.langs.cqels import data as D
    from ceplab.workbench.langs.cqels.query import parse_query, resolve

    rows = []
    for p in D.query_files():
        text = p.read_text(encoding="utf-8")
        name, first, last = D.stream_spec(text)
        els = D.elements_for_spec(name) if kind == "whole" else D.elements_for_spec(name, first, last)
        cq = resolve(parse_query(text, str(p)), Options())
        fac = engine_factory(cq.query, Options(), cq.static)
        n = len(els)
        c, answers, nonempty = timed_run(fac, n, lambda lo, hi, els=els: [els[lo:hi]], repeats_for_n(n))
        rows.append({"query": p.stem, "stream": name if kind == "whole" else f"{name} {first}..{last}", "n": n,
                     "span": els[-1].start - els[0].start + 1 if els else 0, "eps": c["eps"],
                     "cold_eps": c["cold_eps"], "us": c["us"], "answers": answers, "nonempty_points": nonempty,
                     "clock": c["clock"], "repeats": c["repeats"]})
    return rows


# ----------------------------------------------------------------------------- oracle
def reproducer(wl: str, rng: int, n: int, seed: int) -> str:
    """Python code recomputing an oracle row (engine vs oracle) from scratch."""
    return ("from ceplab.workbench.langs.cqels import bench as BE; from ceplab.asp.cqels import oracle; "
            "from ceplab.engine.cqels import run; "
            f"q = BE.parse_workload({wl!r}, {rng}); s = BE.workload_elements({wl!r}, {n}, seed={seed}); "
            "print(sorted(map(str, set(run(q, s)) ^ set(oracle(q, s).results))))")


def _oracle_call(row: dict, query: Any, els: list, static: Any, fac: Callable[[], Any], seconds: float,
                 compare: bool, ground: Optional[int]) -> Optional[Any]:
    """One oracle call (wall time) recorded in ``row``, its answers compared with the engine's; returns the
    engine's answers when compared and they disagree (else None)."""
    from ceplab.asp.cqels import oracle
    from ceplab.asp.oracle import Limits

    t0 = time.perf_counter()
    try:
        limits = Limits(time_s=seconds) if ground is None else Limits(time_s=seconds, max_ground_size=ground)
        res = oracle(query, els, Options(), limits, static=static)
    except Exception as e:  # an oracle failure is reported (not a disagreement)
        row.update(status="error", reason=f"{type(e).__name__}: {e}", seconds=time.perf_counter() - t0)
        return None
    row["seconds"] = time.perf_counter() - t0
    results = record_oracle(row, res)
    if results is None or not compare:
        return None
    eng = engine_results(fac, els)
    row.update(agreement(eng, results))
    if not row["agree"]:
        row["missing_in_engine"] = sorted(map(str, set(results) - set(eng)))[:5]
        row["extra_in_engine"] = sorted(map(str, set(eng) - set(results)))[:5]
        return eng
    return None


def oracle_row(wl: str, rng: int, n: int, seed: int, seconds: float, compare: bool = True,
               ground: Optional[int] = None) -> dict:
    """One oracle call on the first ``n`` elements of ``wl`` with ``RANGE rng`` (wall time), its answers compared
    with the engine's (``ground``: the ground-size limit, None = :class:`ceplab.asp.oracle.Limits`' default)."""
    row: dict[str, Any] = {"workload": wl, "range": rng, "n": n, "limit_seconds": seconds}
    q = parse_workload(wl, rng)
    els = workload_elements(wl, n, 1, seed)
    if _oracle_call(row, q, els, None, engine_factory(q), seconds, compare, ground) is not None:
        row["reproducer"] = reproducer(wl, rng, n, seed)
    return row


def oracle_path_row(size: int, n: int, seed: int, seconds: float) -> dict:
    """The path workload on the network of ``size`` triples and ``n`` delays, oracle against engine."""
    from ceplab.semantics.cqels.streams import StaticData

    row: dict[str, Any] = {"workload": f"PATH ({size:,} triples)", "range": PATH_RANGE, "n": n,
                           "limit_seconds": seconds}
    static = StaticData.constant(network(size, seed))
    q = path_query()
    stops = min(HOT_STOPS, connections(size) + 1)
    if _oracle_call(row, q, delay_stream(n, stops, seed), static, engine_factory(q, Options(), static), seconds,
                    True, None) is not None:
        row["reproducer"] = ("from ceplab.workbench.langs.cqels import bench as BE; from ceplab.asp.cqels import "
                             "oracle; from ceplab.engine.cqels import run; from ceplab.semantics.cqels.streams import "
                             f"StaticData; d = StaticData.constant(BE.network({size}, {seed})); q = BE.path_query(); "
                             f"s = BE.delay_stream({n}, {stops}, {seed}); "
                             "print(sorted(map(str, set(run(q, s, static=d)) ^ set(oracle(q, s, static=d).results))))")
    return row


def oracle_pass(grid: Grid, seed: int, note: Callable[[str], None]) -> dict:
    """Oracle rows per workload (stopping at the first undecided n), the path rows, the settled-size search and
    the target case."""
    rows = []
    for wl, r, ns in grid.oracle_cases:
        given_up = None
        for n in ns:
            if given_up:
                rows.append({"workload": wl, "range": r, "n": n, "status": "skipped", "reason": given_up})
                continue
            note(f"oracle {wl} n={n}")
            row = oracle_row(wl, r, n, seed, grid.oracle_seconds)
            rows.append(row)
            if row["status"] != "decided":
                given_up = f"n={n} was {row['status']}"
    for size in grid.oracle_paths:
        note(f"oracle PATH {size:,} triples")
        rows.append(oracle_path_row(size, 100, seed, grid.oracle_seconds))
    search = []
    for n in grid.oracle_search:
        note(f"oracle search {TARGET_WORKLOAD} n={n:,}")
        r = oracle_row(TARGET_WORKLOAD, TARGET_RANGE, n, seed, grid.oracle_seconds, compare=False,
                       ground=SEARCH_GROUND)
        search.append(r)
        if r["status"] != "decided":
            break
    settled = [r for r in search if r["status"] == "decided"]
    out = {"rows": rows, "search": search, "largest_settled": settled[-1]["n"] if settled else None,
           "largest_settled_seconds": settled[-1]["seconds"] if settled else None, "target": None}
    if grid.oracle_target:
        n, r, _secs = ORACLE_TARGET
        note(f"oracle target n={n:,} RANGE {r}")
        out["target"] = oracle_row(TARGET_WORKLOAD, r, n, seed, grid.oracle_seconds)
    return out


# ----------------------------------------------------------------------------- targets
def targets(report: dict) -> list[dict]:
    """Verdicts on the issue's targets from the measured rows."""
    out: list[dict] = []
    rows = [r for r in report["rows"] if r.get("eps")]
    tg = [r for r in rows if r["workload"] == TARGET_WORKLOAD and r["range"] == TARGET_RANGE]
    for r in tg:
        if r["gap"] == 1:
            out.append({"target": f"throughput >= {TARGET_EPS:,.0f} elements/s", "case": r["workload"],
                        "where": f"RANGE {r['range']} n={r['n']:,}", "value": r["eps"], "kind": "eps",
                        "ok": r["eps"] >= TARGET_EPS, "detail": f"{r['pps']:,.0f} time points/s"})
    by_n = sorted((r["n"], r["us"]) for r in tg if r["gap"] == 1)
    for n, us in by_n[1:]:
        rat = us / by_n[0][1]
        out.append({"target": f"per-element cost flat in n (+-{STABILITY:.0%})", "case": TARGET_WORKLOAD,
                    "where": f"RANGE {TARGET_RANGE} n={n:,} vs n={by_n[0][0]:,}", "value": rat, "kind": "ratio",
                    "ok": abs(rat - 1) <= STABILITY, "detail": f"{us:.2f} vs {by_n[0][1]:.2f} µs/element"})
    for n in sorted({r["n"] for r in tg}):
        base = [r for r in tg if r["n"] == n and r["gap"] == 1]
        if not base:
            continue
        for r in sorted((r for r in tg if r["n"] == n and r["gap"] > 1), key=lambda r: r["gap"]):
            rat = r["us"] / base[0]["us"]
            out.append({"target": f"per-element cost flat in time points answered (+-{STABILITY:.0%})",
                        "case": TARGET_WORKLOAD, "where": f"RANGE {TARGET_RANGE} n={n:,} gap {r['gap']} vs 1",
                        "value": rat, "kind": "ratio", "ok": abs(rat - 1) <= STABILITY,
                        "detail": f"{r['points_per_element']:.1f} vs {base[0]['points_per_element']:.2f} time points "
                                  f"per element; {r['us']:.2f} vs {base[0]['us']:.2f} µs/element"})
    for n in sorted({r["n"] for r in rows if r["workload"] == TARGET_WORKLOAD}):
        sc = sorted((r for r in rows if r["workload"] == TARGET_WORKLOAD and r["n"] == n
                     and r["range"] == TARGET_RANGE * r["gap"] and r.get("us_per_answer")), key=lambda r: r["gap"])
        if len(sc) > 1:
            rat = sc[-1]["us_per_answer"] / sc[0]["us_per_answer"]
            out.append({"target": "cost per answer, scaled RANGE (info)", "case": TARGET_WORKLOAD,
                        "where": f"n={n:,} gap {sc[-1]['gap']} vs {sc[0]['gap']}", "value": rat, "kind": "ratio",
                        "ok": None, "detail": f"{sc[-1]['us_per_answer']:.3f} vs {sc[0]['us_per_answer']:.3f} "
                                              f"µs/answer; {sc[-1]['us']:.1f} vs {sc[0]['us']:.1f} µs/element"})
    t = report["oracle"].get("target")
    if t:
        n, r, secs = ORACLE_TARGET
        ok = t.get("status") == "decided" and t["seconds"] < secs
        out.append({"target": f"oracle: {n:,} elements, RANGE {r}, every t < {secs:.0f} s", "case": TARGET_WORKLOAD,
                    "where": f"n={n:,} RANGE {r}", "value": t.get("seconds"), "kind": "ratio", "ok": ok,
                    "detail": f"{t.get('status')}; {t.get('results', '-')} answers"})
    orc = report["oracle"]
    if orc.get("largest_settled"):
        last = orc["search"][-1]["status"]
        out.append({"target": f"largest stream the oracle settles in {report['oracle_seconds']:.0f} s (info)",
                    "case": TARGET_WORKLOAD, "where": f"RANGE {TARGET_RANGE}", "value": orc["largest_settled"],
                    "kind": "int", "ok": None,
                    "detail": f"{orc['largest_settled_seconds']:.1f} s; next size: "
                              + (last if last != "decided" else "not tried")})
    if report["paths"]:
        p = report["paths"][-1]
        out.append({"target": "path evaluation, largest static graph (info, ms)", "case": "PATH",
                    "where": f"{p['triples']:,} triples", "value": p["static_ms"], "kind": "ratio", "ok": None,
                    "detail": f"{p['path_pairs']:,} path pairs, {p['solutions']:,} static solutions"})
    return out


# ----------------------------------------------------------------------------- the run
def bench_cqels(grid: Grid, seed: int = SEED, peer: Optional[str] = None,
                progress: Optional[Callable[[str], None]] = None) -> dict:
    """Run the CQELS-CEP benchmark on ``grid``; returns the report (the ``--json`` object).

    Keys: ``bench`` ("cqels"), ``grid``, ``seed``, ``python``, ``machine``, ``workload`` (queries, streams),
    ``rows`` (one per (workload, RANGE, gap, n)), ``floor``, ``paths``, ``real``, ``oracle`` (``rows``, ``search``,
    ``largest_settled``, ``target``), ``oracle_seconds``, ``targets``, ``disagreements``.

    Raises:
        ValueError: ``peer`` is not None.
    """
    if peer is not None:
        raise ValueError(f"the CQELS-CEP benchmark has no peer, got {peer!r}")
    note = progress or (lambda s: None)
    report: dict[str, Any] = {
        **report_head("cqels", grid.name, seed),
        "workload": {"subjects": SUBJECTS, "dense_nodes": DENSE_NODES, "vehicles": VEHICLES, "hot_stops": HOT_STOPS,
                     "time": "element i at tick i * gap, one triple each, atomic",
                     "queries": {k: {"title": w.title, "text": query_text(k, TARGET_RANGE), "family": w.family}
                                 for k, w in WORKLOADS.items()},
                     "path_query": PATH_QUERY},
        "oracle_seconds": grid.oracle_seconds,
    }
    rows = []
    for i, (wl, r, gap, n) in enumerate(grid.cells, 1):
        note(f"[{i}/{len(grid.cells)}] {wl} RANGE {r} gap {gap} n={n:,}")
        row: dict[str, Any] = {"workload": wl, "range": r, "gap": gap, "n": n}
        t0 = time.perf_counter()
        try:
            row.update(push_pass(wl, r, gap, n, seed, grid.repeats(n)))
        except Exception as e:
            row["skipped"] = f"engine failed: {type(e).__name__}: {e}"
        row["bench_seconds"] = time.perf_counter() - t0
        rows.append(row)
    report["rows"] = rows
    note("floor")
    report["floor"] = [dict(floor_pass(n, lambda lo, hi, n=n: blocks("NEG", n, 1, seed, lo, hi), grid.repeats(n)),
                            elements="NEG") for n in sorted({c[3] for c in grid.cells}) if n <= CACHE_ELEMENTS]
    fl = {f["n"]: f for f in report["floor"]}
    for r in rows:
        if r.get("us") and fl.get(r["n"], {}).get("us"):
            r["x_floor"] = r["us"] / fl[r["n"]]["us"]
    report["paths"] = []
    for size in grid.path_sizes:
        note(f"paths {size:,} triples")
        report["paths"].append(path_row(size, grid.path_stream, seed, grid.repeats(grid.path_stream)))
    note("real data")
    report["real"] = real_rows(grid.real, (lambda n: 1) if grid.name == "quick" else grid.repeats)
    note("oracle")
    report["oracle"] = oracle_pass(grid, seed, note)
    report["targets"] = targets(report)
    report["disagreements"] = [
        f"oracle and engine disagree on {o['workload']} RANGE {o['range']} n={o['n']}: {o['results']} vs "
        f"{o['engine_results']} answers; reproducer: {o.get('reproducer')}"
        for o in report["oracle"]["rows"] + [report["oracle"]["target"] or {}] if o.get("agree") is False]
    return report


# ----------------------------------------------------------------------------- printing
def render(report: dict, console: Any) -> None:
    """Print the report as rich tables on ``console``."""
    from rich.table import Table

    console.print(f"[bold]ceplab bench cqels[/bold]  grid={report['grid']}  seed={report['seed']}  "
                  f"{report['python']}  {report['machine']}")
    wk = report["workload"]
    for k, q in wk["queries"].items():
        console.print(f"  {k}: {q['title']}; {q['family']} stream", markup=False, highlight=False)
    console.print(f"  streams: one triple per element on :s, {wk['time']}; sparse: subjects :x0..:x"
                  f"{wk['subjects'] - 1}, predicates :pa :pn :pc; dense: :x0..:x{wk['dense_nodes'] - 1} x "
                  f":a :n :c x :o0..:o{wk['dense_nodes'] - 1}", markup=False, highlight=False)
    t = Table(title="CQELS-CEP engine: push throughput per workload, RANGE and gap (CPU time of the feeding thread; "
                    "every t in [0, H] answered)")
    for col in ("workload", "RANGE", "gap", "n", "cold el/s", "warm el/s", "µs/element", "steady µs", "x floor",
                "drift", "time points", "points/el", "points/s", "answers", "answers/el", "answers/s", "µs/answer",
                "non-empty t"):
        t.add_column(col, justify="left" if col == "workload" else "right", no_wrap=True)
    for r in report["rows"]:
        if "skipped" in r:
            t.add_row(r["workload"], str(r["range"]), str(r["gap"]), fmt(r["n"], "int"), r["skipped"], *[""] * 13)
            continue
        t.add_row(r["workload"], str(r["range"]), str(r["gap"]), fmt(r["n"], "int"), fmt(r["cold_eps"], "eps"),
                  fmt(r["eps"], "eps"), fmt(r["us"], "us"), fmt(r["steady_us"], "us"), fmt(r.get("x_floor"), "ratio"),
                  fmt(r["drift"], "ratio"), fmt(r["points"], "int"), fmt(r["points_per_element"], "ratio"),
                  fmt(r["pps"], "eps"), fmt(r["answers"], "int"), fmt(r["answers_per_element"], "ratio"),
                  fmt(r["aps"], "eps"), fmt(r["us_per_answer"], "us"), fmt(r["nonempty_points"], "int"))
    for f in report.get("floor", []):
        t.add_row("floor", "-", "-", fmt(f["n"], "int"), fmt(f["cold_eps"], "eps"), fmt(f["eps"], "eps"),
                  fmt(f["us"], "us"), "", "1.00", *[""] * 9)
    console.print(t)
    console.print("warm: the fastest run per tenth of the stream, summed; cold: the first run (which also counts the "
                  "answers); close() is timed with the last tenth. time points: H + 1 = (n - 1) * gap + RANGE + 1, "
                  "every one answered (most with the empty set when gap is large); answers: one per answer per time "
                  "point. Rows with RANGE = 100 * gap hold the same elements per window as gap 1 and emit gap times "
                  f"more answers. {FLOOR_TEXT}.", markup=False, highlight=False)
    pt = Table(title="Paths: the running example's static part (?v a :subway . ?s (^:beg/[:means :subway]/:end)+ :c) "
                     "on a generated network; CPU time")
    for col in ("triples", "static ms (best of 3)", "µs/triple", "path pairs", "static solutions", "stream n",
                "cold el/s", "warm el/s", "steady el/s", "answers"):
        pt.add_column(col, justify="right", no_wrap=True)
    for p in report["paths"]:
        pt.add_row(fmt(p["triples"], "int"), f"{p['static_ms']:.1f}", fmt(p["us_per_triple"], "us"),
                   fmt(p["path_pairs"], "int"), fmt(p["solutions"], "int"), fmt(p["stream_n"], "int"),
                   fmt(p["cold_eps"], "eps"), fmt(p["eps"], "eps"), fmt(p["steady_eps"], "eps"),
                   fmt(p["answers"], "int"))
    console.print(pt)
    console.print("static: sol(P, D) once per version of D (the path's fixpoint over the strongly connected "
                  "components, the join with ?v a :subway); cold and warm el/s include it (each repeat is a fresh "
                  "evaluator, which computes it at t = 0), steady el/s (median of tenths 2-10) does not. Stream: "
                  f"delays of {wk['vehicles']} "
                  f"vehicles at the {wk['hot_stops']} stops nearest the centre, an arrival one time in ten, "
                  f"RANGE {PATH_RANGE}.", markup=False, highlight=False)
    rt = Table(title="Bundled weather queries (workbench/langs/cqels/data/*.q, static data stations.ttl) on the "
                     "engine; CPU time")
    for col in ("query", "stream", "elements", "ticks", "cold el/s", "warm el/s", "µs/element", "answers",
                "non-empty t"):
        rt.add_column(col, justify="left" if col in ("query", "stream") else "right", no_wrap=True)
    for r in report["real"]:
        rt.add_row(r["query"], r["stream"], fmt(r["n"], "int"), fmt(r["span"], "int"), fmt(r["cold_eps"], "eps"),
                   fmt(r["eps"], "eps"), fmt(r["us"], "us"), fmt(r["answers"], "int"), fmt(r["nonempty_points"], "int"))
    console.print(rt)
    ot = Table(title="Oracle (ceplab.asp.cqels, clingo) as the stream grows (wall time of one run each, every t)")
    for col in ("workload", "RANGE", "n", "status", "seconds", "ground rules", "atoms", "answers", "engine answers",
                "agree"):
        ot.add_column(col, justify="left" if col in ("workload", "status") else "right")
    orc = report["oracle"]
    for o in orc["rows"] + [dict(r, workload=f"{r['workload']} (search)") for r in orc["search"]] + (
            [dict(orc["target"], workload=f"{orc['target']['workload']} (target)")] if orc.get("target") else []):
        status = o["status"]
        if status in ("undecided", "error", "skipped"):
            status = f"{status.upper()} ({o.get('reason', '')})"
        agree = "-" if "agree" not in o else ("yes" if o["agree"] else "[red]NO[/red]")
        ot.add_row(o["workload"], str(o["range"]), fmt(o["n"], "int"), status,
                   f"{o['seconds']:.2f}" if "seconds" in o else "-", fmt(o.get("ground_rules") or None, "int"),
                   fmt(o.get("atoms"), "int"), fmt(o.get("results"), "int"), fmt(o.get("engine_results"), "int"),
                   agree)
    console.print(ot)
    H.render_targets(report, console)
    H.render_footer(report, console, "answer")


def _measure(grid: Grid, seed: int, peer: Optional[str], note: Callable[[str], None]) -> dict:
    return bench_cqels(grid, seed, peer, note)


#: the CQELS-CEP benchmark, for ``ceplab bench cqels``
BENCHMARK = Benchmark(name="cqels", peers=PEERS, make_grid=make_grid, measure=_measure, render=render)


__all__ = ["BENCHMARK", "Grid", "WORKLOADS", "bench_cqels", "make_grid", "network", "delay_stream", "query_text",
           "workload_elements"]
