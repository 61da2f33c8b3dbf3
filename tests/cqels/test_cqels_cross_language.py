"""CQELS-CEP ``SEQ`` against ETALIS ``seq`` and EP-SPARQL ``SEQ`` on the common fragment (issue 13, "Cross-language";
docs/semantics/cqels.md#cqels-P10 and #cqels-10.1).

The fragment: one stream of atomic events, each a graph of one (sometimes two) triples ``:s :p v``; a CQELS-CEP window
``[RANGE T]`` (slide 1) or ``[ALL]`` whose pattern is ``SEQ({s1 :p1 o1}, ..., {sk :pk ok})`` without negation
(``SELECT *``); the EP-SPARQL query ``{s1 :p1 o1} SEQ ... SEQ {sk :pk ok} FILTER(getDURATION() <= T)`` (no
FILTER for ``ALL``) and the ETALIS rule ``m(Vars) <- (p1(S1,O1) seq ... seq pk(Sk,Ok)).T`` (no window for ``ALL``)
over the events ``p(s, v)``.  CQELS-CEP answers a snapshot at every time point; ETALIS and EP-SPARQL report each
match once.  Correspondence (tested on random streams with ties and duplicates, both CQELS-CEP evaluators, the
ETALIS and EP-SPARQL engines):

* the pairs ``(mapping, [a, b])`` CQELS-CEP ever answers (``t`` in ``[0, H]``, default horizon) are exactly the
  EP-SPARQL matches and the ETALIS results: all three SEQs are strict (``b1 < a2``, no match between simultaneous
  events), skip-till-any without consumption, with the hull as interval; a ``RANGE T`` window keeps a match of
  atomic events exactly while ``t`` is in ``[b, a + T]``, which is non-empty iff ``b - a <= T``, EP-SPARQL's
  ``getDURATION() <= T`` and ETALIS's ``(p).T``;
* a CQELS-CEP answer first appears at ``t = b``, the time at which ETALIS and EP-SPARQL detect (emit) it.

The differences, each pinned by a minimal example below: (1) CQELS-CEP repeats a match at every ``t`` until it
leaves the window; (2) non-atomic events are clipped by the window, so CQELS-CEP answers intervals that no match
has and keeps matches the duration bound rejects; (3) ``RANGE T SLIDE d`` misses matches with ``b - a <= T`` when
no multiple of ``d`` lies in ``[b, a + T]``; (4) a multi-triple SEQ element matches inside one event graph in
CQELS-CEP, while EP-SPARQL's group join and ETALIS's ``and`` combine separate events into their hull.
"""
from __future__ import annotations

import json
import random
from typing import Optional

import pytest
from rdflib import Graph, Literal, URIRef

from ceplab.semantics.cqels.options import Options
from ceplab.semantics.cqels.results import default_until
from ceplab.semantics.cqels.streams import check_elements
from ceplab.semantics.epsparql.streams import read_line_stream
from ceplab.semantics.etalis.streams import read_jsonl_events
from ceplab.semantics.rdfstream import StreamElement
from ceplab.workbench import language

EX = "http://example.org/"
CQELS_EVALUATORS = ("engine", "oracle")
SEEDS = 60

#: An event: ``(triples, start, end)``, ``triples`` a tuple of ``(subject, predicate, value)`` with a local-name
#: subject and predicate and an integer value.
Event = tuple
#: A SEQ element: a list of triple patterns ``(s, p, o)``; ``s`` and ``o`` are variables ``"?name"``, a local name
#: (subject) or an integer (object).
Element = list


def ev(s: str, p: str, v: int, start: int, end: Optional[int] = None) -> Event:
    return (((s, p, v),), start, start if end is None else end)


# ------------------------------------------------------------------------------------------------ the three queries
def _term(x) -> str:
    """A pattern term in SPARQL syntax."""
    if isinstance(x, int):
        return str(x)
    return x if x.startswith("?") else f":{x}"


def _bgp(element: Element) -> str:
    return "{ " + " . ".join(f"{_term(s)} :{p} {_term(o)}" for s, p, o in element) + " }"


def cqels_text(seq: list[Element], T: Optional[int], slide: int = 1) -> str:
    win = "ALL" if T is None else f"RANGE {T}" + (f" SLIDE {slide}" if slide > 1 else "")
    pattern = _bgp(seq[0]) if len(seq) == 1 else "SEQ(" + ", ".join(_bgp(e) for e in seq) + ")"
    return (f"PREFIX : <{EX}>\nSELECT * FROM NAMED WINDOW :W ON :s [{win}]\n"
            f"WHERE {{ WINDOW :W {{ {pattern} }} }}\n")


