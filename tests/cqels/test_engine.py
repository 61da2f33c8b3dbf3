"""The incremental CQELS-CEP engine (docs/semantics/cqels.md#cqels-8): the pinned cases of
docs/semantics/cqels.md#cqels-4 with their exact answers per time point, the emission rule (what every push and
close returns), switch-sensitive cases, and incremental == naive (tests/cqels/naive_cqels.py, recomputing the
semantics at every time point) on seeded random queries, streams, static data and switches."""
from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from rdflib import XSD, Literal, Variable

from ceplab.engine.cqels import evaluator, run
from ceplab.semantics.cqels import ast as A
from ceplab.semantics.cqels.options import SWITCHES, Options
from ceplab.semantics.cqels.results import default_until, snapshots, sort_key
from ceplab.semantics.cqels.streams import StaticData, arrival, arrival_order, check_elements
from ceplab.semantics.rdfstream import StreamElement

sys.path.insert(0, str(Path(__file__).parent))
from cqels_cases import D_SUB, D_SUB_TRIPLES, EX, q, query, s_pt, snaps, static, stream, u  # noqa: E402
from naive_cqels import naive_run  # noqa: E402


def horizon(qy, els, st, until=None):
    return until if until is not None else default_until(qy, els, (st or StaticData.constant(())).change_times)


def engine(qy, els, opts=Options(), st=None, until=None) -> dict:
    return snapshots(run(qy, els, opts, st, until), horizon(qy, els, st, until))


def check(qy, els, spec, opts=Options(), st=None, until=None):
    h = horizon(qy, els, st, until)
    got = engine(qy, els, opts, st, until)
    want = snaps(spec, h)
    bad = {t: (sorted(got[t]), sorted(want[t])) for t in want if got[t] != want[t]}
    assert not bad, bad
    return got


ONE = lambda *rows: list(rows)  # noqa: E731


# ------------------------------------------------------------------------------------------------ pinned cases
def test_t01_running_example():
    got = check(query("ex6_running.q"), s_pt(), {range(16, 21): [({"s": "m"}, (10, 16))]}, st=D_SUB)
    assert max(got) == 26


def test_t01_event_clause_intermediate():
    qy = q("SELECT ?v ?s FROM NAMED WINDOW :W ON :publicTransport [RANGE 10]\n"
           "WHERE { WINDOW :W { SEQ ({?v :delayAt ?s}, {?v :delayAt ?s}, !{?v :arriveAt ?s }) } }")
    check(qy, s_pt(), {range(14, 23): [({"v": "d1", "s": "h"}, (12, 14))],
                       range(16, 21): [({"v": "a1", "s": "m"}, (10, 16))]})


def test_t03_path_plus_and_star():
    check(query("t03_path_plus.q"), [], {range(0, 6): [({"s": "m"}, lambda t: (0, t)), ({"s": "b"}, lambda t: (0, t))]},
          st=D_SUB, until=5)
    for zl in ("nsparql", "sparql"):
        check(query("t03_path_star.q"), [], {(0,): [({"s": x}, (0, 0)) for x in ("m", "b", "c")]}, Options(zero_length=zl),
              st=D_SUB)
    check(query("ex5_nsparql.q"), [], {(0,): [({"s": "m"}, (0, 0)), ({"s": "b"}, (0, 0))]}, st=D_SUB)


def _pairs(path_text, opts=Options(), st=D_SUB):
    got = engine(q(f"SELECT ?x ?y WHERE {{ ?x {path_text} ?y . }}"), [], opts, st)[0]
    return {(dict(a.mapping)["x"].rsplit("/", 1)[-1][:-1], dict(a.mapping)["y"].rsplit("/", 1)[-1][:-1]) for a in got}


def test_t03_path_relation():
    plus = {("m", "b"), ("b", "c"), ("h", "g"), ("m", "c")}
    assert _pairs("(^:beg/[:means :subway]/:end)+") == plus
    star = _pairs("(^:beg/[:means :subway]/:end)*")
    assert star - plus == {(x, x) for x, _ in star - plus} and len(star - plus) == 21  # voc(D_sub), predicates too
    sparql = _pairs("(^:beg/[:means :subway]/:end)*", Options(zero_length="sparql"))
    assert len(sparql - plus) == 16                                                     # subjects and objects only
    assert ("type", "type") in {(a[-4:], b[-4:]) for a, b in star} and ("type", "type") not in \
        {(a[-4:], b[-4:]) for a, b in sparql}


