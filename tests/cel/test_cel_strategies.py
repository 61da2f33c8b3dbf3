"""The shared CEL case generators (workbench/strategies.py): well-formedness, round trip, fragment
options, operator/strategy coverage, seeded reproducibility, stream shapes."""
import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.analysis import check_well_formed, is_safe, is_unary, vdef_plus
from ceplab.semantics.cel.parser import parse
from ceplab.workbench.langs.cel.generators import (TYPE_ALPHABETS, CelStrategies, HypothesisChooser,
                                  RandomChooser, cel_cases, cel_formulas, cel_queries,
                                  cel_streams, gen_cel_query, gen_stream, random_cel_case)

N_SEEDED = 400


def _seeded_queries(n=N_SEEDED, **kw):
    return [gen_cel_query(RandomChooser(random.Random(i)), **kw) for i in range(n)]


def _features(q: A.Query) -> set[str]:
    """Names of the constructs a query uses (for coverage)."""
    out = {f"strategy:{q.strategy}", "within" if q.within is not None else "no-within"}

    def walk(g, in_plus: A.Formula | None, under_seq: bool, plus_depth: int):
        out.add(type(g).__name__)
        if isinstance(g, A.Plus) and plus_depth >= 1:
            out.add("nested+")
        if isinstance(g, A.Or) and under_seq:
            out.add("OR-inside-;")
        if isinstance(g, A.Filter):
            for c in A.pred_atoms(g.pred):
                if isinstance(c, A.Cmp):
                    out.add(f"cmp{c.op}")
                    out.add(f"value{c.value}")
                elif c.var != c.var2:
                    out.add("binary")
                    if in_plus is not None:
                        local = vdef_plus(in_plus.body)
                        if (c.var in local) != (c.var2 in local):
                            out.add("binary-correlates-iteration-with-outer")
            stack = [g.pred]
            while stack:
                p = stack.pop()
                out.add(type(p).__name__)
                if isinstance(p, (A.PAnd, A.POr)):
                    stack += [p.left, p.right]
                elif isinstance(p, A.PNot):
                    stack.append(p.arg)
            if len(A.pred_vars(g.pred)) > 1:
                out.add("multi-variable-filter")
        for c in A.children(g):
            walk(c, g if isinstance(g, A.Plus) else in_plus,
                 under_seq or isinstance(g, A.Seq), plus_depth + isinstance(g, A.Plus))

    walk(q.formula, None, False, 0)
    if not is_safe(q.formula):
        out.add("unsafe")
    all_atoms = {id(a): a.var for a in A.atoms(q.formula)}
    for g in A.subformulas(q.formula):
        if isinstance(g, A.Plus):
            inside = {id(a) for a in A.atoms(g)}
            outside_vars = {v for i, v in all_atoms.items() if i not in inside}
            if vdef_plus(g.body) & outside_vars:
                out.add("shadowing")
    return out


# ---------------------------------------------------------------- well-formedness, round trip
@given(cel_queries())
def test_generated_queries_are_well_formed_and_round_trip(q):
    check_well_formed(q.formula)
    assert parse(str(q)) == q


def test_seeded_queries_are_well_formed_and_round_trip():
    for q in _seeded_queries():
        check_well_formed(q.formula)
        assert parse(str(q)) == q


@given(cel_queries(unary_only=True, safe_only=True, allow_and=False, allow_within=False,
                   strategies=("NXT", "MAX")))
def test_fragment_options(q):
    assert is_unary(q.formula) and is_safe(q.formula)
    assert not any(isinstance(g, A.And) for g in A.subformulas(q.formula))
    assert q.within is None and q.strategy in ("NXT", "MAX")
    assert parse(str(q)) == q


def test_fragment_options_seeded():
    for q in _seeded_queries(200, unary_only=True, safe_only=True, allow_and=False):
        assert is_unary(q.formula) and is_safe(q.formula)
        assert not any(isinstance(g, A.And) for g in A.subformulas(q.formula))


@given(cel_formulas(max_depth=3, max_atoms=6))
def test_size_bounds(f):
    assert len(A.atoms(f)) <= 6

    def depth(g):
        d = max((depth(c) for c in A.children(g)), default=0)
        return d if isinstance(g, (A.Atom, A.Filter)) else d + 1
    assert depth(f) <= 3


