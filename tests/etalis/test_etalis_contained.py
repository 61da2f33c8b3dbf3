"""ETALIS engine: ``during_result="contained"`` in programs with both ``during`` and ``not(..)``
(docs/semantics/etalis.md#etalis-A5, #etalis-9.5.9).

A contained DURING result ``<s1,e1>`` is completed by a container ending later, so it can be derived after the clock
passed its end; as a blocker of a NOT it can then arrive after the gap it blocks.  The engine holds the results of
the rules that depend on such a NOT and decides them at ``close()`` by the alternating fixpoint (well-founded
model); everything else is emitted live.  Reference: the clingo oracle (``asp/etalis.py``), which answers with the
unique answer set or raises ``ModelError``.
"""
from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ceplab.asp.etalis import oracle
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.engine.etalis import evaluator
from ceplab.engine.etalis.evaluate import late_analysis
from ceplab.semantics.errors import ModelError, ParseError, UnsupportedError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse, parse_term
from ceplab.semantics.etalis.streams import StreamEvent
from ceplab.workbench.compare import compare
from ceplab.workbench.language import get
from ceplab.workbench.langs.etalis import _has_during, _has_not
from ceplab.workbench.langs.etalis.generators import etalis_options, etalis_programs, etalis_streams

FAST = Limits(time_s=30, isolate=False)
C = Options(during_result="contained")
MINIMAL = "r <- not(c).[(a) during (b), d]."
LATE = "c <- x during y. r <- not(c).[a, d]. s <- a seq d."
L = get("etalis")


def stream(text: str) -> list[StreamEvent]:
    """``"a@1 b@2 p@3-5"`` -> stream events (point, or ``start-end`` interval), in file order (ends must not
    decrease)."""
    out = []
    for i, tok in enumerate(text.split()):
        atom, t = tok.rsplit("@", 1)
        s, _, e = t.partition("-")
        term = parse_term(atom)
        ea = A.EventAtom(term.name, ()) if isinstance(term, A.Sym) else A.EventAtom(term.functor, term.args)
        out.append(StreamEvent(ea, int(s), int(e or s), i))
    assert [e.end for e in out] == sorted(e.end for e in out)
    return out


def emissions(rules: str, evs: list, options: Options = C) -> list:
    """``(result, index of the push that emitted it, or None for close())``; each result once."""
    ev = evaluator(parse(rules), options)
    out = [(r, i) for i, e in enumerate(evs) for r in ev.push(e)]
    out += [(r, None) for r in ev.close()]
    assert len(out) == len({r for r, _ in out}), out
    return out


def oracle_set(rules: str, evs: list, options: Options = C) -> set:
    res = oracle(parse(rules), evs, options, FAST)
    assert isinstance(res, OracleResult), res
    return set(res.results)


def check(rules: str, evs: list, options: Options = C) -> None:
    """Engine == oracle under the workbench comparison (result sets, each result once, emission positions)."""
    rep = compare(L, L.parse(rules), evs, options, FAST)
    assert rep.undecided is None and rep.agree, (rules, [str(e) for e in evs], rep.summary(), rep.problems)


# ------------------------------------------------------------------------------------------------ the minimal case
def test_minimal_case_blocker_from_the_stream_is_decided_live():
    """``r <- not(c).[(a) during (b), d].``: the contained DURING is a delimiter, the blocker ``c`` a stream event,
    which is final when the gap is checked; so nothing is held and r comes with the container b that completes it
    (after the clock passed r's end)."""
    ev = evaluator(parse(MINIMAL), C)
    assert "close()" not in ev.path and not ev.held_rules
    free = stream("a@2-3 d@5 b@1-6")
    assert oracle_set(MINIMAL, free) == {("r", 2, 5)}
    assert emissions(MINIMAL, free) == [(("r", 2, 5), 2)]            # at b@1-6
    blocked = stream("a@2-3 c@4 d@5 b@1-6")
    assert oracle_set(MINIMAL, blocked) == set()
    assert emissions(MINIMAL, blocked) == []
    for evs in (free, blocked, stream("b@0 a@1-2 c@3 d@4 b@0-5 d@6 a@5-6 b@4-7")):
        check(MINIMAL, evs)


