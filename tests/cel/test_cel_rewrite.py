"""The syntactic rewritings of paper section 5 / Appendix B (semantics/cel/rewrite.py), checked
against the clingo oracle (asp/cel.py): "LP-normal and safe rewritings preserve the oracle's
answers" (docs/semantics/cel.md#cel-7 items 3, 5, 6, 13; G3, G7, G17)."""
import re
from itertools import product

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ceplab.asp.cel import oracle
from ceplab.asp.oracle import Limits, Undecided
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.analysis import (WellFormednessError, bound, check_well_formed, is_lp_normal,
                                    is_safe, is_unary, vdef, vdef_plus)
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.cel.rewrite import (MAX_NODES, alpha_rename, disjuncts, dnf, dnf_size,
                                   engine_form, lp_normal_form, safe_rewrite, simplify,
                                   split_filters)
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.events import Stream
from ceplab.workbench.langs.cel.generators import (HypothesisChooser, cel_cases, cel_formulas, cel_streams,
                                  gen_cel_pred)

LIMITS = Limits(time_s=60, isolate=False)  # tiny cases: skip the per-call fork


def sem(f, stream, strategy="ALL", within=None):
    """The oracle's answer for a formula (or query); the tiny cases here must be decided (an undecided oracle
    would make every comparison below vacuous)."""
    q = f if isinstance(f, A.Query) else A.Query(f, strategy, within)
    r = oracle(q, stream, limits=LIMITS)
    assert not isinstance(r, Undecided), (str(q), r)
    return r.results


def same(f, g, stream, **kw) -> bool:
    return sem(f, stream, **kw) == sem(g, stream, **kw)


def S(word: str) -> Stream:
    """``"A0 B1 A2"`` -> stream of (type, {"v": value})."""
    return Stream.of([(tok[0], {"v": int(tok[1:])}) for tok in word.split()])


def strip(name: str) -> str:
    return re.sub(r"__\d+$", "", name)


def binary_cmps(f) -> set:
    return {(strip(c.var), c.attr, c.op, strip(c.var2), c.attr2)
            for g in A.subformulas(f) if isinstance(g, A.Filter)
            for c in A.pred_atoms(g.pred) if isinstance(c, A.Cmp2) and c.var != c.var2}


def or_outside_plus(f) -> bool:
    if isinstance(f, A.Or):
        return True
    if isinstance(f, A.Plus):
        return False
    return any(or_outside_plus(c) for c in A.children(f))


def unsafe_outside_plus(f) -> bool:
    if isinstance(f, A.Plus):
        return False
    if isinstance(f, A.Seq) and vdef_plus(f.left) & vdef_plus(f.right):
        return True
    return any(unsafe_outside_plus(c) for c in A.children(f))


def is_dnf(f) -> bool:
    def body_ok(g):
        return all(is_dnf(h.body) for h in A.subformulas(g) if isinstance(h, A.Plus))
    return all(not or_outside_plus(d) and body_ok(d) for d in disjuncts(f))


# a formula pool that makes unsafe formulas (and hence dropped disjuncts) common
UNSAFE_FORMULAS = cel_formulas(p_unsafe=0.4, p_filter=0.4)
STREAMS = cel_streams(min_len=1, max_len=6)


# ================================================================ the properties of the issue
@given(UNSAFE_FORMULAS, STREAMS)
def test_safe_rewrite_preserves_oracle_answers_and_is_safe(f, s):
    g = safe_rewrite(f)
    assert is_safe(g) and is_dnf(g)
    check_well_formed(g)
    assert same(f, g, s)


@given(cel_formulas(p_filter=0.5), STREAMS)
def test_lp_normal_form_preserves_oracle_answers_and_is_lp_normal(f, s):
    g = lp_normal_form(f)
    assert is_lp_normal(g)
    check_well_formed(g)
    if is_safe(f):
        assert is_safe(g)
    if not any(isinstance(c, A.Cmp2) and c.var != c.var2
               for h in A.subformulas(f) if isinstance(h, A.Filter) for c in A.pred_atoms(h.pred)):
        assert is_unary(g)  # multi-variable unary-comparison filters are split (AND/OR sugar)
    assert same(f, g, s)


@given(cel_cases(min_len=1, max_len=6, p_unsafe=0.3, p_filter=0.4))
def test_engine_form_preserves_query_answers(case):
    q, s = case
    g = engine_form(q.formula)
    assert is_safe(g) and is_lp_normal(g)
    check_well_formed(g)
    assert binary_cmps(g) <= binary_cmps(q.formula)  # binary filters are left alone
    assert same(q, A.Query(g, q.strategy, q.within), s)