def epsparql_text(seq: list[Element], T: Optional[int]) -> str:
    body = " SEQ ".join(_bgp(e) for e in seq)
    return f"PREFIX : <{EX}>\nSELECT * WHERE {{ {body} }}" + ("" if T is None else f" FILTER(getDURATION() <= {T})") \
        + "\n"


def _etalis_term(x) -> str:
    if isinstance(x, int):
        return str(x)
    return x[1:].upper() if x.startswith("?") else x


def etalis_text(seq: list[Element], T: Optional[int]) -> str:
    variables = sorted({x for e in seq for tp in e for x in (tp[0], tp[2]) if isinstance(x, str) and x[0] == "?"})
    parts = []
    for e in seq:
        atoms = [f"{p}({_etalis_term(s)},{_etalis_term(o)})" for s, p, o in e]
        parts.append(atoms[0] if len(atoms) == 1 else "(" + " and ".join(atoms) + ")")
    body = " seq ".join(parts)
    head = "m(" + ",".join(_etalis_term(v) for v in variables) + ")"
    return f"{head} <- " + (f"{body}." if T is None else f"({body}).{T}.")


# ------------------------------------------------------------------------------------------------ runs
def _value(nt: str):
    """A result term in N-Triples form as the fragment's plain value: a local name or an integer."""
    if nt.startswith(f"<{EX}"):
        return nt[len(EX) + 1:-1]
    return int(nt.split('"')[1])


def cqels_answers(events: list[Event], seq, T, slide: int = 1, kind: str = "engine", options=None) -> set:
    """Every answer ``(t, mapping, (a, b))`` of the CQELS-CEP query (``t`` in ``[0, H]``, default horizon; default
    switches unless ``options``), mappings as sorted ``(variable, value)`` tuples."""
    L = language.get("cqels")
    options = options or L.options()
    q = L.parse(cqels_text(seq, T, slide))
    els = []
    for i, (triples, a, b) in enumerate(events):
        g = Graph()
        for s, p, v in triples:
            g.add((URIRef(EX + s), URIRef(EX + p), Literal(v)))
        els.append(StreamElement(g, a, b, URIRef(EX + "s"), i))
    els = check_elements(els)
    if kind == "oracle":
        from ceplab.asp.oracle import Limits

        out = L.oracle(q, els, options, Limits(time_s=60, isolate=False)).results
    else:
        e = L.evaluator(q, options)
        out = [r for x in els for r in e.push(x)] + e.close()
    assert all(r.time <= default_until(q.query, els) for r in out)
    return {(r.time, tuple((k, _value(v)) for k, v in r.mapping), r.interval) for r in out}


def ever(answers: set) -> set:
    """The ``(mapping, (a, b))`` pairs answered at some ``t``."""
    return {(m, iv) for _, m, iv in answers}


def first_times(answers: set) -> dict:
    out: dict = {}
    for t, m, iv in answers:
        out[(m, iv)] = min(t, out.get((m, iv), t))
    return out


def epsparql_matches(events: list[Event], seq, T) -> set:
    """The EP-SPARQL rows ``(mapping, (a, b))`` (the engine emits a time point's rows when the next one starts)."""
    L = language.get("epsparql")
    text = "".join(f"<{EX}{s}> <{EX}{p}> {v} {a} {b} .\n"
                   for triples, a, b in sorted(events, key=lambda e: e[2]) for s, p, v in triples)
    e = L.evaluator(L.parse(epsparql_text(seq, T)), L.options())
    rows = [r for o in read_line_stream(text) for r in e.push(o)] + e.close()
    return {(tuple((k, _value(v)) for k, v in r.mapping), (r.start, r.end)) for r in rows}


def etalis_matches(events: list[Event], seq, T) -> dict:
    """``{(mapping, (a, b)): time of the event whose push returned it}`` for the head ``m(Vars)``."""
    L = language.get("etalis")
    variables = sorted({x[1:] for e in seq for tp in e for x in (tp[0], tp[2]) if isinstance(x, str) and x[0] == "?"})
    lines = [json.dumps({"type": p, "args": [s, v], "time": a, **({"end": b} if b != a else {})})
             for triples, a, b in sorted(events, key=lambda e: e[2]) for s, p, v in triples]
    e = L.evaluator(L.parse(etalis_text(seq, T)), L.options())

    def key(r):
        atom, a, b = r
        args = atom[atom.index("(") + 1:-1].split(",")
        return tuple(sorted(zip(variables, (int(x) if x.isdigit() else x for x in args)))), (a, b)
    out: dict = {}
    for x in read_jsonl_events("".join(line + "\n" for line in lines), "<test>"):
        for r in e.push(x):
            out.setdefault(key(r), x.end)
    for r in e.close():
        out.setdefault(key(r), None)
    return out


