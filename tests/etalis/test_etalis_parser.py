"""ETALIS front end: .event parser, precedence (docs/semantics/etalis.md#etalis-A13), negation/window forms, safety, termination (A14),
error positions, docs/semantics/etalis.md#etalis-5 example rule files, and a hypothesis round trip parse(str(p)) == p."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.analysis import dependency_graph, recursive_predicates
from ceplab.semantics.etalis.parser import parse, parse_file


def body(text: str) -> A.Pattern:
    return parse(f"h <- {text}.", check=False).event_rules[0].body


def ev(name, *args):
    return A.EventAtom(name, tuple(args))


a, b, c, d = ev("a"), ev("b"), ev("c"), ev("d")
X, Y = A.Var("X"), A.Var("Y")


def err(text: str) -> ParseError:
    with pytest.raises(ParseError) as ei:
        parse(text, "rules.event")
    return ei.value


# ------------------------------------------------------------------------------------------------ operators
@pytest.mark.parametrize("op", A.BINARY_OPS)
@pytest.mark.parametrize("spelling", ["{op}", "'{op}'", "{OP}", "'{OP}'", "{Op}"])
def test_every_operator_bare_and_quoted(op, spelling):
    word = spelling.format(op=op, OP=op.upper(), Op=op.capitalize())
    p = parse(f"d(X) <- a(X) {word} b(X).")
    assert p.event_rules[0].body == A.Binary(op, ev("a", X), ev("b", X))
    assert str(p) == f"d(X) <- a(X) {op} b(X).\n"


def test_time_point_and_window_and_where():
    assert body("(0 seq 6) during a") == A.Binary("during", A.Binary("seq", A.TimePoint(0), A.TimePoint(6)), a)
    assert body("(a seq b).3") == A.Window(A.Binary("seq", a, b), 3)
    w = body("a(X) seq b(Y) 'where' (Y > X * 1.5, Z is Y - X)")
    assert isinstance(w, A.Where) and isinstance(w.cond, A.CAnd)
    assert w.cond.items[0] == A.Cmp(">", Y, A.Compound("*", (X, A.Num(1.5))))
    assert w.cond.items[1] == A.Is(A.Var("Z"), A.Compound("-", (Y, X)))


# ------------------------------------------------------------------------------------------------ precedence (A13)
PRECEDENCE = [
    # left associativity within one level (paper rule (7))
    ("a seq b seq c", "(a seq b) seq c"),
    ("a par b par c", "(a par b) par c"),
    ("a and b and c", "(a and b) and c"),
    ("a or b or c", "(a or b) or c"),
    ("a during b during c", "(a during b) during c"),
    ("a seq b during c", "(a seq b) during c"),
    ("a during b seq c", "(a during b) seq c"),
    ("a equals b meets c starts d", "((a equals b) meets c) starts d"),
    # between levels: seq/Allen < cnot < and < par < or < where
    ("a and b seq c", "a and (b seq c)"),
    ("a seq b and c", "(a seq b) and c"),
    ("a par b and c", "a par (b and c)"),
    ("a and b par c", "(a and b) par c"),
    ("a or b par c", "a or (b par c)"),
    ("a par b or c", "(a par b) or c"),
    ("a or b and c seq d", "a or (b and (c seq d))"),
    ("a seq b cnot c", "(a seq b) cnot c"),
    ("a seq b cnot c and d", "((a seq b) cnot c) and d"),
    ("a or b where (X > 1)", "(a or b) where (X > 1)"),
    ("a seq b or c where (X > 1)", "((a seq b) or c) where (X > 1)"),
]


@pytest.mark.parametrize("text,explicit", PRECEDENCE)
def test_precedence_table(text, explicit):
    assert body(text) == body(explicit)


def test_precedence_is_not_trivially_equal():
    assert body("a and b seq c") != body("(a and b) seq c")
    assert body("a par b par c") != body("a par (b par c)")


# ------------------------------------------------------------------------------------------------ negation
def test_both_negation_forms_give_the_same_node():
    paper = body("not(c(Y)).[a(X), b(X)]")
    impl = body("(a(X) 'seq' b(X)) 'cnot' c(Y)")
    assert paper == impl == A.Not(ev("c", Y), ev("a", X), ev("b", X))
    assert body("NOT(c).[a, b]") == A.Not(c, a, b)
    assert body("a seq b seq c cnot d") == A.Not(d, A.Binary("seq", a, b), c)


def test_cnot_needs_a_sequence():
    e = err("d <- a and b cnot c.")
    assert (e.line, e.column) == (1, 14) and "cnot" in e.message


# ------------------------------------------------------------------------------------------------ windows, labels
WINDOWS = """\
r1 'rule:' c(X) <- a(X) 'seq' b(X).
event_rule_property(r1,event_rule_window,1).

