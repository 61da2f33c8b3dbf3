"""The ETALIS consumption-policy engine (engine/etalis/policy.py) on hand-derived cases of ETALIS-P
(semantics/etalis/policies.py; docs/semantics/etalis.md#etalis-3.12, #etalis-A10 to #etalis-A12, #etalis-9.6).

Each expectation is derived by hand from the definition (the derivation is in the comment), not taken from a
run.  The differential test against the step-indexed ASP specification is tests/test_etalis_policy_diff.py.
"""
import pytest

from ceplab.engine.etalis import evaluator
from ceplab.engine.etalis.policy import PolicyEvaluator
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.options import Options
from ceplab.semantics.etalis.parser import parse, parse_term
from ceplab.semantics.etalis.streams import StreamEvent

POLICIES = ("chronological", "recent_lifo", "recent")


def stream(text: str) -> list[StreamEvent]:
    """``"a@1 b(1,x)@2 p@3-5"`` -> stream events in the given order."""
    out = []
    for i, tok in enumerate(text.split()):
        atom, t = tok.rsplit("@", 1)
        s, _, e = t.partition("-")
        term = parse_term(atom)
        ea = A.EventAtom(term.name, ()) if isinstance(term, A.Sym) else A.EventAtom(term.functor, term.args)
        out.append(StreamEvent(ea, int(s), int(e or s), i))
    return out


def run(rules: str, events: str, policy: str, **kw) -> set:
    ev = evaluator(parse(rules), Options(policy=policy, **kw))
    assert isinstance(ev, PolicyEvaluator)
    got = ev.run(stream(events))
    assert len(got) == len(set(got)), f"a result emitted twice: {got}"
    return set(got)


RUNNING = "a@1 a@2 a@3 b@4 b@5 c@6"


@pytest.mark.parametrize("policy,ie,e", [
    # docs/semantics/etalis.md#etalis-3.12 table: FIFO: B4 takes A1, B5 takes A2, C6 takes IE(1,4)
    ("chronological", {(1, 4), (2, 5)}, {(1, 6)}),
    # the paper's mechanism (LIFO, consuming): B4 takes A3, B5 takes A2, C6 takes the newest IE(2,5)
    ("recent_lifo", {(3, 4), (2, 5)}, {(2, 6)}),
    # the paper's narrative: only A3 is kept; B4 and B5 both use it; IE(3,5) replaces IE(3,4)
    ("recent", {(3, 4), (3, 5)}, {(3, 6)}),
])
def test_running_example_t2(policy, ie, e):
    two = run("ie <- a seq b. e <- ie seq c.", RUNNING, policy)
    assert {(s, t) for n, s, t in two if n == "ie"} == ie
    assert {(s, t) for n, s, t in two if n == "e"} == e
    one = run("e <- a seq b seq c.", RUNNING, policy)     # binarized into the same two nodes
    assert one == {("e", s, t) for s, t in e}


@pytest.mark.parametrize("policy,interval,expect", [
    # a[1,30] then a[15,30] (same end), b[35,50]; recent keeps the newest unless the option prefers the older
    ("recent", "off", (15, 50)), ("recent", "longest", (1, 50)), ("recent", "shortest", (15, 50)),
    # LIFO takes the last inserted; the options keep one of the two same-end goals
    ("recent_lifo", "off", (15, 50)), ("recent_lifo", "longest", (1, 50)), ("recent_lifo", "shortest", (15, 50)),
    # FIFO takes the first inserted; same *start* is the chronological timestamp, so the options do not apply
    ("chronological", "off", (1, 50)), ("chronological", "longest", (1, 50)),
    ("chronological", "shortest", (1, 50)),
])
def test_interval_policies_paper_example(policy, interval, expect):
    got = run("ie <- a seq b.", "a@1-30 a@15-30 b@35-50", policy, interval_policy=interval)
    assert got == {("ie",) + expect}


@pytest.mark.parametrize("policy", ["recent", "recent_lifo"])
@pytest.mark.parametrize("interval,vol", [("max:V", 10000), ("min:V", 1000), ("off", 10000)])
def test_interval_policy_attribute(policy, interval, vol):
    # rule (30): among same-end goals keep the greater (smaller) Vol; 'off': the newest (10000) is taken
    got = run("ie(X,V) <- a(X,V) seq b.", "a(x,1000)@1-30 a(y,10000)@15-30 b@35-50", policy,
              interval_policy=interval)
    assert {r[0] for r in got} == {f"ie({'y' if vol == 10000 else 'x'},{vol})"}


@pytest.mark.parametrize("interval,expect", [("off", "ie(1)"), ("longest", "ie(2)"), ("shortest", "ie(1)")])
def test_interval_policy_chronological_same_start(interval, expect):
    # a(1)[1,3] and a(2)[1,5] share the start: FIFO takes a(1); 'longest' keeps a(2), 'shortest' a(1)
    got = run("ie(X) <- a(X) seq b.", "a(1)@1-3 a(2)@1-5 b@7", "chronological", interval_policy=interval)
    assert got == {(expect, 1, 7)}