def test_minimal_case_literal_reading_is_held():
    """Read literally (Figure 2 on hulls), the NOT of the minimal case is unsettled by its late delimiter (a later
    gap with the same hull can hide a released one), so r is held to close()."""
    lit = dataclasses.replace(C, not_reading="literal")
    assert "close()" in evaluator(parse(MINIMAL), lit).path
    free = stream("a@2-3 a@2-4 d@6 b@1-7")
    assert emissions(MINIMAL, free, lit) == [(("r", 2, 6), None)]
    assert oracle_set(MINIMAL, free, lit) == {("r", 2, 6)}
    hidden = stream("a@2-3 a@2-4 c@4 d@6 b@1-7")        # c@4 blocks the gap after p2<2,3>, not the one after <2,4>
    assert oracle_set(MINIMAL, hidden, lit) == set() and emissions(MINIMAL, hidden, lit) == []
    assert oracle_set(MINIMAL, hidden) == {("r", 2, 6)} == {r for r, _ in emissions(MINIMAL, hidden)}
    for evs in (free, hidden):
        check(MINIMAL, evs, lit)


# ------------------------------------------------------------------------------------------------ late blockers
def test_a_late_blocker_invalidates_the_not_result():
    """c<3,4> = x during y is derived only at y@2-6, after the gap (a@1, d@5) it blocks was formed at d@5: emitting
    r<1,5> there (as the engine did for contained programs without holding) would be wrong.  r is held; the rule
    s, which depends on no unsettled NOT, is emitted live."""
    evs = stream("a@1 x@3-4 d@5 y@2-6")
    assert oracle_set(LATE, evs) == {("c", 3, 4), ("s", 1, 5)}
    assert emissions(LATE, evs) == [(("s", 1, 5), 2), (("c", 3, 4), 3)]
    check(LATE, evs)


def test_a_late_container_that_does_not_contain_leaves_the_result():
    """y@3-6 does not contain x@3-4 (s2 < s1 fails): no blocker, r<1,5> holds and is emitted at close()."""
    evs = stream("a@1 x@3-4 d@5 y@3-6")
    assert oracle_set(LATE, evs) == {("r", 1, 5), ("s", 1, 5)}
    assert emissions(LATE, evs) == [(("s", 1, 5), 2), (("r", 1, 5), None)]
    check(LATE, evs)


def test_held_rules_and_late_analysis():
    """r depends on a NOT whose blocker c is a contained DURING result; s and c do not."""
    ev = evaluator(parse(LATE), C)
    assert ev.held_rules == {1}
    assert "decided at close()" in ev.path and "outside the incremental guarantee" in ev.path
    assert [n.id for n in ev.unsettled_nots] == [n.id for n in ev.nodes if n.kind == "Not"]
    assert late_analysis(ev.nodes, ev.roots)[2] == {1}
    assert not evaluator(parse(LATE), Options()).held_rules          # container: stratified, nothing held


def test_a_result_held_through_a_derived_predicate():
    """t uses r (held) as a delimiter: t is held too; u uses only s: live."""
    rules = LATE + " t <- r seq e. u <- s seq e."
    evs = stream("a@1 x@3-4 d@5 y@3-6 e@7 a@8 x@9-10 d@11 e@12 y@8-13")
    got = emissions(rules, evs)
    assert {r for r, _ in got} == oracle_set(rules, evs)
    assert all(i is None for r, i in got if r[0] in ("r", "t")) and any(r[0] == "t" for r, _ in got)
    assert all(i is not None for r, i in got if r[0] in ("s", "u"))
    check(rules, evs)


