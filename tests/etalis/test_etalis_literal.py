"""ETALIS engine: ``not_reading="literal"`` (Figure 2 on hulls, docs/semantics/etalis.md#etalis-A7, #etalis-T6b).

The engine holds a literal NOT result at ``t`` until the time step ``t`` is complete (a later event at ``t``
can hide it), then releases the unblocked hulls by decreasing start (engine/etalis/evaluate.py). References:
the clingo oracle (``blkl``, asp/etalis.lp) and the paper's worked example T6b.
"""
from __future__ import annotations

import dataclasses
import random

from ceplab.asp.etalis import oracle
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.etalis import evaluator
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse, parse_term
from ceplab.semantics.etalis.streams import StreamEvent
from ceplab.workbench.compare import compare
from ceplab.workbench.generators import RandomChooser
from ceplab.workbench.language import get
from ceplab.workbench.langs.etalis.generators import gen_etalis_stream, gen_hull_not_rule

FAST = Limits(time_s=30, isolate=False)
LIT = Options(not_reading="literal")
T6B = "p2 <- x seq y. r <- not(c).[p2, z]."


def stream(text: str) -> list[StreamEvent]:
    """``"a@1 b(1)@2 p@3-5"`` -> stream events (point, or ``start-end`` interval), in file order (ends must not
    decrease)."""
    out = []
    for i, tok in enumerate(text.split()):
        atom, t = tok.rsplit("@", 1)
        s, _, e = t.partition("-")
        term = parse_term(atom)
        ea = A.EventAtom(term.name, ()) if isinstance(term, A.Sym) else A.EventAtom(term.functor, term.args)
        out.append(StreamEvent(ea, int(s), int(e or s), i))
    return out


def emissions(rules: str, evs: list, options: Options = LIT) -> list:
    """``(result, index of the push that emitted it, or None for close())``."""
    ev = evaluator(parse(rules), options)
    out = [(r, i) for i, e in enumerate(evs) for r in ev.push(e)]
    out += [(r, None) for r in ev.close()]
    assert len(out) == len({r for r, _ in out}), out
    return out


def oracle_set(rules: str, evs: list, options: Options = LIT) -> set:
    res = oracle(parse(rules), evs, options, FAST)
    assert isinstance(res, OracleResult), res
    return set(res.results)


def heads(res, head: str) -> set:
    return {(s, e) for a, s, e in res if a == head}


def test_t6b_literal_hides_the_unblocked_pair():
    """docs/semantics/etalis.md#etalis-T6b: per witness r<1,8> (via p2<1,5>); literally the blocked pair via
    p2<1,2> hides it."""
    evs = stream("x@1 y@2 c@3 y@5 z@8")
    assert heads(oracle_set(T6B, evs), "r") == set()
    assert heads((r for r, _ in emissions(T6B, evs)), "r") == set()
    assert heads((r for r, _ in emissions(T6B, evs, Options())), "r") == {(1, 8)}
    assert "literal NOT" in evaluator(parse(T6B), LIT).path


def test_a_later_event_at_the_same_time_hides_a_result():
    """z<3,8> alone gives the unblocked gap (p2<1,2>, z<3,8>); z<7,8>, later at the same time 8, brings the
    blocked gap (p2<1,2>, z<7,8>) with the same hull <1,8>: no r. Emitting r at z<3,8> would have been wrong;
    without the second z, r<1,8> comes when the time step 8 is complete."""
    hidden = stream("x@1 y@2 c@3 y@5 z@3-8 z@7-8 w@9")
    assert heads(oracle_set(T6B, hidden), "r") == set()
    assert heads((r for r, _ in emissions(T6B, hidden)), "r") == set()
    shown = stream("x@1 y@2 c@3 y@5 z@3-8 w@9")
    assert heads(oracle_set(T6B, shown), "r") == {(1, 8)}
    assert [(r, i) for r, i in emissions(T6B, shown) if r[0] == "r"] == [(("r", 1, 8), 5)]  # at w@9
    assert [(r, i) for r, i in emissions(T6B, shown[:5]) if r[0] == "r"] == [(("r", 1, 8), None)]
    assert [(r, i) for r, i in emissions(T6B, shown[:5], Options()) if r[0] == "r"] == [(("r", 1, 8), 4)]


def test_release_by_decreasing_start_feeds_a_second_literal_not():
    """Released literal results at t are p3 instances of another literal NOT at the same t. On
    ``x@0 x@1 c@2 x@3 y@4 z@5-8``: r<3,8>, r<1,8>, r<0,8>; for q = not(c).[x, r] the gap (x@0, r<1,8>) is
    unblocked but (x@0, r<3,8>) is blocked by c@2, so literally q<0,8> is hidden (per witness it holds).
    Releasing r<1,8> before r<3,8> would emit q<0,8> too early; by decreasing start it never is."""
    rules = T6B + " q <- not(c).[x, r]. s <- r and z."
    evs = stream("x@0 x@1 c@2 x@3 y@4 z@5-8 w@9")
    want = oracle_set(rules, evs)
    got = emissions(rules, evs)
    assert {r for r, _ in got} == want
    assert heads(want, "r") == heads(want, "s") == {(0, 8), (1, 8), (3, 8)} and heads(want, "q") == set()
    assert heads(oracle_set(rules, evs, Options()), "q") == {(0, 8)}
    assert all(i == 6 for r, i in got if r[2] == 8)              # all at w@9
    evs = stream("x@0 x@2 c@3 y@4 y@5 z@6-8 w@9")                   # q<0,8> via r<2,8>, released first
    assert heads((r for r, _ in emissions(rules, evs)), "q") == heads(oracle_set(rules, evs), "q") == {(0, 8)}


def test_generated_literal_cases_equal_oracle():
    """Engine == oracle (result sets and emission positions, workbench compare) on the generator's hull-NOT
    rules over a and b, under the literal reading; a good share of the cases differ from the default
    reading, so the test can tell the two apart."""
    L = get("etalis")
    differ = 0
    for i in range(80):
        ch = RandomChooser(random.Random(i))
        rules = gen_hull_not_rule(ch)
        evs = gen_etalis_stream(ch, 10, atoms=("a", "b"))
        opts = LIT if i % 4 else dataclasses.replace(LIT, not_local_vars="free")
        rep = compare(L, L.parse(rules), evs, opts)
        assert rep.undecided is None and rep.agree, (rules, [str(e) for e in evs], rep.summary(), rep.problems)
        differ += oracle_set(rules, evs, opts) != oracle_set(rules, evs, dataclasses.replace(
            opts, not_reading="per_witness"))
    assert differ >= 8, differ


def test_fuzz_cases_draw_literal():
    """The campaign's case generator draws ``not_reading="literal"``, and programs with a ``not``."""
    L = get("etalis")
    cases = [L.random_case(random.Random(i), 8) for i in range(200)]
    lit = [c for c in cases if c[2].not_reading == "literal"]
    assert len(lit) >= 30 and sum("not(" in c[0] for c in lit) >= 10