def test_plus_self_pairs_only_on_cycles():
    st = static(("k", "p", "l"), ("l", "p", "k"), ("m", "p", "m"), ("n", "p", "o"))
    assert _pairs(":p+", st=st) == {("k", "l"), ("k", "k"), ("l", "k"), ("l", "l"), ("m", "m"), ("n", "o")}


def test_sparql_paths_agree_with_rdflib():
    """docs/semantics/cqels.md#cqels-P9: zero_length="sparql" + a SPARQL 1.1 path = rdflib's answers."""
    from rdflib import Graph
    from rdflib.term import Variable as Var

    from ceplab.semantics.rdfstream import nt_term

    rng = random.Random(3)
    paths = [":p*", ":p+", ":p?", "(:p/:q)*", "^:p*", "(:p|^:q)+", ":p/:q?", "(:p*)/:q", "(:p?)*", "(^:q/:p)?"]
    for _ in range(80):
        triples = [(rng.choice("klmn"), rng.choice("pq"), rng.choice("klmn")) for _ in range(rng.randint(1, 7))]
        g = Graph()
        for t in triples:
            g.add(tuple(u(x) for x in t))
        s, o = rng.choice(["?x", ":k", ":z"]), rng.choice(["?y", ":l", ":k", ":z", "?x"])
        body = f"{s} {rng.choice(paths)} {o} ."
        vs = sorted({v[1:] for v in (s, o) if v.startswith("?")})
        text = f"SELECT {' '.join('?' + v for v in vs) or '*'} WHERE {{ {body} }}"
        mine = {tuple(dict(a.mapping)[v] for v in vs) for a in
                run(q(text), [], Options(zero_length="sparql"), static(*triples))}
        if vs:
            ref = {tuple(nt_term(r[Var(v)]) for v in vs) for r in g.query(f"PREFIX : <{EX}>\n" + text)}
        else:
            ref = {()} if g.query(f"PREFIX : <{EX}>\nASK {{ {body} }}").askAnswer else set()
        assert mine == ref, (body, triples)


def test_t04_plain():
    got = engine(query("ex4_plain.q"), s_pt(), st=D_SUB)
    assert got[16] == snaps({(16,): [({"s": "m"}, (10, 10)), ({"s": "h"}, (12, 12)), ({"s": "h"}, (14, 14)),
                                    ({"s": "m"}, (16, 16))]}, 16)[16]


def test_t05_no_tail_withdrawal():
    els = s_pt(([("a1", "arriveAt", "m")], 18, "publicTransport"))
    check(query("ex6_running.q"), els, {(16, 17,): [({"s": "m"}, (10, 16))]}, st=D_SUB)


def test_t06_repeated():
    els = stream(*[([("a1", "delayAt", "m")], t, "publicTransport") for t in (10, 12, 14)])
    m = {"v": "a1", "s": "m"}
    check(query("t06_repeated.q"), els, {(12, 13,): [(m, (10, 12))],
                                         range(14, 21): [(m, (10, 12)), (m, (10, 14)), (m, (12, 14))],
                                         (21, 22,): [(m, (12, 14))]})


def test_t07_seq_wo_existential():
    els = stream(([("x", "pa", "o")], 1), ([("x", "pb", "o")], 3), ([("x", "pn", "o")], 4), ([("x", "pb", "o")], 5),
                 ([("x", "pc", "o")], 7))
    check(query("t07_seq_wo.q"), els, {range(7, 12): [({"x": "x"}, (1, 7))]})


def test_t08_wo_boundary():
    els = stream(*[([(s, "pa", "o")], 2) for s in "xyz"], ([("x", "pn", "o")], 2), ([("y", "pn", "o")], 6),
                 ([("z", "pn", "o")], 4), *[([(s, "pc", "o")], 6) for s in "xyz"])
    check(query("t08_wo_boundary.q"), els, {})
    check(query("t08_wo_boundary.q"), els, {range(6, 13): [({"x": "x"}, (2, 6)), ({"x": "y"}, (2, 6))]},
          Options(wo_bounds="strict"))


