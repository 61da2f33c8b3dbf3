"""What the seeded CQELS-CEP fuzz generator draws (``ceplab fuzz cqels``, workbench/langs/cqels/generators.py): every
value of every closed switch, and the stream shapes under which the boundaries of SEQ_WO, NO_HEAD and NO_TAIL, the
``<``/``<=`` boundary of FILTER comparisons and ``bgp_scope=join`` change answers (docs/semantics/cqels.md#cqels-3.2,
#cqels-3.6, #cqels-opt-wo_bounds, #cqels-opt-bgp_scope), so that a generator change that stops drawing them fails
here rather than silently weakening the campaign."""
from __future__ import annotations

from collections import Counter

import pytest
from rdflib import Literal, Variable

from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import Options
from ceplab.workbench.coverage import case_features, switch_values, tally
from ceplab.workbench.langs.cqels import LANGUAGE as L
from ceplab.workbench.spark import case_rng

N = 200


@pytest.fixture(scope="module")
def drawn():
    """The first ``N`` cases of the default campaign (seed 0, length 6), parsed."""
    out = []
    for i in range(N):
        text, stream, options = L.random_case(case_rng(0, "cqels", i), 6)
        out.append((L.parse(text), stream, options))
    return out


def test_every_closed_switch_value_is_drawn(drawn):
    counts = tally(Options, (case_features(L, q, s, o) for q, s, o in drawn))
    rare = {k: counts[k] for k in switch_values(Options) if counts[k] < 10}
    assert not rare, rare


def _bgps(q: A.Query):
    for w in q.windows:
        items = [w.pattern] if isinstance(w.pattern, A.BGP) else list(w.pattern.items)
        for it in items:
            yield (it.item if isinstance(it, A.Neg) else it), isinstance(it, A.Neg), w


def _matches_triple(tp: A.TriplePattern, triple: tuple) -> bool:
    return all(isinstance(x, Variable) or x == y for x, y in zip((tp.s, tp.p, tp.o), triple))


def test_boundary_shapes_are_drawn(drawn):
    c: Counter = Counter()
    for cq, stream, options in drawn:
        q = cq.query
        triples = [(e, t) for e in stream for t in (e.content if isinstance(e.content, tuple) else list(e.content))]
        # a negated SEQ item matched by an element that starts when another element of the same stream ends
        for bgp, neg, w in _bgps(q):
            if not neg or not isinstance(w.pattern, A.SeqTSP):
                continue
            hits = [e for e, t in triples if e.stream == w.stream and _matches_triple(bgp.triples[0], t)]
            if any(o.end == h.start and o is not h and o.stream == w.stream for h in hits for o in stream):
                c["negative-at-boundary"] += 1
                c["negative-at-boundary-strict"] += options.wo_bounds == "strict"
                break
        # a FILTER comparison of a variable with a constant, and an element carrying exactly that constant
        for bgp, _neg, _w in _bgps(q):
            consts = {x.term for f in bgp.filters for x in (getattr(f, "left", None), getattr(f, "right", None))
                      if isinstance(x, A.Const) and isinstance(x.term, Literal)}
            if consts and any(t[2] in consts for _e, t in triples):
                c["filter-equal-value"] += 1
                break
        # bgp_scope=join and a BGP of two triple patterns whose triples sit in two different elements
        if options.bgp_scope == "join":
            for bgp, _neg, _w in _bgps(q):
                if len(bgp.triples) > 1:
                    holders = [{id(e) for e, t in triples if _matches_triple(tp, t)} for tp in bgp.triples]
                    if all(holders) and not set.intersection(*holders):
                        c["join-split"] += 1
                        break
        c["long"] += len(stream) >= 40
    for key, least in (("negative-at-boundary", 16), ("negative-at-boundary-strict", 3), ("filter-equal-value", 30),
                       ("join-split", 3)):
        assert c[key] >= least, (key, c[key], dict(c))
    assert 0.04 * N <= c["long"] <= 0.2 * N, c["long"]