# ------------------------------------------------------------------------------------------------ no unique model
NO_MODEL = "a <- a1 seq a2. x <- a during not(x).[b, c]."
TWO_MODELS = "a <- a1 seq a2.\nx <- a during not(y).[b, c].\ny <- a during not(x).[b, c].\nz <- a seq c."
ODD_KILLS_ONE = TWO_MODELS + "\nz2 <- y and (a during not(z2).[b, c])."


@pytest.mark.parametrize("rules,count", [(NO_MODEL, 0), (TWO_MODELS, 2)])
def test_negative_cycle_raises_model_error_as_the_oracle(rules, count):
    """x blocks itself (no answer set), x and y block each other (two): the oracle raises ModelError; the engine,
    whose well-founded model is not total there, raises it too (at close(), with the same count and rules)."""
    evs = stream("b@1 a1@2 a2@3 c@4")
    with pytest.raises(ModelError) as want:
        oracle(parse(rules), evs, C, FAST)
    ev = evaluator(parse(rules), C)
    for e in evs:
        assert all(r[0] not in ("x", "y") for r in ev.push(e))     # nothing of the cycle emitted live
    with pytest.raises(ModelError) as got:
        ev.close()
    assert got.value.count == want.value.count == count
    assert set(got.value.rules) == set(want.value.rules)


def test_undefined_well_founded_model_with_one_answer_set():
    """x and y block each other; z2 <- y and not(z2) kills the answer set with y: the well-founded model leaves
    x, y undefined, yet there is exactly one answer set ({x}), which the oracle answers and the engine finds by
    its search over the undefined blocking atoms."""
    for text in ("b@1 a1@2 a2@3 c@4", "b@1 a1@2 a2@3 c@4 b@5 a1@6 a2@7 c@8"):
        evs = stream(text)
        want = oracle_set(ODD_KILLS_ONE, evs)
        assert ("x", 2, 3) in want and not any(r[0] in ("y", "z2") for r in want)
        assert {r for r, _ in emissions(ODD_KILLS_ONE, evs)} == want


# ------------------------------------------------------------------------------------------------ differential
#: rules that put a contained DURING into the negated part or the delimiters of a NOT, over the generated heads
BRIDGES = (
    "dc(X) <- (a(X)) during (b(_)). dn(X) <- not(dc(X)).[a(X), c(X)].",
    "dc(X) <- (d0(X)) during (b(_)). dn(X) <- not(dc(_)).[a(X), d0(X)].",
    "dn(X) <- not(c(X)).[(a(X)) during (d0(_)), b(X)].",
    "dn(X) <- (a(X)) during (not(dn(_)).[a(X), c(X)]).",
    "dc(X) <- (a(X)) during (b(X)). dn(X) <- not(dc(X)).[a(X), c(X)]. de(X) <- (dn(X)) and (d0(X)).",
)


#: stream durations with long intervals, so that containers (and hence contained DURING results) are common
DURATIONS = (0, 0, 1, 2, 3, 5, 7)


@st.composite
def planted_streams(draw) -> list[StreamEvent]:
    """A random stream (:func:`etalis_streams`, long intervals) with a planted late blocker: ``a(1)<s0,s0>``,
    ``a(1)<s1,e1>`` inside a container ``b(1)<sb,eb>`` that ends after ``c(1)<s3,s3>`` (``sb < s1``, ``s0 < s1 <
    e1 < s3 < eb``): under the bridge rules, a contained DURING result strictly inside the gap between the ``a`` and
    the ``c``, derived only when the container arrives, after the gap was formed.  Ordered by end, positions
    renumbered."""
    noise = draw(etalis_streams(0, 6, durations=DURATIONS))
    s0 = draw(st.integers(0, 2))
    s1 = s0 + draw(st.integers(1, 2))
    e1 = s1 + draw(st.integers(1, 2))
    s3 = e1 + draw(st.integers(1, 2))
    sb = draw(st.integers(max(0, s1 - 3), s1 - 1))
    eb = s3 + draw(st.integers(1, 2))
    x = A.Num(1)
    plant = [StreamEvent(A.EventAtom("a", (x,)), s0, s0, 0), StreamEvent(A.EventAtom("a", (x,)), s1, e1, 0),
             StreamEvent(A.EventAtom("c", (x,)), s3, s3, 0), StreamEvent(A.EventAtom("b", (x,)), sb, eb, 0)]
    evs = sorted(noise + plant, key=lambda e: e.end)
    return [dataclasses.replace(e, position=i) for i, e in enumerate(evs)]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(etalis_programs(max_rules=2), st.sampled_from(BRIDGES + ("",)),
       st.one_of(planted_streams(), etalis_streams(2, 9, durations=DURATIONS)), etalis_options())