# ------------------------------------------------------------------------------------------------ random fragment
def random_case(rng: random.Random):
    """A SEQ of 2-3 one-triple elements (shared subject ``?s`` or a constant; fresh, shared or constant objects),
    ``T`` in 0..6 or ``ALL`` (None), and a stream of 4-16 atomic events of one triple, sometimes two (subjects ``a
    b``, predicates ``p q r``, mostly those of the SEQ, values 0-1; ties, duplicates)."""
    seq = []
    subject = "?s" if rng.random() < 0.85 else rng.choice("ab")
    for k in range(rng.randint(2, 3)):
        r = rng.random()
        obj = f"?x{k}" if r < 0.7 else "?x0" if r < 0.85 else rng.randint(0, 1)
        seq.append([(subject, rng.choice("pqr"), obj)])
    T = None if rng.random() < 0.15 else rng.randint(0, 6)
    events, t = [], rng.randint(0, 2)
    for _ in range(rng.randint(4, 16)):
        if events and rng.random() < 0.1:
            events.append(events[-1])                                   # a duplicate
            continue
        t += rng.choice([0, 1, 1, 1, 2])
        triples = []
        for _ in range(2 if rng.random() < 0.15 else 1):            # sometimes a graph of two triples
            p = rng.choice(seq)[0][1] if rng.random() < 0.8 else rng.choice("pqr")
            triples.append(("a" if rng.random() < 0.7 else "b", p, rng.randint(0, 1)))
        events.append((tuple(triples), t, t))
    return events, seq, T


@pytest.mark.parametrize("seed", range(SEEDS))
def test_seq_equals_etalis_seq_and_epsparql_seq(seed):
    """docs/semantics/cqels.md#cqels-10.1: the ever-answered CQELS-CEP pairs equal the EP-SPARQL matches and the
    ETALIS results, and each pair first appears at the time of the event with which ETALIS detects it."""
    events, seq, T = random_case(random.Random(seed))
    eps, eta = epsparql_matches(events, seq, T), etalis_matches(events, seq, T)
    assert eps == set(eta), (seq, T)
    for kind in CQELS_EVALUATORS:
        got = cqels_answers(events, seq, T, kind=kind)
        assert ever(got) == eps, (kind, seq, T, sorted(ever(got) ^ eps)[:4])
        assert first_times(got) == eta, kind                            # first answered when ETALIS detects it


def test_the_random_fragment_is_not_trivial():
    """The seeds above produce matches, duration-bounded rejections, ties and duplicates."""
    matched = rejected = ties = dups = 0
    for seed in range(SEEDS):
        events, seq, T = random_case(random.Random(seed))
        n = len(epsparql_matches(events, seq, T))
        matched += n > 0
        rejected += T is not None and len(epsparql_matches(events, seq, None)) > n
        ties += len({e[1] for e in events}) < len(events)
        dups += len(set(events)) < len(events)
    assert matched >= 20 and rejected >= 10 and ties >= 30 and dups >= 15, (matched, rejected, ties, dups)


# ------------------------------------------------------------------------------------------------ minimal examples
P_Q = [[("?s", "p", "?x")], [("?s", "q", "?y")]]
M = (("s", "a"), ("x", 1), ("y", 2))


def test_ties_agree_seq_is_strict_everywhere():
    """Equal timestamps: p@1, q@1 is no match in any of the three (strict ``b1 < a2``); with q@2 added all three
    find exactly ``[1, 2]``."""
    tie = [ev("a", "p", 1, 1), ev("a", "q", 2, 1)]
    for events, want in ((tie, set()), (tie + [ev("a", "q", 2, 2)], {(M, (1, 2))})):
        assert epsparql_matches(events, P_Q, 5) == want
        assert set(etalis_matches(events, P_Q, 5)) == want
        for kind in CQELS_EVALUATORS:
            assert ever(cqels_answers(events, P_Q, 5, kind=kind)) == want, kind


def test_difference_answers_repeat_at_every_time_point():
    """p@1, q@3, RANGE 5: ETALIS and EP-SPARQL report ``[1, 3]`` once, at 3; CQELS-CEP answers it at every ``t``
    in ``[3, 6]`` (``a + T = 6``)."""
    events = [ev("a", "p", 1, 1), ev("a", "q", 2, 3)]
    assert etalis_matches(events, P_Q, 5) == {(M, (1, 3)): 3} and epsparql_matches(events, P_Q, 5) == {(M, (1, 3))}
    for kind in CQELS_EVALUATORS:
        got = cqels_answers(events, P_Q, 5, kind=kind)
        assert sorted(t for t, _, _ in got) == [3, 4, 5, 6] and ever(got) == {(M, (1, 3))}, kind