# ---------------------------------------------------------------- coverage
def test_every_operator_and_strategy_is_generated():
    seen: Counter = Counter()
    for q in _seeded_queries():
        seen.update(_features(q))
    need = {"Atom", "Filter", "Or", "Seq", "Plus", "And", "nested+", "OR-inside-;",
            "binary", "binary-correlates-iteration-with-outer", "multi-variable-filter",
            "PAnd", "POr", "PNot", "within", "no-within", "unsafe", "shadowing",
            *(f"cmp{op}" for op in A.OPS), *(f"value{v}" for v in (0, 1, 2)),
            *(f"strategy:{s}" for s in A.STRATEGIES)}
    missing = need - set(seen)
    assert not missing, f"never generated in {N_SEEDED} seeded samples: {sorted(missing)}"


def test_unary_only_still_covers_all_formula_operators():
    seen: set = set()
    for q in _seeded_queries(unary_only=True, safe_only=True):
        seen |= _features(q)
    assert {"Or", "Seq", "Plus", "And", "Filter", "nested+", "PNot", "PAnd", "POr"} <= seen
    assert "binary" not in seen and "unsafe" not in seen


# ---------------------------------------------------------------- reproducibility
def test_seeded_generation_is_reproducible():
    for seed in range(50):
        a = random_cel_case(random.Random(seed), 6)
        b = random_cel_case(random.Random(seed), 6)
        assert a[0] == b[0] and a[1].events == b[1].events
    texts = {random_cel_case(random.Random(seed), 6)[0] for seed in range(50)}
    assert len(texts) > 40


def test_random_case_parses_and_shares_the_alphabet():
    for seed in range(100):
        text, s = random_cel_case(random.Random(seed), 5)
        q = parse(text)
        assert len(s) == 5
        rels = {a.rel for a in A.atoms(q.formula)}
        assert any(set(alpha) >= rels | {e.type for e in s} for alpha in TYPE_ALPHABETS)


# ---------------------------------------------------------------- streams
@given(cel_streams(min_len=1, max_len=6))
def test_streams_shape(s):
    assert 1 <= len(s) <= 6
    assert all(e.position == i and e.time == i for i, e in enumerate(s))
    assert {e.type for e in s} <= {"A", "B", "C"}
    assert all(e.attrs["v"] in (0, 1, 2) for e in s)


def test_streams_include_interleavings_and_both_alphabets():
    word = []
    for seed in range(200):
        ch = RandomChooser(random.Random(seed))
        word.append("".join(e.type for e in gen_stream(ch, 6)))
    assert any("ABAB" in w for w in word) and any("BABA" in w for w in word)
    assert any("C" in w for w in word) and any(set(w) == {"A", "B"} for w in word)
    assert any("AA" in w and "BB" in w for w in word)


@given(cel_cases(min_len=0, max_len=4))
def test_cases_share_alphabet(case):
    q, s = case
    rels = {a.rel for a in A.atoms(q.formula)} | {e.type for e in s}
    assert any(rels <= set(alpha) for alpha in TYPE_ALPHABETS)
    assert len(s) <= 4


# ---------------------------------------------------------------- choosers
def test_random_chooser_protocol():
    ch = RandomChooser(random.Random(1))
    assert all(0 <= ch.integer(0, 3) <= 3 for _ in range(100))
    assert {ch.choice("ab") for _ in range(100)} == {"a", "b"}
    assert not any(ch.boolean(0.0) for _ in range(50)) and all(ch.boolean(1.0) for _ in range(50))
    assert 200 < sum(ch.boolean(0.3) for _ in range(1000)) < 400


@given(st.data())
def test_hypothesis_chooser_protocol(data):
    ch = HypothesisChooser(data.draw)
    assert 2 <= ch.integer(2, 5) <= 5
    assert ch.choice(["a", "b"]) in ("a", "b")
    assert ch.choice(["only"]) == "only"
    assert ch.boolean(0.0) is False and ch.boolean(1.0) is True
    assert isinstance(ch.boolean(0.3), bool)


@given(st.data())
def test_registry_bundle(data):
    b = CelStrategies()
    assert b.render(parse("A AS x ; B AS y")) == "(A AS x ; B AS y)"
    q = data.draw(b.queries())
    assert parse(b.render(q)) == q
    assert len(data.draw(b.streams(0, 3))) <= 3
    assert data.draw(b.options()).max_scope in ("same_end", "global")