def test_differential_contained_during_and_not(rules, bridge, evs, options):
    """Engine == oracle (workbench compare: sets, each result once, positions) on random programs with both
    ``during`` and ``not`` under ``during_result="contained"`` (a random program plus a rule pair that puts a
    contained DURING under a NOT), every policy and reading; where the unrestricted oracle finds no unique answer
    set the engine must raise ModelError too."""
    text = rules + "\n" + bridge
    try:
        prog = L.parse(text)
    except ParseError:
        assume(False)
    assume(_has_during(prog) and _has_not(prog))
    opts = dataclasses.replace(options, during_result="contained")
    try:
        rep = compare(L, prog, evs, opts, FAST)
    except ModelError:
        assert opts.policy == "unrestricted"
        with pytest.raises(ModelError):
            evaluator(prog, opts).run(evs)
        return
    except UnsupportedError:            # the oracle's compiler refuses (e.g. arithmetic it cannot encode)
        assume(False)
    assert rep.undecided is None and rep.agree, (text, [str(e) for e in evs], opts, rep.summary(), rep.problems)


def test_fuzz_cases_draw_contained_with_during_and_not():
    """The campaign's case generator keeps ``during_result="contained"`` for programs with both ``during`` and
    ``not`` (it used to switch them to ``container``), and the engine agrees with the oracle on them."""
    cases = [L.random_case(random.Random(i), 8) for i in range(1000)]
    both = [(t, s, o) for t, s, o in cases if o.during_result == "contained"
            and _has_during(L.parse(t)) and _has_not(L.parse(t))]
    assert len(both) >= 5, len(both)
    for t, s, o in both:
        try:
            rep = compare(L, L.parse(t), s, o, FAST)
        except ModelError:
            continue
        assert rep.undecided is None and rep.agree, (t, [str(e) for e in s], o, rep.summary(), rep.problems)


@pytest.mark.parametrize("policy", ["chronological", "recent", "recent_lifo"])
def test_policies_answer_contained_during_and_not(policy):
    """Under a consumption policy the NOT is checked when the end delimiter arrives (ETALIS-P, step-indexed), so a
    late blocker does not block: the policy engine answers these programs, as the policy oracle does, live."""
    opts = dataclasses.replace(C, policy=policy)
    evs = stream("a@1 x@3-4 d@5 y@2-6")
    assert ("r", 1, 5) in oracle_set(LATE, evs, opts)
    assert (("r", 1, 5), 2) in emissions(LATE, evs, opts)
    for rules in (LATE, MINIMAL, TWO_MODELS):
        for evs in (stream("a@1 x@3-4 d@5 y@2-6 a@7 d@8"), stream("b@0 a@1-2 c@3 d@4 b@0-5"),
                    stream("b@1 a1@2 a2@3 c@4")):
            check(rules, evs, opts)


def test_well_founded_on_a_prefix_equals_the_oracle():
    """well_founded() decides the stream pushed so far (the prefix), as the oracle on that prefix."""
    evs = stream("a@1 x@3-4 d@5 y@2-6 a@7 d@8")
    ev = evaluator(parse(LATE), C)
    for k, e in enumerate(evs):
        ev.push(e)
        assert ev.well_founded() == oracle_set(LATE, evs[:k + 1]), k
    with pytest.raises(RuntimeError):
        evaluator(parse(LATE), Options()).well_founded()
