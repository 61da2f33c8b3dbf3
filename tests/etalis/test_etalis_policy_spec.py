"""Step-indexed ASP specification of the ETALIS consumption policies (asp/etalis_policy.lp + .py) against
ETALIS-P (semantics/etalis/policies.py): docs/semantics/etalis.md's running example (etalis.md 3.12), its interval example with
every interval_policy, hand-checked operator cases under each policy (each expectation is derived by hand from
the ETALIS-P text in the comment next to it), and properties that follow from the definition (P9: subset of the
unrestricted answers without negation; join-free programs do not depend on the policy; prefix property).
"""
import pytest
from hypothesis import assume, given, settings, strategies as st

from ceplab.asp.etalis import oracle as unrestricted_oracle
from ceplab.semantics.errors import UnsupportedError
from ceplab.asp.etalis_policy import compile_policy, oracle, trace
from ceplab.asp.oracle import Limits, OracleResult, Undecided
from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse, parse_term
from ceplab.semantics.etalis.streams import StreamEvent

FAST = Limits(time_s=30, isolate=False)
POLICIES = ("chronological", "recent_lifo", "recent")


def stream(text: str) -> list[StreamEvent]:
    """``"a@1 b(1,x)@2 p@3-5"`` -> stream events (point, or ``start-end`` interval), in the given order."""
    out = []
    for i, tok in enumerate(text.split()):
        atom, t = tok.rsplit("@", 1)
        s, _, e = t.partition("-")
        term = parse_term(atom)
        ea = A.EventAtom(term.name, ()) if isinstance(term, A.Sym) else A.EventAtom(term.functor, term.args)
        out.append(StreamEvent(ea, int(s), int(e or s), i))
    return out


def run(rules, events, policy="chronological", **opts) -> set:
    prog = parse(rules) if isinstance(rules, str) else rules
    evs = stream(events) if isinstance(events, str) else events
    res = oracle(prog, evs, Options(policy=policy, **opts), FAST)
    assert isinstance(res, OracleResult), res
    return set(res.results)


def iv(res: set, head: str) -> set:
    """Intervals of the 0-ary head ``head``."""
    return {(s, e) for a, s, e in res if a == head}


# ------------------------------------------------------------------------------------------------ docs/semantics/etalis.md#etalis-3.12
RUNNING = "a@1 a@2 a@3 b@4 b@5 c@6"
# docs/semantics/etalis.md's table (3.12): chronological, recent-LIFO, recent (Snoop)
TABLE = {"chronological": ({(1, 4), (2, 5)}, {(1, 6)}),
         "recent_lifo": ({(3, 4), (2, 5)}, {(2, 6)}),
         "recent": ({(3, 4), (3, 5)}, {(3, 6)})}


@pytest.mark.parametrize("policy", POLICIES)
def test_running_example_binarized(policy):
    res = run("ie <- a seq b. e <- ie seq c.", RUNNING, policy)
    ie, e = TABLE[policy]
    assert iv(res, "ie") == ie and iv(res, "e") == e and len(res) == len(ie) + len(e)


@pytest.mark.parametrize("policy", POLICIES)
def test_running_example_one_rule(policy):
    # the intermediate node (a seq b) is not an event: only e is a result
    assert run("e <- a seq b seq c.", RUNNING, policy) == {("e", s, t) for s, t in TABLE[policy][1]}


def test_running_example_trace():
    """P4: one step per popped item; the stream has 6 events, each popped, each leaf activation popped, the
    derived ie/e events and their activations popped, plus the final step that halts."""
    t = trace(parse("e <- a seq b seq c."), stream(RUNNING), Options(policy="recent"), FAST)
    items = [s.item for s in t.trace]
    assert items[0] == 'ev(e("a"),1,1)' and items[1] == "act(2,(),1,1)"   # node 2: leaf a (pre-order 0,1,2)
    # b@4 -> act(3) -> (a seq b) on [3,4] -> stored at node 1 (recent: replaced by [3,5] later)
    assert 'act(1,(),3,4)' in items and 'act(1,(),3,5)' in items and items[-1] == 'ev(e("e"),3,6)'
    assert t.steps == len(items) + 1