def test_t09_no_head_late():
    els = stream(([("x", "pn", "o")], 3), ([("x", "pb", "o")], 5))
    check(query("t09_no_head.q"), els, {(8, 9,): [({"x": "x"}, (5, 5))]})


def test_t10_join_event_clauses():
    els = stream(([("a1", "delayAt", "m")], 10, "s1"), ([("b1", "delayAt", "m")], 10, "s1"),
                 ([("a1", "near", "m")], 11, "s2"), ([("b1", "near", "m")], 8, 12, "s2"))
    check(query("t10_join_ecs.q"), els, {range(10, 21): [({"v": "b1", "s": "m"}, (10, 10))]})


def test_t11_ec_seq_lifetime():
    els = stream(([("x", "pa", "o")], 5, "s3"), ([("x", "pb", "o")], 7, "s4"))
    check(query("t11_ec_seq.q"), els, {(7, 8,): [({"x": "x"}, (5, 7))]})


def test_t12_clipping():
    els = stream(([("x", "p", "y")], 3, 9))
    m = {"a": "x", "b": "y"}
    spec = {(t,): [(m, (3, t))] for t in range(3, 9)}
    spec.update({(t,): [(m, (t - 5, 9))] for t in range(9, 15)})
    check(query("t12_clip.q"), els, spec)


def test_t13_bgp_scope():
    one = stream(([("a1", "delayAt", "m"), ("a1", "line", "l1")], 10))
    two = stream(([("a1", "delayAt", "m")], 10), ([("a1", "line", "l1")], 10))
    want = {range(10, 21): [({"v": "a1", "s": "m", "l": "l1"}, (10, 10))]}
    for scope in ("element", "join"):
        check(query("t13_bgp_scope.q"), one, want, Options(bgp_scope=scope))
    check(query("t13_bgp_scope.q"), two, {})
    check(query("t13_bgp_scope.q"), two, want, Options(bgp_scope="join"))


def test_t14_static_change():
    st = static(versions=[(0, D_SUB_TRIPLES), (17, D_SUB_TRIPLES + [("x", "unrelated", "y")])])
    check(query("ex6_running.q"), s_pt(), {(16,): [({"s": "m"}, (10, 16))]}, st=st)
    for mode in ("per_mapping", "unbounded"):
        check(query("ex6_running.q"), s_pt(), {range(16, 21): [({"s": "m"}, (10, 16))]},
              Options(static_interval=mode), st=st)


def test_t15_rdfs_paths():
    st = static(("alice", "type", "student"), ("student", "sc", "person"), ("person", "sc", "agent"),
                ("teacher", "sc", "person"), ("teaches", "dom", "teacher"), ("teaches", "range", "course"),
                ("lectures", "sp", "teaches"), ("bob", "teaches", "c1"), ("carol", "lectures", "c2"))
    check(query("t15_rdfs_paths.q"), [], {(0,): [({"x": x}, (0, 0)) for x in ("alice", "bob", "carol")]}, st=st)


def test_t16_no_tail_strict():
    els = stream(([("x", "pa", "o")], 5), ([("x", "pn", "o")], 5))
    check(query("t16_no_tail_strict.q"), els, {range(5, 16): [({"x": "x"}, (5, 5))]})


def test_t17_closed_clipping_artefact():
    els = stream(([("x", "pa", "o")], 2), ([("x", "pn", "o")], 4, 20), ([("x", "pc", "o")], 6))
    check(query("t17_clip_wo.q"), els, {range(7, 13): [({"x": "x"}, (2, 6))]})
    check(query("t17_clip_wo.q"), els, {range(6, 13): [({"x": "x"}, (2, 6))]}, Options(wo_bounds="strict"))


# ------------------------------------------------------------------------------------------------ switches
W1 = "SELECT ?x FROM NAMED WINDOW :W ON :s [{spec}] WHERE {{ WINDOW :W {{ ?x :p :o }} }}"