r2([property(event_rule_window,3)]) 'rule:' d(X) <- a(X) 'seq' b(X).
e <- (a seq b).5.
"""


def test_both_window_forms_and_labels():
    p = parse(WINDOWS)
    r1, r2, r3 = p.event_rules
    assert (r1.label, r1.properties) == ("r1", ())
    assert r2.label == "r2" and r2.properties == (A.Property("event_rule_window", A.Num(3)),)
    assert r3.label is None and r3.body == A.Window(A.Binary("seq", a, b), 5)
    assert p.window(r1) == 1 and p.window(r2) == 3 and p.window(r3) is None
    assert p.effective_body(r1) == A.Window(r1.body, 1)
    assert parse(str(p)) == p


def test_label_errors():
    assert err("r1 'rule:' c <- a.\nr1 'rule:' d <- b.").line == 2
    e = err("c <- a.\nevent_rule_property(r9,event_rule_window,1).")
    assert (e.line, e.column) == (2, 1) and "r9" in e.message
    assert "non-negative integer" in err("r1([property(event_rule_window,-1)]) 'rule:' d <- a.").message


# ------------------------------------------------------------------------------------------------ static rules
def test_static_rules_facts_and_directives():
    p = parse("""\
:- dynamic(temp_count/2).
print_trigger(a/1).
linked(p1, p2). linked(p2, p3).
path(X, Y) :- linked(X, Y).
path(X, Y) :- linked(X, Z), path(Z, Y).
w(P1, P2) <- cat(P1) seq airplane(P2) where path(P2, P1).
""")
    assert len(p.directives) == 2 and p.directives[0].is_goal
    assert len(p.static_rules) == 4 and p.static_rules[0].is_fact
    assert isinstance(p.event_rules[0].body.cond, A.StaticAtom)
    assert parse(str(p)) == p


def test_static_rule_restrictions():
    e = err("p(f(X)) :- q(X).")
    assert (e.line, e.column) == (1, 3) and "1.2 (i)" in e.message
    e = err("p(X, Y) :- q(X).")
    assert (e.line, e.column) == (1, 6) and "unsafe" in e.message
    assert "ground" in err("p(X).").message
    assert "Horn" in err("p(X) :- q(X), \\+ r(X).").message
    assert "disjoint" in err("a :- b.\nd <- a seq c.").message


# ------------------------------------------------------------------------------------------------ where
def test_where_with_arithmetic_and_assignment():
    p = parse("heat_index(L, HI) <- (temp(L, T) and humidity(L, H)).30 where HI is T + H * 2 - 1.")
    r = p.event_rules[0]
    assert isinstance(r.body, A.Where) and isinstance(r.body.pattern, A.Window)
    assert r.body.cond == A.Is(A.Var("HI"), A.Compound("-", (A.Compound("+", (A.Var("T"), A.Compound(
        "*", (A.Var("H"), A.Num(2))))), A.Num(1))))
    assert parse("d(X) <- a(X) where (\\+(X < 1)).").event_rules[0].body.cond == A.CNot(
        A.Cmp("<", X, A.Num(1)))
    assert body("a(X) where (X =< 3 ; X >= -7)").cond == A.COr(
        (A.Cmp("=<", X, A.Num(3)), A.Cmp(">=", X, A.Num(-7))))
    assert body("a(X) where X <= 3").cond == A.Cmp("=<", X, A.Num(3))


# ------------------------------------------------------------------------------------------------ safety
def test_unsafe_head_variable_position():
    e = err("ok <- a.\nd(X, Y) <- a(X) seq b(Z).")
    assert (e.file, e.line, e.column) == ("rules.event", 2, 6)
    assert "unsafe head variable Y" in e.message
    assert str(e).startswith("rules.event:2:6: ")


def test_head_variables_bound_by_where():
    parse("d(X, Y) <- a(X) where Y is X + 1.")
    parse("d(X, Y) <- a(X) where (Y = X).")
    parse("area(1, 2).\nd(X, A) <- a(X) where area(X, A).")
    e = err("d(X, Y) <- a(X) where Y > 1.")
    assert (e.line, e.column) == (1, 23)


def test_negated_variables_do_not_bind_and_or_range_restriction():
    assert "unsafe head variable Y" in err("d(X, Y) <- not(c(Y)).[a(X), b(X)].").message
    parse("d(X) <- a(X) or b(X, Y).")
    e = err("d(Y) <- a(X) or b(X, Y).")
    assert "only in the right branch" in e.message and (e.line, e.column) == (1, 22)
    e = err("d <- (a(X) or b) where X > 1.")
    assert "'or'" in e.message


# ------------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("text,line,col,fragment", [
    ("d <- a 'fnot' b.", 1, 8, "unknown operator"),
    ("d <- a within 3.", 1, 8, "unknown operator"),
    ("ok <- a.\n\nd <- a foo b.", 3, 8, "unknown operator 'foo'"),
    ("d <- a seq b", 1, 13, "end of file"),
    ("d <- a seq .", 1, 12, "unexpected"),
    ("d <- (a seq b).x.", 1, 16, "window"),
    ("d <- a seq\n   (b or ).", 2, 10, "unexpected"),
    ("d(X <- a.", 1, 5, "unexpected"),
])
def test_syntax_errors_have_exact_positions(text, line, col, fragment):
    e = err(text)
    assert (e.line, e.column) == (line, col), str(e)
    assert fragment in e.message


# ------------------------------------------------------------------------------------------------ recursion (docs/semantics/etalis.md#etalis-4, #etalis-A14)
ACCEPTED = {
    "transitive closure T10": "reach(X,Y) <- reach(X,Z) seq edge(Z,Y).\nreach(X,Y) <- edge(X,Y).",
    "counter T7": "cnt(0) <- start.\ncnt(N+1) <- cnt(N) seq a.",
    "min T7": "mce(100000) <- start.\nmce(min(X,M)) <- mce(M) seq a(X).",
    "sum via assignment": "s(0) <- start.\ns(S2) <- s(S) seq a(X) where S2 is S + X.",
    "TempIncrease T9": ("temp_increase(T) <- temp(T).\n"
                        "temp_increase(T2) <- temp_increase(T1) seq temp(T2) where T2 > T1.\n"
                        "temp_alarm(T) <- temp_increase(T) where T > 100."),
    "recursion through negation T6a": "e <- not(e).[a, b].",
    "copying AND cycle": "p(X) <- p(X) and a(X).\np(X) <- b(X).",
    "progress through during (inner operand)": "it(N+1) <- it(N) during w.\nit(0) <- w.",
    "guard N =< Nmax": "it(0) <- a.\nit(N+1) <- it(N) and a where N =< 10.",
    "guard both bounds": "it(1) <- a.\nit(N*2) <- it(N) and a where (N >= 1, N < 100).",
    "blizzard T14": (
        "bs(ID,T,T,1) <- sensor(ID,T,W,V) where (W >= 15, V < 1).\n"
        "bs(ID,T1,T3,C+1) <- bs(ID,T1,T2,C) seq sensor(ID,T3,W,V) where (W >= 15, V < 1).\n"
        "bw(ID) <- bs(ID,T1,T3,C) where (C >= 4, T3 - T1 >= 180)."),
    "iteration T8": "iteration(1) <- a.\niteration(N) <- iteration(M) seq a where N is M + 1.\n"
                    "e <- iteration(5).",
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_recursion_accepted(name):
    p = parse(ACCEPTED[name])
    assert parse(str(p)) == p


REJECTED = {
    "AND counter": ("it(0) <- a.\nit(N+1) <- it(N) and a.", 2, 4),
    "OR self loop": ("e(X) <- a(X).\ne(X+1) <- e(X) or a(X).", 2, 3),
    "EQUALS self loop": ("e(X) <- a(X).\ne(f(X)) <- e(X) equals a(X).", 2, 3),
    "assignment on a PAR cycle": ("s(0) <- a.\ns(S2) <- s(S) par a where S2 is S + 1.", 2, 3),
    "outer operand of during": ("it(0) <- w.\nit(N+1) <- w during it(N).", 2, 4),
    "mutual": ("p(0) <- a.\np(N+1) <- q(N) and a.\nq(N) <- p(N) and b.", 2, 3),
    "guard on the wrong side": ("it(0) <- a.\nit(N+1) <- it(N) and a where N >= 0.", 2, 4),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_recursion_rejected_with_cycle_explained(name):
    text, line, col = REJECTED[name]
    e = err(text)
    assert (e.line, e.column) == (line, col), str(e)
    assert "unboundedly many values" in e.message and "A14" in e.message and "->" in e.message


def test_mutual_recursion_error_names_the_cycle():
    e = err(REJECTED["mutual"][0])
    assert "p/1 -> q/1 ('and', rule at line 3)" in e.message
    assert "q/1 -> p/1 ('and', this rule)" in e.message


def test_dependency_graph():
    p = parse(ACCEPTED["transitive closure T10"] + "\nfar(X) <- reach(X, Y) seq z.")
    g = dependency_graph(p)
    assert g.has_edge(("reach", 2), ("reach", 2)) and g.has_edge(("edge", 2), ("reach", 2))
    assert recursive_predicates(p) == {("reach", 2)}


# ------------------------------------------------------------------------------------------------ docs/semantics/etalis.md#etalis-5 examples
NOTE_EXAMPLES = """\
% T1: Figure 1 operators (intervals built from start/end events)
p1 <- s11 seq e11.
p1 <- s12 seq e12.
p2 <- s21 seq e21.
p3 <- s31 seq e31.
w1 <- (p1).3.
q_seq <- p1 seq p3.
q_and <- p2 and p3.
q_par <- p1 par p2.
q_or <- p2 or p3.
q_during <- p1 during (0 seq 6).
q_starts <- p3 starts p1.
q_equals <- p1 equals p3.
q_not <- not(p3).[p1, p1].
q_finishes <- p3 finishes p2.
q_meets <- p2 meets p3.
% T2 / T4
ie <- a seq b.
e <- ie seq c.
cc <- a seq b.
dd <- b and cc.
% T5: the Kleene footnote
k1 <- a seq b seq c.
k2 <- (a seq b seq c) equals not(a or c).[a, c].
% T6
e6 <- not(e6).[a, b].
pp2 <- x seq y.
r <- not(c).[pp2, z].
d6(X) <- (a(X) 'seq' b(X)) 'cnot' c(Y).
% T16 (c)
c16(X) <- a(X) seq b(X).
d16(X) <- a0(X) seq b0(X).
e16(X) <- c16(X) during d16(X).
% companion examples
indirectly_acquires(X, Y) <- buys(Z, Y) and buys(X, Z).
remarkable_increase(X) <- (prize(X, Y1) seq prize(X, Y2)).7 where Y2 > Y1 * 1.5.
working_day <- not(market_closes).[market_opens, market_closes].
die_together(X, Y) <- (bankrupt(X) seq bankrupt(Y)) during working_day.
"""

WEATHER = """\
% rules (1)-(4): weather
wind_speed_increase(Loc) <- (wind(Loc, S1) seq wind(Loc, S2)) where 10 * S2 >= 11 * S1.
fire(Loc) <- not(fire_out(Loc)).[fire_start(Loc), fire_out(Loc)].
fire_alarm(Loc) <- wind_speed_increase(Loc) during fire(Loc).
heat_index(Loc, HI) <- (temp(Loc, T) and humidity(Loc, H)).30 where HI is T + H.
% (34)-(35) classification, half-open bands (A16)
caution(Loc, HI) <- heat_index(Loc, HI) where (HI >= 80, HI < 90).
extreme_caution(Loc, HI) <- heat_index(Loc, HI) where (HI >= 90, HI < 105).
danger(Loc, HI) <- heat_index(Loc, HI) where (HI >= 105, HI < 130).
extreme_danger(Loc, HI) <- heat_index(Loc, HI) where HI >= 130.
% (31)-(33) jet stream
linked(p1, p2). linked(p2, p3). linked(p3, p4).
path(X, Y) :- linked(X, Y).
path(X, Y) :- linked(X, Z), path(Z, Y).
jet_stream_warning(P1, P2) <- cat(P1) seq airplane(P2) where path(P2, P1).
% (37)-(38) EnhancedFire with RDFS
sub_class_of(wind_observation, weather_observation).
sub_class_of(diablo, wind_observation).
sub_class_of(sundowner, wind_observation).
rdf_type(observ_1, diablo).
rdf_type(observ_2, sundowner).
rdf_type(A, Y) :- sub_class_of(X, Y), rdf_type(A, X).
enhanced_fire(L) <- (active_fire(L) and weather_obs(O, L)).180 where rdf_type(O, weather_observation).
"""


@pytest.mark.parametrize("text", [NOTE_EXAMPLES, WEATHER], ids=["section5", "weather"])
def test_note_example_rule_files_parse_and_round_trip(text, tmp_path):
    f = tmp_path / "rules.event"
    f.write_text(text)
    p = parse_file(f)
    assert len(p.event_rules) > 5
    assert parse(str(p)) == p


def test_note_examples_shapes():
    p = parse(NOTE_EXAMPLES)
    rules = {r.head.name: r for r in p.event_rules}
    assert rules["k2"].body == A.Binary(
        "equals", A.Binary("seq", A.Binary("seq", a, b), c), A.Not(A.Binary("or", a, c), a, c))
    assert rules["w1"].body == A.Window(ev("p1"), 3)
    assert rules["d6"].body == A.Not(ev("c", Y), ev("a", X), ev("b", X))


def test_implementation_example_files_parse():
    # verbatim from the ETALIS regression examples (sspider/etalis examples/*/test_01.event)
    parse("""\