@pytest.mark.parametrize("policy,expect", [
    # chronological: a1,a2 stored; b3 takes a1, b4 takes a2, b5 finds none and is stored, a6 takes b5
    ("chronological", {(1, 3), (2, 4), (5, 6)}),
    # LIFO: b3 takes a2, b4 takes a1, b5 stored, a6 takes b5
    ("recent_lifo", {(2, 3), (1, 4), (5, 6)}),
    # recent: store(a) = a2; b3, b4, b5 each pair with a2 (b's replace each other); a6 pairs with b5
    ("recent", {(2, 3), (2, 4), (2, 5), (5, 6)}),
])
def test_and_pairwise(policy, expect):
    got = run("c <- a and b.", "a@1 a@2 b@3 b@4 b@5 a@6", policy)
    assert got == {("c", s, e) for s, e in expect}


@pytest.mark.parametrize("policy,expect", [
    # a1, a2 are blocked by x3 for every later b; b5 takes a4 (consumed); b6 finds nothing unblocked
    ("chronological", {(4, 5)}), ("recent_lifo", {(4, 5)}),
    # recent keeps a4 and never consumes it
    ("recent", {(4, 5), (4, 6)}),
])
def test_not_consumes_start_delimiter(policy, expect):
    got = run("c <- not(x).[a, b].", "a@1 a@2 x@3 a@4 b@5 b@6", policy)
    assert got == {("c", s, e) for s, e in expect}


@pytest.mark.parametrize("policy", ["chronological", "recent_lifo"])
def test_pushed_window_skips_a_too_old_goal(policy):
    # window 3: at b5, a1 would give [1,5] (length 4): not a candidate, so a3 is taken (not a1 consumed and
    # the result dropped); at b6 a1 is dead and a3 consumed: nothing
    got = run("w([property(event_rule_window, 3)]) 'rule:' d <- a seq b.", "a@1 a@3 b@5 b@6", policy)
    assert got == {("d", 3, 5)}


def test_where_solutions_in_term_order():
    # the where binds Y to 1 and 2 (static facts): both goals are stored, Y=1 first
    rules = "f(2). f(1). c(Y) <- (a where f(Y)) seq b."
    assert run(rules, "a@1 b@2 b@3", "chronological") == {("c(1)", 1, 2), ("c(2)", 1, 3)}
    assert run(rules, "a@1 b@2 b@3", "recent_lifo") == {("c(2)", 1, 2), ("c(1)", 1, 3)}


def test_recursion_consumes_the_counter():
    # cnt(0)[1,1]; a2 consumes it -> cnt(1)[1,2]; a3 -> cnt(2)[1,3]; a4 consumes cnt(2), the where fails
    rules = "cnt(0) <- b. cnt(N+1) <- cnt(N) seq a where N < 2."
    got = run(rules, "b@1 a@2 a@3 a@4", "chronological")
    assert got == {("cnt(0)", 1, 1), ("cnt(1)", 1, 2), ("cnt(2)", 1, 3)}


def test_duplicate_derivation_is_dispatched_once():
    # x(1,1) is derived by two rules but is one goal: b2 consumes it, b3 finds nothing
    got = run("x <- a. x <- a. y <- x seq b.", "a@1 b@2 b@3", "chronological")
    assert got == {("x", 1, 1), ("y", 1, 2)}


@pytest.mark.parametrize("policy", POLICIES)
def test_meets_same_time_point(policy):
    assert run("c <- a meets b.", "a@1 b@1", policy) == {("c", 1, 1)}
    assert run("c <- a meets b.", "a@1 b@1", policy, proper_intervals_only=True) == set()


@pytest.mark.parametrize("policy", POLICIES)
def test_time_point_and_close(policy):
    # the time point 6 is processed after the last event (ETALIS-P 3): r on [1,6]
    assert run("r <- a seq 6.", "a@1", policy) == {("r", 1, 6)}


def test_options_guard_rails():
    with pytest.raises(ValueError):
        Options(interval_policy="longest")
    with pytest.raises(ValueError):
        Options(policy="chronological", not_reading="literal")
    with pytest.raises(ValueError):
        PolicyEvaluator(parse("d <- a seq b."), Options())


def test_memory_bounded_by_window():
    # 30,000 events of a 'd <- a seq b' window 10 under every policy: the stores stay bounded
    import random
    rnd = random.Random(3)
    evs = [StreamEvent(A.EventAtom(rnd.choice("aab")), t, t, t) for t in range(30_000)]
    for policy in POLICIES:
        ev = evaluator(parse("w([property(event_rule_window, 10)]) 'rule:' d <- a seq b."), Options(policy=policy))
        ev.run(evs)
        assert ev.stats()["stored"] <= 2 * 11, (policy, ev.stats())


@pytest.mark.parametrize("policy", POLICIES)
def test_older_blocker_still_blocks(policy):
    # c3 ends before b starts at 6 and after a ends: it blocks a1 under every policy, although a newer
    # c (on [4,8]) has arrived since (blockers are appended, never replaced: ETALIS-P 7)
    assert run("r <- not(c).[a, b].", "a@1 c@3 c@4-8 b@6-9", policy) == set()


@pytest.mark.parametrize("policy", POLICIES)
def test_self_sequence_checks_before_inserting(policy):
    # dispatch order (ETALIS-P 5): the right operand (checking) before the left one (inserting), as ETALIS's
    # compiler orders its clauses; so a2 completes with a1 before it becomes the stored initiator
    assert run("e <- a seq a.", "a@1 a@2 a@3", policy) == {("e", 1, 2), ("e", 2, 3)}
    # not(c).[a, a]: the end delimiter checks before the start delimiter is stored
    assert run("e <- not(c).[a, a].", "a@1 a@2 c@3 a@4", policy) == {("e", 1, 2)}