def test_arrival_end():
    els = stream(([("x", "p", "o")], 2, 8))
    qy = q(W1.format(spec="RANGE 10"))
    check(qy, els, {range(2, 19): [({"x": "x"}, lambda t: (max(2, t - 10), min(8, t)))]})
    check(qy, els, {range(8, 19): [({"x": "x"}, lambda t: (max(2, t - 10), 8))]}, Options(arrival="end"))


def test_now_valid_and_arrived():
    els = stream(([("x", "p", "o")], 3, 5))
    qy = q(W1.format(spec="NOW"))
    check(qy, els, {range(3, 6): [({"x": "x"}, lambda t: (t, t))]})
    check(qy, els, {(3,): [({"x": "x"}, (3, 3))]}, Options(now="arrived"))
    check(qy, els, {(5,): [({"x": "x"}, (5, 5))]}, Options(now="arrived", arrival="end"))
    check(qy, els, {(5,): [({"x": "x"}, (5, 5))]}, Options(arrival="end"))


def test_all_window():
    els = stream(([("x", "p", "o")], 3, 5), ([("y", "p", "o")], 4))
    check(q(W1.format(spec="ALL")), els, {range(3, 6): [({"x": "x"}, lambda t: (3, t))],
                                          range(4, 6): [({"x": "y"}, (4, 4))]}, until=5)
    check(q(W1.format(spec="ALL")), els, {range(3, 9): [({"x": "x"}, lambda t: (3, min(t, 5)))],
                                          range(4, 9): [({"x": "y"}, (4, 4))]}, until=8)


def test_slide():
    els = stream(([("x", "p", "o")], 4))
    check(q(W1.format(spec="RANGE 4 SLIDE 3")), els, {range(6, 9): [({"x": "x"}, (4, 4))]})
    els = stream(([("x", "p", "o")], 4, 7))
    # u = 6: [4, 6]; u = 9: [5, 7]; u = 12 -> window [8, 12]: gone
    check(q(W1.format(spec="RANGE 4 SLIDE 3")), els, {range(6, 9): [({"x": "x"}, (4, 6))],
                                                      range(9, 12): [({"x": "x"}, (5, 7))]})


def test_triples_units():
    qy = q("SELECT ?x ?o FROM NAMED WINDOW :W ON :s [TRIPLES 2] WHERE { WINDOW :W { ?x :p ?o } }")
    els = stream(([("k", "p", "o1"), ("k", "p", "o2")], 1), ([("b", "p", "o3")], 2))
    check(qy, els, {(1,): [({"x": "k", "o": "o1"}, (1, 1)), ({"x": "k", "o": "o2"}, (1, 1))],
                    range(2, 4): [({"x": "k", "o": "o1"}, (1, 1)), ({"x": "k", "o": "o2"}, (1, 1)),
                                  ({"x": "b", "o": "o3"}, (2, 2))]}, until=3)
    # triples: at 2 the last two units are (a p o2) and (b p o3)
    check(qy, els, {(1,): [({"x": "k", "o": "o1"}, (1, 1)), ({"x": "k", "o": "o2"}, (1, 1))],
                    range(2, 4): [({"x": "k", "o": "o2"}, (1, 1)), ({"x": "b", "o": "o3"}, (2, 2))]},
          Options(triples_unit="triples"), until=3)


def test_triples_ties_by_position():
    qy = q("SELECT ?x FROM NAMED WINDOW :W ON :s [TRIPLES 1] WHERE { WINDOW :W { ?x :p :o } }")
    els = stream(([("k", "p", "o")], 1), ([("b", "p", "o")], 1))
    want = {range(1, 3): [({"x": "b"}, (1, 1))]}
    assert engine(qy, els, until=2) == snaps(want, 2)
    ev = evaluator(qy, until=2)                  # ties may be pushed in any order
    out = ev.push(els[1]) + ev.push(els[0]) + ev.close()
    assert snapshots(out, 2) == snaps(want, 2)