@given(UNSAFE_FORMULAS, STREAMS)
def test_alpha_rename_and_dnf_preserve_oracle_answers(f, s):
    r = alpha_rename(f)
    d = dnf(f)
    assert is_dnf(d) and A.size(d) == dnf_size(f)
    check_well_formed(r)
    check_well_formed(d)
    want = sem(f, s)
    assert sem(r, s) == want
    assert sem(d, s) == want


@given(UNSAFE_FORMULAS, STREAMS)
def test_dropped_disjuncts_are_unsatisfiable(f, s):
    """Lemma B.12 (docs/semantics/cel.md#cel-7 item 5): a DNF disjunct with an unsafe ``;`` outside ``+`` has no
    output on any stream."""
    for d in disjuncts(dnf(alpha_rename(f))):
        if unsafe_outside_plus(d):
            assert sem(d, s) == frozenset()


# ================================================================ structural properties (no oracle)
@given(cel_formulas(p_filter=0.5))
def test_alpha_rename_structure(f):
    r = alpha_rename(f)
    assert alpha_rename(f) == r  # deterministic
    assert [a.rel for a in A.atoms(r)] == [a.rel for a in A.atoms(f)]
    pluses = [g for g in A.subformulas(r) if isinstance(g, A.Plus)]
    top = vdef_plus(r)
    seen: set = set(top)
    for p in pluses:
        local = vdef_plus(p.body)
        assert not local & seen, "+ bodies define disjoint fresh names"
        seen |= local
        assert all(re.fullmatch(r"\w+__\d+", x) for x in local)
        inside = {id(h) for h in A.subformulas(p)}
        for h in A.subformulas(r):
            if id(h) not in inside:
                names = {h.var} if isinstance(h, A.Atom) else (
                    A.pred_vars(h.pred) if isinstance(h, A.Filter) else set())
                assert not names & local, "a +-local name escapes its body"


@given(cel_formulas(p_filter=0.5, p_unsafe=0.3))
def test_engine_form_is_a_fixpoint_up_to_renaming(f):
    g = engine_form(f)
    assert is_safe(g) and is_lp_normal(g)
    h = lp_normal_form(safe_rewrite(g), rename=False)
    assert is_safe(h) and is_lp_normal(h)


def test_dnf_size_is_exact_and_cheap():
    f = parse(" ; ".join(f"(A AS a{i} OR B AS b{i})" for i in range(40))).formula
    n = dnf_size(f)
    assert n > 2 ** 40  # computed arithmetically, never built
    with pytest.raises(UnsupportedError, match="disjunctive normal form"):
        dnf(f)
    with pytest.raises(UnsupportedError):
        safe_rewrite(f)
    with pytest.raises(UnsupportedError):
        engine_form(f)
    small = parse("((A AS x OR B AS y) ; (C AS z OR A AS z)) FILTER z.v = 1").formula
    assert A.size(dnf(small)) == dnf_size(small)
    assert len(disjuncts(dnf(small))) == 4


def test_lp_size_guard():
    # every filter on x sits in its own OR branch, so each pop-up doubles the whole formula
    parts = [f"((B AS y{i} FILTER x.v {op} {v}) OR C AS z{i})"
             for i, (op, v) in enumerate(product(A.OPS, (0, 1, 2)))][:12]
    f = parse("A AS x ; " + " ; ".join(parts)).formula
    with pytest.raises(UnsupportedError, match="LP-normal form"):
        lp_normal_form(f, max_nodes=2_000)
    assert MAX_NODES == 10_000


# ================================================================ FalseF, AND, simplification
def test_all_unsafe_gives_false():
    f = parse("A AS x ; A AS x").formula
    assert safe_rewrite(f) == A.FalseF() and engine_form(f) == A.FalseF()
    f = parse("(A AS x ; A AS x)+ ; B AS y").formula
    assert safe_rewrite(f) == A.FalseF()  # FalseF+ = FalseF, absorbing for ;
    f = parse("((A AS x ; A AS x) OR C AS z)+ ; B AS y").formula
    assert safe_rewrite(f) == parse("(C AS z)+ ; B AS y").formula


def test_unsafe_only_in_one_branch():
    """docs/semantics/cel.md#cel-6.5: ``(A AS x OR B AS y) ; C AS x`` outputs {0,1} on B C and nothing on A C."""
    f = parse("(A AS x OR B AS y) ; C AS x").formula
    g = safe_rewrite(f)
    assert g == parse("B AS y ; C AS x").formula
    for w, want in [("B0 C0", {(0, 1)}), ("A0 C0", set())]:
        assert sem(f, S(w)) == sem(g, S(w)) == want


