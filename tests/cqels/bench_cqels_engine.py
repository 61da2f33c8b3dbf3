"""Throughput of the incremental CQELS-CEP engine (not a test; run by hand):

    python tests/cqels/bench_cqels_engine.py [n ...] [--subjects S] [--range T]

Workload (the issue's target): ``SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o})`` in one ``RANGE T`` window (T = 100),
``n`` atomic elements, one per tick (t = 0 .. n-1), each one triple ``(:x<k> :p :o)`` with ``k`` uniform in
``[0, S)`` and ``p`` uniform in ``pa, pn, pc`` (seeded).  Reports elements/s, time points answered/s (every
``t`` in ``[0, H]``, ``H = n - 1 + T``) and answers/s, for the pushes and the final ``close()`` together; the
stream is built before the clock starts.
"""
from __future__ import annotations

import argparse
import random
import time

from rdflib import Graph, URIRef

from ceplab.engine.cqels import evaluator
from ceplab.semantics.cqels.parser import parse
from ceplab.semantics.rdfstream import StreamElement

EX = "http://example.org/"


def workload(n: int, subjects: int, seed: int = 7) -> list[StreamElement]:
    rng = random.Random(seed)
    preds = [URIRef(EX + p) for p in ("pa", "pn", "pc")]
    xs = [URIRef(f"{EX}x{k}") for k in range(subjects)]
    o, s = URIRef(EX + "o"), URIRef(EX + "s")
    out = []
    for t in range(n):
        g = Graph()
        g.add((rng.choice(xs), rng.choice(preds), o))
        out.append(StreamElement(g, t, t, s, t))
    return out


def bench(n: int, subjects: int, rng_: int) -> dict:
    q = parse(f"PREFIX : <{EX}>\nSELECT ?x FROM NAMED WINDOW :W ON :s [RANGE {rng_}]\n"
              "WHERE { WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o}) } }")
    els = workload(n, subjects)
    ev = evaluator(q)
    answers = 0
    t0 = time.perf_counter()
    for e in els:
        answers += len(ev.push(e))
    answers += len(ev.close())
    dt = time.perf_counter() - t0
    points = n - 1 + rng_ + 1
    return {"n": n, "subjects": subjects, "seconds": dt, "elements/s": n / dt, "points/s": points / dt,
            "answers": answers, "answers/s": answers / dt, "us/element": dt / n * 1e6}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="*", type=int, default=[10_000, 100_000])
    ap.add_argument("--subjects", type=int, nargs="*", default=[100, 10])
    ap.add_argument("--range", type=int, default=100)
    a = ap.parse_args()
    for s in a.subjects:
        for n in a.n:
            r = bench(n, s, a.range)
            print(f"n={r['n']:>7} subjects={r['subjects']:>4}: {r['seconds']:7.2f} s  {r['elements/s']:9.0f} el/s  "
                  f"{r['points/s']:9.0f} t/s  {r['answers']:>9} answers ({r['answers/s']:9.0f}/s)  "
                  f"{r['us/element']:6.1f} us/element")


if __name__ == "__main__":
    main()