def test_filters_exact():
    qy = q('SELECT ?x ?v FROM NAMED WINDOW :W ON :s [RANGE 5] WHERE { WINDOW :W { ?x :v ?v '
           'FILTER(?v - 0.1 > 1 || ?v = "a") } FILTER(!(?v != 2.5)) }')
    els = stream(([("x", "v", Literal("2.5", datatype=XSD.decimal))], 1),
                 ([("y", "v", Literal("1.1", datatype=XSD.decimal))], 1),
                 ([("z", "v", Literal("2.50", datatype=XSD.decimal))], 1),
                 ([("w", "v", Literal("a"))], 1),
                 ([("d", "v", Literal("2.5", datatype=XSD.double))], 1))
    got = engine(qy, els)
    assert {dict(a.mapping)["x"] for a in got[1]} == {u("x").n3(), u("z").n3()}


def test_static_per_mapping():
    qy = q("SELECT ?x FROM NAMED WINDOW :W ON :s [RANGE 20] WHERE { WINDOW :W { ?x :p :o } ?x :q :r . }")
    st = static(versions=[(0, [("x", "q", "r"), ("y", "q", "r")]), (5, [("x", "q", "r")]),
                          (8, [("x", "q", "r"), ("y", "q", "r"), ("z", "q", "r")])])
    els = stream(([("x", "p", "o")], 3), ([("y", "p", "o")], 3, 12))
    got = {m: engine(qy, els, Options(static_interval=m), st) for m in ("global", "per_mapping", "unbounded")}
    x, y = u("x").n3(), u("y").n3()
    at = lambda g, t: {(dict(a.mapping)["x"], a.interval) for a in g[t]}  # noqa: E731
    assert at(got["per_mapping"], 10) == {(x, (3, 3)), (y, (8, 10))}
    assert at(got["global"], 10) == {(y, (8, 10))}
    assert at(got["unbounded"], 10) == {(x, (3, 3)), (y, (3, 10))}
    assert at(got["global"], 6) == set() and at(got["per_mapping"], 6) == {(x, (3, 3))}


def test_empty_static_is_identity():
    qy = q(W1.format(spec="RANGE 3"))
    st = static(versions=[(0, [("a", "b", "c")]), (2, [])])
    check(qy, stream(([("x", "p", "o")], 1)), {range(1, 5): [({"x": "x"}, (1, 1))]}, st=st)


# ------------------------------------------------------------------------------------------------ emission rule
def check_emission(qy, els, opts=Options(), st=None, until=None, want=None):
    """Every push returns exactly the snapshots of the time points its arrival closes (up to the horizon), sorted;
    close returns the rest up to the horizon."""
    h = horizon(qy, els, st, until)
    if want is None:
        want = naive_run(qy, els, opts, st, until)
    ev = evaluator(qy, opts, st, until=until)
    frontier = 0
    for e in arrival_order(els, opts):
        a = arrival(e, opts)
        out = ev.push(e)
        hi = min(a - 1, h)
        exp = sorted((x for t in range(frontier, hi + 1) for x in want[t]), key=sort_key)
        assert out == exp, (a, out, exp)
        frontier = max(frontier, hi + 1)
    out = ev.close()
    assert out == sorted((x for t in range(frontier, h + 1) for x in want[t]), key=sort_key)


def test_emission_rule_running_example():
    qy, els = query("ex6_running.q"), s_pt()
    check_emission(qy, els, st=D_SUB)
    ev = evaluator(qy, static=D_SUB)
    assert ev.push(els[0]) == [] and ev.push(els[1]) == [] and ev.push(els[2]) == [] and ev.push(els[3]) == []
    last = ev.close()
    assert [a.time for a in last] == [16, 17, 18, 19, 20]
    # an element of another stream only advances time
    ev = evaluator(qy, static=D_SUB)
    for e in els:
        ev.push(e)
    other = StreamElement(els[0].content, 18, 18, u("elsewhere"), 99)
    assert [a.time for a in ev.push(other)] == [16, 17]
    assert [a.time for a in ev.close()] == [18, 19, 20]


def test_emission_with_until():
    qy, els = query("ex6_running.q"), s_pt()
    check_emission(qy, els, st=D_SUB, until=17)
    check_emission(qy, els, st=D_SUB, until=30)
    check_emission(qy, els, st=D_SUB, until=0)