# ------------------------------------------------------------------------------------------------ intervals (A12)
IV = "a@1-30 a@15-30 b@35-50"


@pytest.mark.parametrize("policy,ipol,expect", [
    ("recent", "longest", {(1, 50)}),        # same end 30: a[1,30] is strictly longer -> a[15,30] not inserted
    ("recent", "shortest", {(15, 50)}),      # a[1,30] not shorter -> replaced
    ("recent", "off", {(15, 50)}),           # one per join key, the newest
    ("recent_lifo", "off", {(15, 50)}),      # both stored, LIFO takes the last inserted, consumed
    ("recent_lifo", "longest", {(1, 50)}),   # a[15,30] not inserted
    ("recent_lifo", "shortest", {(15, 50)}),
    ("chronological", "off", {(1, 50)}),     # FIFO
    ("chronological", "longest", {(1, 50)}),  # timestamps (starts) differ: both stored, FIFO
    ("chronological", "shortest", {(1, 50)}),
])
def test_interval_example(policy, ipol, expect):
    assert iv(run("ie <- a seq b.", IV, policy, interval_policy=ipol), "ie") == expect


@pytest.mark.parametrize("policy,ipol,expect", [
    ("recent", "max:V", ("ie(2,10000)", 15, 50)),   # y's V=1000 is not greater: replaced
    ("recent", "min:V", ("ie(1,1000)", 1, 50)),     # y's V=1000 is smaller: kept, x not inserted
    ("recent_lifo", "max:V", ("ie(2,10000)", 15, 50)),
    ("recent_lifo", "min:V", ("ie(1,1000)", 1, 50)),
    ("chronological", "max:V", ("ie(1,1000)", 1, 50)),  # different starts: no rival, FIFO
    ("chronological", "min:V", ("ie(1,1000)", 1, 50)),
    ("recent_lifo", "max:W", ("ie(2,10000)", 15, 50)),  # W not bound at the leaf: prefer false -> replaced
])
def test_interval_attribute(policy, ipol, expect):
    res = run("ie(X,V) <- a(X,V) seq b.", "a(1,1000)@1-30 a(2,10000)@15-30 b@35-50", policy, interval_policy=ipol)
    assert res == {expect}


@pytest.mark.parametrize("ipol,expect", [("off", "ie(1)"), ("shortest", "ie(1)"), ("longest", "ie(2)")])
def test_interval_chronological_same_start(ipol, expect):
    # same start 1, different ends: chronological's rival; longest keeps a(2) on [1,40]
    assert run("ie(X) <- a(X) seq b.", "a(1)@1-30 a(2)@1-40 b@45-50", "chronological",
               interval_policy=ipol) == {(expect, 1, 50)}


def test_interval_policy_per_join_key():
    # rivals need the same join key (X shared with b(X)): both a(1,.) and a(2,.) stay
    res = run("ie(X) <- a(X,V) seq b(X).", "a(1,5)@1-30 a(2,5)@15-30 b(1)@35-50 b(2)@36-50", "recent",
              interval_policy="longest")
    assert res == {("ie(1)", 1, 50), ("ie(2)", 15, 50)}


# ------------------------------------------------------------------------------------------------ operators
@pytest.mark.parametrize("policy,expect", [
    # a1, a2 stored; b3 takes a1 (FIFO) / a2 (LIFO), b4 takes the other; a5 finds no stored b (b3, b4 were
    # matched, so not stored) and is stored
    ("chronological", {(1, 3), (2, 4)}),
    ("recent_lifo", {(2, 3), (1, 4)}),
    # recent: a2 replaces a1; b3 stored, fires with a2; b4 replaces b3, fires with a2; a5 replaces a2, fires
    # with b4 (hull [4,5])
    ("recent", {(2, 3), (2, 4), (4, 5)}),
])
def test_and_pairwise(policy, expect):
    assert iv(run("r <- a and b.", "a@1 a@2 b@3 b@4 a@5", policy), "r") == expect


