"""The interpreted path of ALL/STRICT against the generated path (``Options.engine_path``).

:class:`ceplab.engine.cel.interpret.InterpretedEvaluator` (the plain Algorithm 1 loop) and
:class:`ceplab.engine.cel.evaluate.DetEvaluator` (step plans compiled to Python code) run on the
*same* compiled CEA; on random queries (the generators of ``ceplab.workbench.langs.cel.generators``, with
binary filters, AND, WITHIN) and random streams they must emit the same complex events at the same
positions, each once.  The generated path compiles a plan only after ``compile_after`` uses (16 by
default), which short random streams never reach, so it is run twice: with ``compile_after=1``
(every step is generated code) and with the default (the lazy plan interpreter, then code).

The order in which the CEs of one position are enumerated is not compared: the generated path
itself orders the union ``Out(j, a) ∪ b`` differently before and after a plan is compiled.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import assume, given

from ceplab.engine.cel import compile_query, evaluator, evaluator_for_cea
from ceplab.engine.cel.evaluate import DetEvaluator
from ceplab.engine.cel.interpret import InterpretedEvaluator
from ceplab.semantics.cel.ast import Query
from ceplab.semantics.cel.options import Options
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.errors import UnsupportedError
from ceplab.semantics.events import Stream
from ceplab.workbench.langs.cel.generators import cel_cases, random_cel_case

INTERPRETED = Options(engine_path="interpreted")


def emitted(ev, stream) -> list[tuple[int, list[tuple[int, ...]]]]:
    """Per event: (position, the CEs it completes, sorted); asserts each CE is emitted once."""
    res = []
    seen = set()
    for e in stream:
        out = ev.push(e)
        assert len(out) == len(set(out)), f"a CE enumerated twice at {e.position}: {out}"
        assert not seen & set(out)
        seen |= set(out)
        res.append((e.position, sorted(out)))
    assert ev.close() == []
    return res


def compiled(query):
    try:
        return compile_query(query)
    except UnsupportedError:
        return None


def check_same(query, stream, cea=None) -> None:
    cea = cea if cea is not None else compiled(query)
    assume(cea is not None)
    strict = query.strategy == "STRICT"
    ref = emitted(InterpretedEvaluator(cea, within=query.within, strict=strict), stream)
    gen1 = emitted(DetEvaluator(cea, within=query.within, strict=strict, compile_after=1), stream)
    gen16 = emitted(DetEvaluator(cea, within=query.within, strict=strict), stream)
    assert gen1 == ref, str(query)
    assert gen16 == ref, str(query)


# ====================================================================== differential
@given(cel_cases(min_len=0, max_len=8, strategies=("ALL", "STRICT")))
def test_interpreted_equals_generated(case):
    query, stream = case
    check_same(query, stream)


@given(cel_cases(min_len=0, max_len=8, strategies=("ALL", "STRICT"), allow_and=False,
                 unary_only=True))
def test_interpreted_equals_generated_unary(case):
    query, stream = case
    check_same(query, stream)


@pytest.mark.parametrize("seed", range(12))
def test_interpreted_equals_generated_long_streams(seed):
    """Long random streams under a window (ALL output is exponential in the window, not in the
    stream): plans are reused past ``compile_after``, the window collector cuts kids, expired
    roots are dropped."""
    rng = random.Random(seed)
    for _ in range(20):
        text, stream = random_cel_case(rng, 120, strategies=("ALL", "STRICT"))
        q = parse(text)
        query = Query(q.formula, q.strategy, rng.randint(0, 6))
        cea = compiled(query)
        if cea is None:
            continue
        strict = query.strategy == "STRICT"
        ref = emitted(InterpretedEvaluator(cea, within=query.within, strict=strict), stream)
        gen = emitted(DetEvaluator(cea, within=query.within, strict=strict), stream)
        assert gen == ref, text


@given(cel_cases(min_len=0, max_len=8))
def test_engine_path_option_every_strategy(case):
    """``evaluator(query, Options(engine_path=...))``: same results for every strategy, and the
    ``path`` says which path ran."""
    query, stream = case
    try:
        gen = evaluator(query)
        itp = evaluator(query, INTERPRETED)
    except UnsupportedError:
        assume(False)
    if query.strategy in ("ALL", "STRICT"):
        assert type(gen) is DetEvaluator and "; generated path" in gen.path
        assert type(itp) is InterpretedEvaluator and "; interpreted path" in itp.path
    else:
        assert f"{query.strategy} has no generated code" in itp.path
        assert "engine_path=interpreted" in itp.path and "engine_path=generated" in gen.path
    assert emitted(itp, stream) == emitted(gen, stream)


# ====================================================================== unit cases
def test_paper_query_fig1_style():
    q = parse("(A AS a)+ ; B AS b WITHIN 3")
    s = Stream.of(list("AABABBAB"))
    assert sorted(evaluator(q, INTERPRETED).run(s)) == sorted(evaluator(q).run(s))
    assert sorted(evaluator(q, INTERPRETED).run(s)) == sorted(
        [(1, 2), (0, 1, 2), (0, 2), (3, 4), (1, 3, 4), (1, 4), (3, 5), (6, 7)])


def test_strict_and_registers():
    q = parse("STRICT(A AS a ; B AS b FILTER a.v < b.v)")
    s = Stream.of([("A", {"v": 1}), ("B", {"v": 2}), ("A", {"v": 5}), ("B", {"v": 3}),
                   ("B", {"v": 9})])
    ev = evaluator(q, INTERPRETED)
    assert "register extension" in ev.path
    assert ev.run(s) == evaluator(q).run(s) == [(0, 1)]


def test_cache_flush_keeps_results():
    q = parse("A AS a ; (B AS b FILTER a.v < b.v)+ WITHIN 6")
    rng = random.Random(3)
    s = Stream.of([(rng.choice("AB"), {"v": rng.randint(0, 50)}) for _ in range(200)])
    ref = emitted(evaluator(q), s)
    ev = evaluator(q, INTERPRETED)
    got = []
    for i, e in enumerate(s):
        if i % 17 == 0:
            ev._n_cached = 10 ** 9      # force a flush of the determinization caches
        got.append((e.position, sorted(ev.push(e))))
    assert got == ref and ev.n_flushes > 0


def test_compact_and_stats():
    q = parse("(A AS a)+ ; B AS b WITHIN 4")
    s = Stream.of(list("AABABBABAAAB" * 5))
    ev = evaluator(q, INTERPRETED)
    ref = evaluator(q)
    for e in s:
        ev.compact()
        assert sorted(ev.push(e)) == sorted(ref.push(e))
    st = ev.stats()
    assert st["events"] == len(s) and st["active_dfa_states"] >= 1


def test_unknown_engine_path():
    with pytest.raises(ValueError, match="engine_path"):
        evaluator(parse("A AS a"), Options(engine_path="bogus"))


def test_positions_must_increase():
    ev = evaluator(parse("A AS a"), INTERPRETED)
    s = Stream.of(list("AA"))
    ev.push(s[1])
    with pytest.raises(ValueError):
        ev.push(s[0])


def test_same_automaton_and_dstates():
    """Both paths build the same determinized states on the same CEA (same Algorithm 4)."""
    q = parse("(A AS a OR B AS b)+ ; C AS c")
    cea = compile_query(q)
    s = Stream.of(list("ABCABBCACBC"))
    a, b = InterpretedEvaluator(cea), DetEvaluator(cea, compile_after=1)
    emitted(a, s)
    emitted(b, s)
    assert set(a._dstates) == set(b._dstates)
    assert "interpreted path" in evaluator_for_cea(cea, "ALL", INTERPRETED).path