def test_out_of_order_and_after_close():
    qy, els = query("ex6_running.q"), s_pt()
    ev = evaluator(qy, static=D_SUB)
    ev.push(els[1])
    with pytest.raises(ValueError):
        ev.push(els[0])
    ev.push(els[2])
    ev.close()
    with pytest.raises(ValueError):
        ev.push(els[3])
    with pytest.raises(ValueError):
        ev.close()
    ev = evaluator(qy, Options(arrival="end"))
    ev.push(stream(([("a", "p", "o")], 1, 9))[0])
    with pytest.raises(ValueError):
        ev.push(stream(([("a", "p", "o")], 3, 5))[0])
    with pytest.raises(ValueError):
        evaluator(qy, until=-1)


# ------------------------------------------------------------------------------------------------ random differential
V = [Variable(x) for x in ("x", "y", "z")]
IRIS = [u(x) for x in ("a", "b", "c")]
PREDS = [u(x) for x in ("p", "q")]
LITS = [Literal("1", datatype=XSD.integer), Literal("2.5", datatype=XSD.decimal), Literal("a")]


def _term(rng, pos, var_p=0.75):
    if rng.random() < var_p:
        return rng.choice(V)
    if pos == "p":
        return rng.choice(PREDS)
    if pos == "o" and rng.random() < 0.2:
        return rng.choice(LITS)
    return rng.choice(IRIS[:2])


def _tp(rng, dense=False):
    if dense:   # subject variable, constant predicate: most elements match something
        s = rng.choice(V[:2])
        o = rng.choice([v for v in V if v != s] + IRIS[:2])
        return A.TriplePattern(s, rng.choice(PREDS), o)
    s, o = _term(rng, "s", 0.85), _term(rng, "o", 0.7)
    if s == o and rng.random() < 0.9:
        o = rng.choice([v for v in V if v != s])
    return A.TriplePattern(s, _term(rng, "p", 0.1), o)


def _filter(rng, variables):
    vs = sorted(variables, key=str)
    if not vs:
        return None
    x = A.Var(rng.choice(vs))
    choice = rng.random()
    if choice < 0.3:
        return A.Cmp(rng.choice(["=", "!="]), x, A.Const(rng.choice(IRIS + LITS)))
    if choice < 0.6:
        return A.Cmp(rng.choice(["<", "<=", ">", ">="]), A.Arith("-", x, A.Const(LITS[0])), A.Const(LITS[1]))
    if choice < 0.8:
        return A.Or(A.Cmp("=", x, A.Const(IRIS[0])), A.Not(A.Cmp(">", x, A.Const(LITS[0]))))
    others = [v for v in vs if v != x.var] or vs
    return A.And(A.Cmp("!=", x, A.Var(rng.choice(others))), A.Const(Literal("true", datatype=XSD.boolean)))


def _bgp(rng, dense=False):
    tps = tuple(_tp(rng, dense) for _ in range(rng.choice([1, 1, 1, 1, 2])))
    b = A.BGP(tps)
    if rng.random() < 0.1:
        f = _filter(rng, A.bgp_vars(b))
        if f is not None:
            b = A.BGP(tps, (f,))
    return b


def _items(rng, make, n):
    items = [make() for _ in range(n)]
    if rng.random() < 0.6:
        i = rng.randrange(n)
        items[i] = A.Neg(items[i])
    return tuple(items)


def _path(rng, depth):
    r = rng.random()
    if depth == 0 or r < 0.35:
        k = rng.random()
        kind = rng.choice(["next", "next", "edge", "node"])
        if k < 0.5:
            return A.AxisConst(kind, rng.random() < 0.3, rng.choice(PREDS if kind == "next" else IRIS))
        if k < 0.7:
            return A.Axis("self") if rng.random() < 0.3 else A.Axis(kind, rng.random() < 0.3)
        if k < 0.8:
            return A.AxisConst("self", False, rng.choice(IRIS))
        return A.AxisNest(rng.choice(["self", "next", "edge", "node"]), False, _path(rng, depth - 1))
    sub = lambda: _path(rng, depth - 1)  # noqa: E731
    return rng.choice([lambda: A.PathSeq(sub(), sub()), lambda: A.PathAlt(sub(), sub()),
                       lambda: A.PathStar(sub()), lambda: A.PathPlus(sub()), lambda: A.PathOpt(sub())])()