print_trigger(a/1).
print_trigger(_/_).

d(X) <- a(X) 'where' (X>0).

d(Y) <- a(X) 'seq' b(Y) 'where' (Y>X).

d(Z) <- a(X) 'seq' b(Y) 'seq' c(Z) 'where' (Y>X,Z>Y).
d(X) <- (a(X) seq b(Y) ) seq c(Z) where (Z>1) .
d(X,Z) <- a(X) seq b(Y) seq c(Z) where (1<X, 1<Y, X<Y, 1<Z, Y<Z).
ce2(X,Y3) <- a(X,Y1) 'SEQ' a(X,Y2) 'SEQ' a(X,Y3).
d(X) <- a(X) 'seq' b(X) 'par' c(X).
d(X) <- d(X) 'and' c(X).
d1(X) <- a1(X) 'seq' b1(X).
f1(X) <- d1(X) 'meets' b1(X).
e(X) <- c(X) during d(X).
""")


# ------------------------------------------------------------------------------------------------ hypothesis round trip
NAMES = st.sampled_from(["a", "b", "temp", "x1", "e_2"])
SYMS = st.sampled_from(["a", "abc", "seq", "Hello world", "it's", "rule:", "not", "x_1", ""])
VARS = st.sampled_from(["X", "Y", "Zed", "_G1", "_"]).map(A.Var)
NUMS = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
                 .filter(lambda f: f != 0 or str(f) == "0.0")).map(A.Num)
ATOMIC = st.one_of(VARS, SYMS.map(A.Sym), NUMS, st.text("ab \"\\'\n%.", max_size=5).map(A.Str))


def _grow(children):
    return st.one_of(
        st.builds(lambda f, xs: A.Compound(f, tuple(xs)), NAMES, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda o, l, r: A.Compound(o, (l, r)), st.sampled_from(A.ARITH_OPS), children, children),
        st.builds(lambda x: A.Compound("-", (x,)), children),
        st.builds(lambda xs: A.List(tuple(xs)), st.lists(children, max_size=3)),
    )


TERMS = st.recursive(ATOMIC, _grow, max_leaves=6)
STATIC_ATOMS = st.builds(lambda n, xs: A.StaticAtom(n, tuple(xs)), NAMES, st.lists(TERMS, max_size=2))
LITS = st.one_of(
    st.builds(A.Cmp, st.sampled_from(A.CMP_OPS), TERMS, TERMS),
    st.builds(A.Is, VARS, TERMS),
    STATIC_ATOMS,
)
CONDS = st.recursive(LITS, lambda ch: st.one_of(
    st.builds(A.CNot, ch),
    st.lists(ch, min_size=2, max_size=3).map(lambda xs: A.CAnd(tuple(xs))),
    st.lists(ch, min_size=2, max_size=3).map(lambda xs: A.COr(tuple(xs))),
), max_leaves=4)
EVENT_ATOMS = st.builds(lambda n, xs: A.EventAtom(n, tuple(xs)), NAMES, st.lists(TERMS, max_size=2))
PATTERNS = st.recursive(
    st.one_of(EVENT_ATOMS, st.integers(0, 50).map(A.TimePoint)),
    lambda ch: st.one_of(
        st.builds(A.Binary, st.sampled_from(A.BINARY_OPS), ch, ch),
        st.builds(A.Not, ch, ch, ch),
        st.builds(A.Where, ch, CONDS),
        st.builds(A.Window, ch, st.integers(0, 100)),
    ), max_leaves=5)
PROPS = st.lists(st.builds(A.Property, st.sampled_from(["event_rule_window", "window", "seq"]), TERMS),
                 max_size=2).map(tuple)
EVENT_RULES = st.one_of(
    st.builds(A.EventRule, EVENT_ATOMS, PATTERNS),
    st.builds(A.EventRule, EVENT_ATOMS, PATTERNS, st.sampled_from(["r1", "rule 2", "and"]), PROPS),
)
STATEMENTS = st.one_of(
    EVENT_RULES,
    st.builds(A.StaticRule, STATIC_ATOMS, st.one_of(st.none(), CONDS)),
    st.builds(A.RuleProperty, NAMES, NAMES, TERMS),
    st.builds(A.Directive, TERMS, st.just(True)),
)


@given(st.lists(STATEMENTS, max_size=4).map(lambda xs: A.Program(tuple(xs))))
def test_round_trip_generated_programs(prog):
    text = str(prog)
    assert parse(text, check=False) == prog, text
