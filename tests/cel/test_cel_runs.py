"""CEL engine: binding runs (engine/cel/runs.py; docs/semantics/cel.md#cel-10.4) against the oracle.

Binding runs evaluate the formulas the automaton compiler refuses: filters inside an iteration
that read a variable bound after it (every round is checked against the later event), filters
over both sides of an AND whose binding order is open. References: the clingo oracle (via
ceplab.workbench.compare) and hand-computed outputs of the satisfaction relation
(docs/semantics/cel.md#cel-3.1).
"""
from __future__ import annotations

import dataclasses
import random

import pytest

from ceplab.asp.oracle import Limits
from ceplab.engine.cel import compile_query, evaluator
from ceplab.engine.cel.runs import RunEvaluator
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.events import Stream
from ceplab.workbench.compare import compare
from ceplab.workbench.language import get
from ceplab.workbench.langs.cel.generators import random_cel_case

LIMITS = Limits(time_s=20.0, isolate=False)


def stream(spec: str) -> Stream:
    """``"B2 B0 A1"`` -> events of type B, B, A with ``v`` = 2, 0, 1."""
    return Stream.of([(tok[0], {"v": int(tok[1:])}) for tok in spec.split()])


def emitted(ev, s: Stream) -> list:
    out = []
    for e in s:
        got = ev.push(e)
        assert all(c[-1] == e.position for c in got), (got, e.position)
        out.extend(got)
    out.extend(ev.close())
    assert len(out) == len(set(out)), "a complex event was emitted twice"
    return sorted(out)


def agree(text: str, s: Stream, options: Options = Options(), lang=None) -> None:
    rep = compare(lang or get("cel"), parse(text, options=options), s, options, limits=LIMITS)
    assert rep.undecided is None, rep.undecided
    assert rep.agree, (text, rep.summary(), rep.problems, rep.oracle_only, rep.engine_only)


# ---------------------------------------------------------------- worked example (cel-10.4)
def test_every_round_is_checked_against_the_later_event():
    """docs/semantics/cel.md#cel-10.4: on B(2) B(0) A(1) only {1,2} has every round's x.v <= y.v."""
    q = "((B AS x FILTER x.v <= y.v))+ ; A AS y"
    with pytest.raises(UnsupportedError, match="iteration"):
        compile_query(parse(q))
    ev = evaluator(parse(q))
    assert isinstance(ev, RunEvaluator)
    assert "outside Theorem 3's constant-time guarantee" in ev.path
    assert emitted(ev, stream("B2 B0 A1")) == [(1, 2)]
    agree(q, stream("B2 B0 A1"))


@pytest.mark.parametrize("strategy", ["ALL", "STRICT", "NXT", "LAST", "MAX"])
@pytest.mark.parametrize("text", [
    "((B AS x FILTER x.v <= y.v))+ ; A AS y",
    "(((B AS x FILTER x.v < y.v))+ ; A AS y)+",                 # y is round-local in the outer +
    "(B AS x FILTER NOT (x.v != y.v))+ AND ((B AS c)+ ; B AS y ; (B AS d)+)",   # order open
    "A AS u ; ((B AS x ; C AS w) FILTER (x.v >= y.v OR w.v = 2))+ ; A AS y",
])
def test_strategies_on_binding_runs_equal_oracle(text, strategy):
    s = stream("A1 B2 C0 B1 B1 A1 B0 C2 A2 B1")
    q = text if strategy == "ALL" else f"{strategy}({text})"
    assert isinstance(evaluator(parse(q)), RunEvaluator)
    agree(q, s)
    if strategy == "MAX":
        agree(q, s, Options(max_scope="global"))
    agree(f"{q[:-1]} WITHIN 3)" if strategy != "ALL" else f"({q}) WITHIN 3", s)


# ---------------------------------------------------------------- differential, seeded
def test_generated_binding_run_cases_equal_oracle():
    """The fuzzing generator's cases that the compiler refuses (filters of an iteration over a
    later variable, drawn at rate ``P_LATER``): engine == oracle, under random switches."""
    n = 0
    for i in range(400):
        text, s = random_cel_case(random.Random(i), 6)
        if not isinstance(evaluator(parse(text)), RunEvaluator):
            continue
        n += 1
        rng = random.Random(i)
        agree(text, s, Options(max_scope=rng.choice(["same_end", "global"]),
                               nxt_output=rng.choice(["marked", "top_ranked"])))
        if n == 30:
            break
    assert n == 30