def _spec(rng, dense=False):
    r = rng.random()
    if dense and r < 0.6:
        return A.RangeWindow(rng.choice([3, 5, 8, 12]), rng.choice([1, 1, 2]))
    if r < 0.5:
        return A.RangeWindow(rng.choice([0, 2, 4, 6, 8]), rng.choice([1, 1, 1, 2, 3]))
    if r < 0.65:
        return A.NowWindow()
    if r < 0.8:
        return A.AllWindow()
    return A.TriplesWindow(rng.randint(1, 5))


def random_query(rng, dense=False) -> A.Query:
    while True:
        try:
            nw = rng.choice([1, 1, 1, 2, 2]) if rng.random() > (0.05 if not dense else 0) else 0
            windows = []
            for k in range(nw):
                pat = _bgp(rng, dense) if rng.random() < 0.4 else \
                    A.SeqTSP(_items(rng, lambda: _bgp(rng, dense), rng.choice([2, 2, 3])))
                windows.append(A.Window(u(f"W{k}"), u(rng.choice(["s1", "s1", "s2"])), _spec(rng, dense), pat))
            refs = [A.WinRef(w.name) for w in windows]
            if nw == 2 and rng.random() < (0.5 if not dense else 0.8):
                items = list(refs)
                if rng.random() < 0.5:
                    items.append(A.WinRef(windows[rng.randrange(2)].name))
                rng.shuffle(items)
                if rng.random() < 0.6:
                    i = rng.randrange(len(items))
                    items[i] = A.Neg(items[i])
                events = (A.SeqEC(tuple(items)),)
            else:
                events = tuple(refs)
            stat = []
            for _ in range(rng.choice([0, 0, 0, 1, 1, 2] if not dense else [0, 0, 0, 1]) if events else
                           rng.choice([1, 2])):
                if rng.random() < 0.5:
                    stat.append(A.TriplePattern(_term(rng, "s"), _term(rng, "p", 0.15), _term(rng, "o")))
                else:
                    path = _path(rng, 2)
                    if isinstance(path, A.AxisConst) and path.kind == "next" and not path.inverse:
                        path = A.PathPlus(path)                  # a plain :p is a TriplePattern
                    stat.append(A.PathPattern(_term(rng, "s", 0.85), path, _term(rng, "o", 0.6)))
            qy = A.Query(None, (), tuple(windows), events, tuple(stat))
            scope = A.scope_vars(qy)
            filters = ()
            if rng.random() < 0.25:
                f = _filter(rng, scope)
                filters = (f,) if f is not None else ()
            select = None
            if scope and rng.random() < 0.6:
                select = tuple(rng.sample(sorted(scope, key=str), rng.randint(1, len(scope))))
            return A.Query(select, (), tuple(windows), events, tuple(stat), filters)
        except ValueError:
            continue


SEQ_PREDS = [u(x) for x in ("pa", "pb", "pn")]


def random_seq_case(rng):
    """Sequences with negation at both levels on a busy stream (the operators' corner cases: witnesses, blockers,
    clipping of long elements, window edges)."""
    def item():
        o = rng.choice([Variable("o"), IRIS[0]]) if rng.random() < 0.3 else IRIS[0]
        return A.BGP((A.TriplePattern(Variable("x"), rng.choice(SEQ_PREDS), o),))
    windows = []
    for k in range(rng.choice([1, 1, 2])):
        spec = _spec(rng, dense=True)
        pat = A.SeqTSP(_items(rng, item, rng.choice([2, 3, 3, 4]))) if rng.random() < 0.8 else item()
        windows.append(A.Window(u(f"W{k}"), u("s1" if k == 0 or rng.random() < 0.5 else "s2"), spec, pat))
    refs = [A.WinRef(w.name) for w in windows]
    if len(refs) == 2 and rng.random() < 0.8:
        items = list(refs)
        rng.shuffle(items)
        if rng.random() < 0.5:
            i = rng.randrange(2)
            items[i] = A.Neg(items[i])
        events = (A.SeqEC(tuple(items)),)
    else:
        events = tuple(refs)
    try:
        qy = A.Query(None, (), tuple(windows), events, ())
    except ValueError:
        return random_seq_case(rng)
    els = []
    for pos in range(rng.choice([8, 14, 20])):
        t1 = rng.randint(0, 14)
        t2 = t1 if rng.random() < 0.75 else t1 + rng.randint(1, 6)
        triples = [(rng.choice(IRIS[:2]), rng.choice(SEQ_PREDS), IRIS[rng.random() < 0.2])]
        els.append((triples, t1, t2, "s1" if rng.random() < 0.7 else "s2"))
    return qy, stream(*els), None