@pytest.mark.parametrize("policy", POLICIES)
def test_and_other_direction(policy):
    assert iv(run("r <- a and b.", "b@1 a@2", policy), "r") == {(1, 2)}


@pytest.mark.parametrize("policy,expect", [
    ("chronological", {(1, 6)}),       # b[2,6] consumes a[1,4]; b[3,7] finds nothing
    ("recent_lifo", {(1, 6)}),
    ("recent", {(1, 6), (1, 7)}),      # a[1,4] is never removed
])
def test_par(policy, expect):
    assert iv(run("r <- a par b.", "a@1-4 b@2-6 b@3-7", policy), "r") == expect


@pytest.mark.parametrize("policy,expect", [("chronological", "r(1,3)"), ("recent_lifo", "r(2,3)"),
                                           ("recent", "r(2,3)")])
def test_equals(policy, expect):
    assert run("r(X,Y) <- a(X) equals b(Y).", "a(1)@1 a(2)@1 b(3)@1", policy) == {(expect, 1, 1)}


@pytest.mark.parametrize("policy", POLICIES)
def test_meets_points(policy):
    assert iv(run("r <- a meets b.", "a@2 b@2", policy), "r") == {(2, 2)}
    assert iv(run("r <- a meets b.", "a@2 b@2", policy, proper_intervals_only=True), "r") == set()
    # one instance: the left leaf (lower id) is activated first and stored, the right one completes it (A18)
    assert iv(run("r <- a meets a.", "a@2", policy), "r") == {(2, 2)}


@pytest.mark.parametrize("policy", POLICIES)
def test_during_starts_finishes(policy):
    rules = "c <- a seq b. d <- a0 seq b0. e <- c during d."
    assert iv(run(rules, "a0@1 a@2 b@3 b0@4", policy), "e") == {(1, 4)}
    assert iv(run(rules, "a0@1 a@2 b@3 b0@4", policy, during_result="contained"), "e") == {(2, 3)}
    assert iv(run("bb <- x seq y. r <- a starts bb.", "x@1 a@1 y@3", policy), "r") == {(1, 3)}
    assert iv(run("bb <- x seq y. r <- a finishes bb.", "x@1 a@3 y@3", policy), "r") == {(1, 3)}
    assert iv(run("bb <- x seq y. r <- a finishes bb.", "x@1 a@3 y@3", policy, proper_intervals_only=True),
              "r") == set()


@pytest.mark.parametrize("policy", POLICIES)
def test_or(policy):
    assert run("r(X) <- a(X) or b(X).", "a(1)@1 b(2)@2 a(1)@3", policy) == {("r(1)", 1, 1), ("r(2)", 2, 2),
                                                                          ("r(1)", 3, 3)}


@pytest.mark.parametrize("policy,events,expect", [
    ("chronological", "a@1 c@2 b@3", set()),
    ("chronological", "a@1 b@3", {(1, 3)}),
    ("chronological", "a@1 b@2 b@3", {(1, 2)}),              # the start delimiter is consumed
    ("recent_lifo", "a@1 b@2 b@3", {(1, 2)}),
    ("recent", "a@1 b@2 b@3", {(1, 2), (1, 3)}),             # ... not under recent
    ("chronological", "a@1 c@2 a@3 b@4", {(3, 4)}),          # a1 is blocked (per witness): a3 is chosen
    ("recent_lifo", "a@1 a@3 c@4 b@5", set()),               # both blocked
    ("chronological", "a@1 a@2 c@2 b@4", {(2, 4)}),          # c@2 is not strictly after a2
    ("recent_lifo", "a@1 a@2 c@2 b@4", {(2, 4)}),
])
def test_not(policy, events, expect):
    assert iv(run("r <- not(c).[a, b].", events, policy), "r") == expect