def test_difference_window_clipping_of_non_atomic_events():
    """p@[0,1], q@2.  ``RANGE 1``: at t = 2 the window ``[1, 2]`` clips p to ``[1, 1]``, so CQELS-CEP answers
    ``[1, 2]``, an interval no match has, while the match ``[0, 2]`` is longer than 1 and ETALIS and EP-SPARQL
    find nothing.  ``RANGE 2``: CQELS-CEP answers ``[0, 2]`` at 2 and the clipped ``[1, 2]`` at 3; ETALIS and
    EP-SPARQL only ``[0, 2]``.  Without a window (``ALL``, no duration bound) all three agree on ``[0, 2]``."""
    events = [ev("a", "p", 1, 0, 1), ev("a", "q", 2, 2)]
    assert set(etalis_matches(events, P_Q, 1)) == epsparql_matches(events, P_Q, 1) == set()
    assert set(etalis_matches(events, P_Q, 2)) == epsparql_matches(events, P_Q, 2) == {(M, (0, 2))}
    assert set(etalis_matches(events, P_Q, None)) == epsparql_matches(events, P_Q, None) == {(M, (0, 2))}
    for kind in CQELS_EVALUATORS:
        assert cqels_answers(events, P_Q, 1, kind=kind) == {(2, M, (1, 2))}, kind
        assert cqels_answers(events, P_Q, 2, kind=kind) == {(2, M, (0, 2)), (3, M, (1, 2))}, kind
        assert ever(cqels_answers(events, P_Q, None, kind=kind)) == {(M, (0, 2))}, kind


def test_difference_slide_misses_matches():
    """``RANGE 1 SLIDE 2``: the window is evaluated at even ``u`` only.  p@2, q@3: ``[2, 3]`` lasts 1 tick, so
    ETALIS ``(…).1`` and EP-SPARQL ``getDURATION() <= 1`` find it, but no even ``u`` lies in ``[b, a + T] = [3, 3]``
    and CQELS-CEP never answers it; p@1, q@2 (``u = 2`` in ``[2, 2]``) is answered at t = 2 and 3."""
    late, early = [ev("a", "p", 1, 2), ev("a", "q", 2, 3)], [ev("a", "p", 1, 1), ev("a", "q", 2, 2)]
    assert set(etalis_matches(late, P_Q, 1)) == epsparql_matches(late, P_Q, 1) == {(M, (2, 3))}
    for kind in CQELS_EVALUATORS:
        assert cqels_answers(late, P_Q, 1, slide=2, kind=kind) == set(), kind
        assert cqels_answers(early, P_Q, 1, slide=2, kind=kind) == {(2, M, (1, 2)), (3, M, (1, 2))}, kind


def test_difference_multi_triple_element_is_one_event_graph():
    """``SEQ({?s :p ?x . ?s :r ?z}, {?s :q ?y})`` with p@1, r@2, q@3 as three events: EP-SPARQL joins p and r into
    their hull ``[1, 2]`` (``{?s :p ?x . ?s :r ?z}``) and so does ETALIS ``(p and r) seq q``: both match ``[1, 3]``;
    in CQELS-CEP a BGP matches inside one event's graph (docs/semantics/cqels.md#cqels-G9), so there is no answer,
    and under ``bgp_scope = join`` the BGP's JOIN intersects ``[1, 1]`` and ``[2, 2]``: no answer either.  With p
    and r in one event graph at 1 all three give ``[1, 3]``."""
    seq = [[("?s", "p", "?x"), ("?s", "r", "?z")], [("?s", "q", "?y")]]
    m = (("s", "a"), ("x", 1), ("y", 2), ("z", 0))
    apart = [ev("a", "p", 1, 1), ev("a", "r", 0, 2), ev("a", "q", 2, 3)]
    together = [((("a", "p", 1), ("a", "r", 0)), 1, 1), ev("a", "q", 2, 3)]
    for events, want_cqels in ((apart, set()), (together, {(m, (1, 3))})):
        assert epsparql_matches(events, seq, 5) == set(etalis_matches(events, seq, 5)) == {(m, (1, 3))}
        for kind in CQELS_EVALUATORS:
            assert ever(cqels_answers(events, seq, 5, kind=kind)) == want_cqels, kind
            join = cqels_answers(events, seq, 5, kind=kind, options=Options(bgp_scope="join"))
            assert ever(join) == want_cqels, kind