def random_stream(rng, dense=False) -> list:
    els = []
    objs = IRIS[:2] if dense else IRIS + LITS[:2]
    for pos in range(rng.choice([0, 6, 10, 14, 18, 22] if not dense else [12, 18, 24])):
        triples = {(rng.choice(IRIS[:2] if dense else IRIS), rng.choice(PREDS), rng.choice(objs))
                   for _ in range(rng.choice([1, 1, 2, 3] if not dense else [1, 1, 1, 2]))}
        t1 = rng.randint(0, 12)
        t2 = t1 if rng.random() < 0.7 else t1 + rng.randint(1, 4)
        els.append((list(triples), t1, t2, rng.choice(["s1", "s1", "s1", "s1", "s2", "s2", "s3"])))
    return stream(*els)


def random_static(rng, dense=False):
    def triples():
        n = rng.randint(0, 9) if not dense else rng.randint(4, 12)
        return [(rng.choice(IRIS), rng.choice(PREDS), rng.choice(IRIS + LITS[:1])) for _ in range(n)]
    if rng.random() < 0.3:
        return None
    if rng.random() < 0.6:
        return StaticData.constant(triples())
    return StaticData([(0, triples()), (rng.randint(1, 12), triples())])


def random_options(rng) -> Options:
    return Options(**{k: rng.choice(vs) for k, vs in SWITCHES.items()})


@pytest.mark.parametrize("seed", range(12))
def test_incremental_equals_naive(seed):
    rng = random.Random(1000 + seed)
    for case in range(60):
        dense = case % 3 == 1
        if case % 3 == 2:
            qy, els, st = random_seq_case(rng)
        else:
            qy, els, st = random_query(rng, dense), random_stream(rng, dense), random_static(rng, dense)
        opts = random_options(rng)
        until = None if rng.random() < 0.8 else rng.randint(0, 16)
        want = naive_run(qy, els, opts, st, until)
        got = snapshots(run(qy, els, opts, st, until), max(want))
        bad = {t: (sorted(got[t]), sorted(want[t])) for t in want if got[t] != want[t]}
        assert not bad, (seed, case, qy, els, st, opts, until, bad)
        check_emission(qy, els, opts, st, until, want)


@pytest.mark.parametrize("switch", sorted(SWITCHES))
def test_each_switch_against_naive(switch):
    rng = random.Random(sum(map(ord, switch)))
    for value in SWITCHES[switch]:
        opts = replace(Options(), **{switch: value})
        for case in range(30):
            dense = case % 3 == 1
            if case % 3 == 2:
                qy, els, st = random_seq_case(rng)
            else:
                qy, els, st = random_query(rng, dense), random_stream(rng, dense), random_static(rng, dense)
            want = naive_run(qy, els, opts, st)
            got = snapshots(run(qy, els, opts, st), max(want))
            assert got == want, (qy, els, st, opts)


def test_engine_imports_neither_the_oracle_nor_the_test_reference():
    """engine and asp never import each other (docs/semantics/cqels.md#cqels-8); the naive evaluator is a test
    reference only."""
    import re

    src = Path(__file__).resolve().parents[2] / "engine" / "cqels"
    for p in src.glob("*.py"):
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+ceplab\.asp", text, re.M), p
        assert "naive" not in text, p