@pytest.mark.parametrize("policy", POLICIES)
def test_not_join_keys(policy):
    # p1 c(X) blocks only the same X; local variable Y: existential (blocks) or free (never blocks, A6)
    ev = "a(1)@1 a(2)@2 c(1)@3 b(1)@4 b(2)@5"
    assert run("r(X) <- not(c(X)).[a(X), b(X)].", ev, policy) == {("r(2)", 2, 5)}
    assert run("r(X) <- not(c(Y)).[a(X), b(X)].", ev, policy) == set()
    assert run("r(X) <- not(c(Y)).[a(X), b(X)].", ev, policy, not_local_vars="free") == {
        ("r(1)", 1, 4), ("r(2)", 2, 5)}


@pytest.mark.parametrize("window,expect", [(2, {(1, 3)}), (1, {(2, 3)}), (0, set())])
def test_not_pushed_window(window, expect):
    # P7: E_x - S_y <= q(p) for the NOT node too; chronological takes the oldest eligible start
    assert iv(run(f"r <- (not(c).[a, b]).{window}.", "a@1 a@2 b@3", "chronological"), "r") == expect


@pytest.mark.parametrize("window,expect", [(2, {(1, 3)}), (1, {(2, 3)}), (0, set())])
def test_pushed_window(window, expect):
    # chronological: hull [1,3] has length 2; with window 1 the stored a1 is not a candidate, a2 is chosen
    assert iv(run(f"r <- (a seq b).{window}.", "a@1 a@2 b@3", "chronological"), "r") == expect
    assert iv(run(f"w([property(event_rule_window, {window})]) 'rule:' r <- a seq b.", "a@1 a@2 b@3",
                  "chronological"), "r") == expect


def test_pushed_window_on_leaf_and_exactly():
    assert run("r <- (a).0 seq b.", "a@1-2 a@3 b@5", "chronological") == {("r", 3, 5)}
    # window=exactly: the pushed check is <= q; only the window node tests = q
    assert iv(run("r <- (a seq b).2.", "a@1 a@2 b@3", "recent_lifo", window="exactly"), "r") == set()
    assert iv(run("r <- (a seq b).2.", "a@1 a@2 b@3", "chronological", window="exactly"), "r") == {(1, 3)}


@pytest.mark.parametrize("policy,expect", [("chronological", "r(1,10)"), ("recent_lifo", "r(1,20)"),
                                           ("recent", "r(1,20)")])
def test_where_solutions_in_term_order(policy, expect):
    # two solutions (1,10) < (1,20) are processed in this order: stamps 1 then 2 (recent: (1,20) replaces)
    res = run("g(1,20). g(1,10). r(X,Y) <- (a(X) where g(X,Y)) seq b.", "a(1)@1 b@2", policy)
    assert res == {(expect, 1, 2)}


@pytest.mark.parametrize("policy", POLICIES)
def test_time_points(policy):
    # input order: a@1 (key (1,1,0)), the point 5 (key (5,0,n)), a@6
    assert iv(run("r <- a seq 5.", "a@1 a@6", policy), "r") == {(1, 5)}
    assert iv(run("r <- 0 seq 6.", "", policy), "r") == {(0, 6)}
    # a point just before the first event ending at or after it: 3 is processed before a@3
    assert iv(run("r <- 3 seq a.", "a@3 a@4", policy), "r") == {(3, 4)}


@pytest.mark.parametrize("policy", POLICIES)
def test_recursion(policy):
    # each cnt(N) is consumed (or replaced) by the next a; the where stops at 3 (a@5 consumes cnt(3) for nothing)
    res = run("cnt(0) <- b. cnt(N+1) <- cnt(N) seq a where N < 3.", "b@1 a@2 a@3 a@4 a@5", policy)
    assert res == {("cnt(0)", 1, 1), ("cnt(1)", 1, 2), ("cnt(2)", 1, 3), ("cnt(3)", 1, 4)}