def test_false_and_true_simplification():
    F, T = A.PFalse(), A.PTrue()
    a, b = A.Atom("A", "x"), A.Atom("B", "y")
    assert simplify(A.Or(A.Filter(a, F), b)) == b
    assert simplify(A.Seq(a, A.Filter(b, A.PNot(T)))) == A.FalseF()
    assert simplify(A.Plus(A.Filter(a, A.PAnd(F, A.Cmp("x", "v", "=", 1))))) == A.FalseF()
    assert simplify(A.And(a, A.FalseF())) == A.FalseF()
    assert simplify(A.Filter(a, A.POr(T, A.Cmp("x", "v", "=", 1)))) == a
    # NOT x.v < 1 is not folded into x.v >= 1 (missing attributes, docs/semantics/cel.md#cel-G6)
    p = A.PNot(A.Cmp("x", "v", "<", 1))
    assert simplify(A.Filter(a, p)) == A.Filter(a, p)
    # a FALSE-filtered atom kills its branch in the LP form
    f = parse("(A AS x FILTER x.v = 0 AND NOT (x.v = 0)) OR B AS y").formula
    assert lp_normal_form(f) == b


def test_and_is_distributed_and_filters_reach_both_sides():
    # shared variables across AND are refused by the parser (the extension needs distinct ones),
    # but the rewrites are defined on every formula: parse without the check
    f = parse("((A AS x OR B AS x) AND A AS x) FILTER x.v = 1", check=False).formula
    d = dnf(f)
    assert disjuncts(d) == [parse("(A AS x AND A AS x) FILTER x.v = 1", check=False).formula,
                            parse("(B AS x AND A AS x) FILTER x.v = 1", check=False).formula]
    with pytest.raises(WellFormednessError):  # the engine form needs distinct AND variables
        engine_form(f)
    f = parse("((A AS x OR B AS x) AND A AS y) FILTER x.v = 1").formula
    g = engine_form(f)
    assert is_lp_normal(g)
    for w in ["A1", "A0", "B1", "A1 A1 B1"]:
        assert sem(f, S(w)) == sem(g, S(w))
    # an unsafe ; inside AND still empties its disjunct (Lemma B.8 holds for AND)
    f = parse("(A AS x ; B AS x) AND (A AS y ; B AS z)", check=False).formula
    assert safe_rewrite(f) == A.FalseF()


def test_split_filters_sugar():
    f = parse("(A AS x ; B AS y) FILTER (x.v = 0 OR y.v = 1)").formula
    g = split_filters(f)
    assert not is_unary(f) and is_unary(g)
    assert sorted(map(str, disjuncts(g))) == ["((A AS x ; B AS y) FILTER (x.v = 0))",
                                              "((A AS x ; B AS y) FILTER (y.v = 1))"]
    f = parse("(A AS x ; B AS y) FILTER (x.v = y.v AND x.v > 0 AND y.v < 2)").formula
    g = lp_normal_form(f)
    assert str(g) == ("(((A AS x FILTER (x.v > 0)) ; (B AS y FILTER (y.v < 2))) "
                      "FILTER (x.v = y.v))")
    for w in ["A1 B1", "A0 B0", "A2 B2", "A1 A2 B1 B2"]:
        assert sem(f, S(w)) == sem(g, S(w))


# ================================================================ paper examples (docs/semantics/cel.md#cel-6)
FIG1 = Stream.of([("H", {"id": 2, "hum": 25}), ("T", {"id": 0, "temp": 45}),
                  ("H", {"id": 0, "hum": 20}), ("H", {"id": 1, "hum": 25}),
                  ("T", {"id": 1, "temp": 40}), ("T", {"id": 0, "temp": 42}),
                  ("T", {"id": 1, "temp": 25}), ("H", {"id": 1, "hum": 70}),
                  ("H", {"id": 0, "hum": 18})])