def test_binding_runs_equal_oracle_on_any_formula():
    """Binding runs are the satisfaction relation read left to right: forced on random formulas of
    every kind (not only refused ones), they agree with the oracle."""
    lang = dataclasses.replace(get("cel"), evaluator=lambda q, o: RunEvaluator(q, o))
    for i in range(1000, 1060):
        text, s = random_cel_case(random.Random(i), 6)
        agree(text, s, Options(max_scope=random.Random(i).choice(["same_end", "global"])), lang)


def test_window_bounds_live_runs():
    """With WITHIN w the live runs lie in the last w + 1 positions: their number stays bounded on
    a long stream (without a window ``(B AS x ...)+`` keeps every subset)."""
    q = parse("((B AS x FILTER x.v <= y.v))+ ; A AS y WITHIN 3")
    ev = evaluator(q)
    s = stream(" ".join(("B1", "B0", "A1", "B2")[i % 4] for i in range(400)))
    peak = 0
    for e in s:
        ev.push(e)
        peak = max(peak, ev.stats()["live_runs"])
        assert all(p >= e.position - 3 for p in ev.events)
    assert peak < 40, peak


def test_nested_blocks_need_the_dispatcher():
    from ceplab.semantics.cel import ast as A
    with pytest.raises(UnsupportedError, match="nested selection strategy"):
        RunEvaluator(A.Query(A.Seq(A.Sel("NXT", A.Atom("A", "x")), A.Atom("B", "y"))))


COMP = Options(nested_strategies="compositional")


@pytest.mark.parametrize("text", [
    "MAX((A AS x)+) AND (A AS y ; A AS z)",
    "LAST(NXT((A AS x)+ ; B AS y) AND ((A AS u)+ ; (B AS v FILTER v.v >= 1)))",
    "(C AS c ; (STRICT((A AS x OR B AS x)+ WITHIN 2) AND (A AS y ; (A AS z OR B AS z))))+",
])
def test_block_under_and_equals_oracle(text):
    """A nested strategy inside AND (the nested evaluator's product automaton cannot synchronise a block):
    binding runs with one evaluator per block, against the oracle."""
    q = parse(text, options=COMP)
    assert isinstance(evaluator(q, COMP), RunEvaluator)
    for spec in ("A1 A0 B1 A2 B2 C0", "C0 A1 B1 A1 B0 A2 A0", "A0 A1 A2 B1 B2 A1"):
        agree(text, stream(spec), COMP)


def test_nested_cases_on_binding_runs_equal_oracle():
    """Binding runs forced on the generator's nested cases (any position of the block) agree with the
    oracle: the block protocol (mark freely, complete on a selected CE) is exact."""
    from ceplab.engine.cel import evaluator as dispatch
    from ceplab.workbench.langs.cel.generators import random_nested_cel_case
    lang = dataclasses.replace(get("cel"), evaluator=lambda q, o: RunEvaluator(q, o, evaluator=dispatch))
    for i in range(40):
        text, s = random_nested_cel_case(random.Random(i), 6)
        rep = compare(lang, parse(text, options=COMP), s, COMP, limits=LIMITS)
        assert rep.undecided is None and rep.agree, (text, rep.summary(), rep.problems)


def test_fuzz_draws_blocks_under_and():
    """``ceplab fuzz cel`` draws nested blocks under AND (binding runs with block evaluators); the first few
    agree with the oracle."""
    from ceplab.workbench.langs.cel import _random_case
    found = []
    for i in range(800):
        text, s, o = _random_case(random.Random(i), 6)
        if o.nested_strategies == "compositional":
            q = parse(text, options=o)
            if isinstance(evaluator(q, o), RunEvaluator):
                found.append((text, s, o))
    assert len(found) >= 5, len(found)
    for text, s, o in found[:5]:
        agree(text, s, o)