def test_dedup_events_and_activations():
    # r(1,2) is derived twice (two rules), dispatched once: stored once at s's left leaf, consumed by c@3
    assert iv(run("r <- a seq b. r <- a seq b. s <- r seq c.", "a@1 b@2 c@3 c@4"), "s") == {(1, 3)}
    # the or node is activated twice with the same (V,S,E): processed once, stored once
    assert iv(run("r <- (a or a) seq b.", "a@1 b@2 b@3"), "r") == {(1, 2)}
    # a duplicate stream event is dispatched once
    assert iv(run("r <- a seq b.", "a@1 a@1 b@2 b@3"), "r") == {(1, 2)}


def test_shared_goal_starvation():
    # rule order decides who consumes: both rules read the same stream event a, but the stores are per node,
    # so both fire (consumption is per node, P2)
    assert run("r <- a seq b. s <- a seq b.", "a@1 b@2") == {("r", 1, 2), ("s", 1, 2)}


def test_include_input_and_errors():
    res = oracle(parse("r <- a seq b."), stream("a@1 b@2 c@3"), Options(policy="recent"), FAST, include_input=True)
    assert set(res.results) == {("a", 1, 1), ("b", 2, 2), ("c", 3, 3), ("r", 1, 2)}
    with pytest.raises(ValueError):
        oracle(parse("r <- a seq b."), stream("a@2 b@1"), Options(policy="recent"), FAST)
    with pytest.raises(ValueError):
        compile_policy(parse("r <- a seq b."), Options())
    with pytest.raises(UnsupportedError):
        oracle(parse("r(Y) <- a(X) where Y is X / 2."), stream("a(1)@1"), Options(policy="recent"), FAST)


def test_dispatch_from_unrestricted_oracle():
    res = unrestricted_oracle(parse("ie <- a seq b. e <- ie seq c."), stream(RUNNING), Options(policy="recent_lifo"),
                              FAST)
    assert iv(set(res.results), "e") == {(2, 6)}


def test_undecided():
    prog, evs = parse("ie <- a seq b. e <- ie seq c."), stream(RUNNING)
    res = oracle(prog, evs, Options(policy="recent"), FAST, max_steps=5)
    assert isinstance(res, Undecided) and "step" in res.reason
    long = [StreamEvent(A.EventAtom("a" if t % 2 else "b"), t, t, t) for t in range(3000)]
    res = oracle(prog, long, Options(policy="recent"), Limits(time_s=0.3))
    assert isinstance(res, Undecided) and "time" in res.reason


# ------------------------------------------------------------------------------------------------ properties
ATOMS = ("a", "b", "c")
OPS = ("seq", "and", "par", "or", "equals", "meets", "during", "starts", "finishes")
ARGS = ("X", "Y", "_", "1")


@st.composite
def patterns(draw, depth, heads, joins=True, points=True):
    """(text, bound variables) of a random negation-free pattern (after tests/test_etalis_engine.py)."""
    leafs = ["leaf"] * 6 + (["point"] if points else [])
    kinds = (["leaf"] * 3 + (["bin"] * 4 if joins else ["or"] * 2) + ["win", "where"] + (["point"] if points else [])
             if depth > 0 else leafs)
    kind = draw(st.sampled_from(kinds))
    if kind == "point":
        return str(draw(st.integers(0, 6))), set()
    if kind == "leaf":
        name = draw(st.sampled_from(ATOMS + tuple(heads)))
        arg = draw(st.sampled_from(ARGS))
        return f"{name}({arg})", ({arg} if arg[0].isupper() else set())
    if kind == "win":
        p, b = draw(patterns(depth - 1, heads, joins, points))
        return f"({p}).{draw(st.integers(0, 4))}", b
    if kind == "where":
        p, b = draw(patterns(depth - 1, heads, joins, points))
        if not b:
            return p, b
        v = draw(st.sampled_from(sorted(b)))
        w = draw(st.sampled_from(sorted(b)))
        k = draw(st.integers(0, 3))
        cond = draw(st.sampled_from([f"{v} < {k}", f"{v} >= {k}", f"{v} =\\= {k}", f"\\+ ({v} =:= {k})",
                                     f"{v} + 1 > {w}", f"({v} < {k} ; {w} == 2)", f"{v} =< {w}"]))
        return f"({p}) where ({cond})", b
    op = "or" if kind == "or" else draw(st.sampled_from(OPS))
    l, lb = draw(patterns(depth - 1, heads, joins, points))
    r, rb = draw(patterns(depth - 1, heads, joins, points))
    if op == "or" and lb != rb:
        if not joins:
            return l, lb
        op = "and"
    return f"({l}) {op} ({r})", (lb & rb if op == "or" else lb | rb)