PHI = {
    1: "(T AS x ; H AS y) FILTER (x.temp > 40 AND y.hum < 25 AND x.id = 0 AND y.id = 0)",
    2: "((T AS x ; H AS y) OR (H AS y ; T AS x)) "
       "FILTER (x.temp > 40 AND y.hum < 25 AND x.id = 0 AND y.id = 0)",
    3: "(H AS x ; (T AS y FILTER y.id = 1)+ ; H AS z) "
       "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = 1 AND z.id = 1)",
    4: "(H AS x ; (T AS y FILTER y.id = x.id)+ ; H AS z) "
       "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = z.id)",
}
EXPECTED = {1: {(1, 2), (1, 8), (5, 8)}, 2: {(1, 2), (1, 8), (5, 8), (2, 5)},
            3: {(3, 4, 6, 7), (3, 4, 7), (3, 6, 7)}, 4: {(3, 4, 6, 7), (3, 4, 7), (3, 6, 7)}}


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_paper_examples_survive_every_rewrite(k):
    f = parse(PHI[k]).formula
    assert sem(f, FIG1) == EXPECTED[k]
    for fn in (alpha_rename, dnf, safe_rewrite, lp_normal_form, engine_form):
        g = fn(f)
        assert sem(g, FIG1) == EXPECTED[k], fn.__name__
    g = engine_form(f)
    assert is_unary(g) == (k != 4)


def test_phi1_lp_form_is_the_papers():
    g = lp_normal_form(parse(PHI[1]).formula)
    assert g == parse("(T AS x FILTER x.temp > 40 AND x.id = 0) ; "
                      "(H AS y FILTER y.hum < 25 AND y.id = 0)").formula


def test_phi4_keeps_its_correlation():
    g = engine_form(parse(PHI[4]).formula)
    assert str(g) == ("((((H AS x FILTER (x.hum < 30)) ; ((T AS y__1 FILTER (y__1.id = x.id)))+) ; "
                      "(H AS z FILTER (z.hum > 60))) FILTER (x.id = z.id))")


def test_conditional_formula_needs_the_case_split():
    """docs/semantics/cel.md#cel-4.3: unary filters on x and y coupled through OR (pop-up with TRUE/FALSE split)."""
    f = parse("(A AS x ; (A AS y OR B AS y)) FILTER ((x.v > 0 AND y.v = 1) OR "
              "(x.v = 0 AND NOT (y.v = 1)))").formula
    g = engine_form(f)
    assert is_unary(g) and is_lp_normal(g) and is_safe(g)
    words = [" ".join(w) for w in product(["A0", "A1", "B1", "B2"], repeat=3)]
    for w in words[::3]:
        assert sem(f, S(w)) == sem(g, S(w)), w


def test_popup_through_or_inside_plus():
    f = parse("A AS x ; ((B AS y FILTER x.v > 0) OR C AS z)+").formula
    g = lp_normal_form(f)
    assert str(g) == ("(((A AS x FILTER (x.v > 0)) ; ((B AS y__1 OR C AS z__2))+) OR "
                      "((A AS x FILTER (NOT (x.v > 0))) ; (C AS z__2)+))")
    for w in ["A1 B0 C0", "A0 B0 C0", "A0 C0 B0 C0", "A2 C1 B1"]:
        assert sem(f, S(w)) == sem(g, S(w))


def test_not_strongly_well_formed_is_rejected():
    f = A.Filter(A.Atom("A", "x"), A.Cmp("y", "v", "=", 0))
    with pytest.raises(WellFormednessError):
        lp_normal_form(f)
    with pytest.raises(WellFormednessError):
        engine_form(f)


def test_query_in_query_out():
    q = parse("MAX((A AS x ; B AS y) FILTER x.v = 1 WITHIN 3)")
    g = engine_form(q)
    assert isinstance(g, A.Query) and g.strategy == "MAX" and g.within == 3
    assert g.formula == parse("(A AS x FILTER x.v = 1) ; B AS y").formula


# ================================================================ negative controls (docs/semantics/cel.md#cel-4.3)
def test_pushing_into_a_nested_plus_changes_semantics():
    f = parse("(A AS x ; (A AS x)+) FILTER x.v = 0").formula
    wrong = parse("(A AS x FILTER x.v = 0) ; (A AS x FILTER x.v = 0)+").formula
    right = lp_normal_form(f)
    assert right == parse("(A AS x FILTER x.v = 0) ; (A AS x__1)+").formula
    s = S("A0 A1")
    assert sem(f, s) == sem(right, s) == {(0, 1)}
    assert sem(wrong, s) == frozenset()


def _distinguishing_stream(f, g, max_len=3):
    for n in range(1, max_len + 1):
        for toks in product(["A0", "A1", "B0"], repeat=n):
            s = S(" ".join(toks))
            if sem(f, s) != sem(g, s):
                return s
    return None


def test_filter_outside_vs_inside_an_iteration():
    """``(A AS w)+ FILTER P(w)`` is not ``(A AS w FILTER P(w))+``: outside, w is an outer
    variable not tied to the iterations. The literal pair is not well-formed (w is bound nowhere),
    so the oracle gives it the finite-word semantics (G2); the well-formed pair binds w first."""
    outside = A.Filter(A.Plus(A.Atom("A", "w")), A.Cmp("w", "v", "=", 0))
    inside = A.Plus(A.Filter(A.Atom("A", "w"), A.Cmp("w", "v", "=", 0)))
    s = _distinguishing_stream(outside, inside)
    assert s is not None
    assert [(e.type, e.attrs["v"]) for e in s] == [("A", 0), ("A", 1)]
    assert sem(outside, s) == {(0,), (1,), (0, 1)} and sem(inside, s) == {(0,)}

    wf_outside = parse("A AS w ; ((A AS w)+ FILTER w.v = 0)").formula
    wf_inside = parse("A AS w ; (A AS w FILTER w.v = 0)+").formula
    s = _distinguishing_stream(wf_outside, wf_inside)
    assert [(e.type, e.attrs["v"]) for e in s] == [("A", 0), ("A", 1)]
    assert sem(wf_outside, s) == {(0, 1)} and sem(wf_inside, s) == frozenset()
    assert sem(lp_normal_form(wf_outside), s) == {(0, 1)}


# ================================================================ algebraic laws (docs/semantics/cel.md#cel-7 item 13)
SMALL = cel_formulas(max_atoms=2, max_depth=2, p_filter=0.4, allow_and=False)
TINY_STREAMS = cel_streams(min_len=1, max_len=5)


def _wf(f) -> bool:
    try:
        check_well_formed(f)
        return True
    except WellFormednessError:
        return False


@given(SMALL, SMALL, SMALL, TINY_STREAMS)
def test_law_seq_and_or_associative_or_commutative_idempotent(a, b, c, s):
    assert same(A.Seq(A.Seq(a, b), c), A.Seq(a, A.Seq(b, c)), s)
    assert same(A.Or(A.Or(a, b), c), A.Or(a, A.Or(b, c)), s)
    assert same(A.Or(a, b), A.Or(b, a), s)
    assert same(A.Or(a, a), a, s)


@given(SMALL, TINY_STREAMS)
def test_law_plus_idempotent_and_unfolds(r, s):
    assert same(A.Plus(A.Plus(r)), A.Plus(r), s)
    assert same(A.Plus(r), A.Or(r, A.Seq(r, A.Plus(r))), s)


@given(SMALL, SMALL, TINY_STREAMS, st.data())
def test_law_filters_commute_and_distribute_over_or(a, b, s, data):
    ch = HypothesisChooser(data.draw)
    va = sorted(bound(a))
    assume(va)
    p, q = gen_cel_pred(ch, va), gen_cel_pred(ch, va)
    assert same(A.Filter(A.Filter(a, p), q), A.Filter(A.Filter(a, q), p), s)
    shared = sorted(bound(a) & bound(b))
    if shared:
        p = gen_cel_pred(ch, shared)
        lhs = A.Filter(A.Or(a, b), p)
        rhs = A.Or(A.Filter(a, p), A.Filter(b, p))
        assert _wf(lhs) and _wf(rhs)
        assert same(lhs, rhs, s)


# ================================================================ docs/semantics/cel.md#cel-G11 (rebinding set)
def test_rebinding_set_is_vdef_plus_not_vdef(monkeypatch):
    """Counterexample to docs/semantics/cel.md#cel-G11's "the alternative U = vdef(rho) gives the same semantics":
    a reference to the outer x inside the body, next to a nested ``+`` that defines its own x,
    becomes an unconstrained per-round variable under U = vdef(rho). alpha_rename follows
    U = vdef+(rho): it renames only the nested x and keeps the reference outer."""
    import cel_brute
    f = parse("A AS x ; ((B AS y FILTER x.v = y.v) ; (A AS x)+)+").formula
    assert str(alpha_rename(f)) == ("(A AS x ; (((B AS y__1 FILTER (x.v = y__1.v)) ; "
                                    "(A AS x__2)+))+)")
    s = S("A0 B1 A0")
    assert sem(f, s) == cel_brute.brute_all(f, s) == frozenset()
    assert sem(f, S("A1 B1 A0")) == {(0, 1, 2)}
    monkeypatch.setattr(cel_brute, "vdef_plus", vdef)  # the alternative reading U = vdef(rho)
    assert cel_brute.brute_all(f, s) == {(0, 1, 2)}