@st.composite
def programs(draw, joins=True, points=True):
    n = draw(st.integers(1, 3))
    rules, heads = [], []
    for i in range(n):
        head = f"d{i}"
        visible = heads + ([head] if draw(st.booleans()) else [])   # self-recursion sometimes
        body, bound = draw(patterns(draw(st.integers(1, 3)), visible, joins, points))
        arg = draw(st.sampled_from(sorted(bound))) if bound else "1"
        rule = f"{head}({arg}) <- {body}."
        if draw(st.integers(0, 3)) == 0:
            rule = f"w{i}([property(event_rule_window, {draw(st.integers(1, 5))})]) 'rule:' " + rule
        rules.append(rule)
        heads.append(head)
    if joins and draw(st.integers(0, 3)) == 0:   # recursive counter with a guard
        rules.append("cnt(0) <- b(_). cnt(N+1) <- cnt(N) seq a(_) where N < 2.")
    return "\n".join(rules)


@st.composite
def streams(draw):
    evs = []
    for _ in range(draw(st.integers(0, 7))):
        s = draw(st.integers(0, 6))
        e = s + draw(st.sampled_from([0, 0, 0, 1, 2, 3]))
        evs.append((draw(st.sampled_from(ATOMS)), draw(st.integers(1, 2)), s, e))
    evs.sort(key=lambda x: x[3])
    return [StreamEvent(A.EventAtom(n, (A.Num(v),)), s, e, i) for i, (n, v, s, e) in enumerate(evs)]


def _parse(rules):
    try:
        return parse(rules)
    except ParseError:
        assume(False)


def _unrestricted(prog, evs):
    try:
        res = unrestricted_oracle(prog, evs, Options(), FAST)
    except UnsupportedError:
        assume(False)
    assume(isinstance(res, OracleResult))
    return set(res.results)


OPTS = st.fixed_dictionaries({"policy": st.sampled_from(POLICIES),
                              "interval_policy": st.sampled_from(["off", "off", "longest", "shortest", "max:X",
                                                                  "min:Y"])})


@settings(deadline=None)
@given(programs(), streams(), OPTS)
def test_subset_of_unrestricted(rules, evs, opts):
    """P9: without negation a policy only drops joins (interval_policy only drops stored instances)."""
    prog = _parse(rules)
    want = _unrestricted(prog, evs)
    got = run(prog, evs, **opts)
    assert got <= want, f"policy-only {got - want}"


@settings(deadline=None, max_examples=30)
@given(programs(joins=False), streams(), st.sampled_from(POLICIES))
def test_join_free_programs_do_not_depend_on_the_policy(rules, evs, policy):
    """Without binary joins nothing is stored: every policy dispatches every derivable event (P5, P6), which
    is the unrestricted minimal model."""
    prog = _parse(rules)
    assert run(prog, evs, policy) == _unrestricted(prog, evs)


@settings(deadline=None, max_examples=30)
@given(programs(points=False), streams(), OPTS)
def test_prefix_property(rules, evs, opts):
    """Steps are deterministic and process the input in order; every result produced while processing an item
    ends at or after that item's end (hulls, seq/meets/starts/finishes/during(container) results, NOT's
    end delimiter).  So, without time points, the run on the events ending <= t yields exactly the results
    of the full run that end <= t."""
    prog = _parse(rules)
    full = run(prog, evs, **opts)
    if evs:
        t = evs[len(evs) // 2].end
        pre = run(prog, [e for e in evs if e.end <= t], **opts)
        assert pre == {r for r in full if r[2] <= t}
