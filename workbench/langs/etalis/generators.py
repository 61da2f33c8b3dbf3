"""Random ETALIS cases for hypothesis and the Spark fuzzer, on the shared :class:`~ceplab.workbench.generators.Chooser`.

:func:`gen_etalis_pattern`, :func:`gen_etalis_program` (rule texts in the ``.event`` syntax),
:func:`gen_etalis_stream` (``StreamEvent`` lists ordered by end time, with ties and interval-stamped inputs);
hypothesis wrappers :func:`etalis_programs`, :func:`etalis_streams`, :func:`etalis_options`, :func:`etalis_cases`;
Spark entry :func:`random_etalis_case`; bundle :class:`EtalisStrategies`. A drawn program may still fail to
parse (e.g. an unsafe head variable) or be refused by the oracle/engine; callers redraw
(:func:`ceplab.workbench.langs.etalis.random_case`) or ``assume`` it away.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from hypothesis import strategies as st

from ceplab.workbench.generators import Chooser, HypothesisChooser, RandomChooser

#: Stream predicates of generated ETALIS programs (each with one integer argument in {1, 2}).
ETALIS_ATOMS: tuple[str, ...] = ("a", "b", "c")
#: The nine binary operators of the paper (Figure 2; DURING restored by docs/semantics/etalis.md#etalis-A3).
ETALIS_OPS: tuple[str, ...] = ("seq", "and", "par", "or", "equals", "meets", "during", "starts",
                               "finishes")
_ETALIS_ARGS = ("X", "Y", "_", "1")
# node kinds, simpler first (hypothesis shrinks towards the first element); weights by repetition
_ETALIS_KINDS = ("leaf",) * 3 + ("bin",) * 4 + ("win", "where", "not", "point")
_ETALIS_LEAF_KINDS = ("leaf",) * 6 + ("point",)


def gen_etalis_pattern(ch: Chooser, depth: int, heads: Sequence[str] = (), neg_ok: bool = True,
                       atoms: Sequence[str] = ETALIS_ATOMS) -> tuple[str, set[str], bool]:
    """A random ETALIS pattern: ``(text, variables it binds, uses not)``.

    Nodes: event atoms ``p(ARG)`` over ``atoms`` and the derived ``heads`` (ARG one of ``X``, ``Y``,
    ``_``, ``1``); absolute time points ``0..6``; the nine binary operators (an ``or`` whose sides
    bind different variables becomes ``and``, as the safety check requires); ``not(n).[p2, p3]`` (at
    most one per rule; the negated atom's argument is a delimiter variable, a local ``L``, ``_`` or a
    constant); windows ``(p).0..4``; ``where`` with comparisons, arithmetic, ``\\+``, ``;``, ``=:=``,
    ``=\\=`` over the bound variables. ``depth`` bounds the operator nesting.
    """
    names = tuple(atoms) + tuple(heads)
    kind = ch.choice(_ETALIS_KINDS if depth > 0 else _ETALIS_LEAF_KINDS)
    if kind == "point":
        return str(ch.integer(0, 6)), set(), False
    if kind == "leaf" or (kind == "not" and not neg_ok):
        name = ch.choice(names)
        arg = ch.choice(_ETALIS_ARGS)
        return f"{name}({arg})", ({arg} if arg[0].isupper() else set()), False
    if kind == "not":
        p2, b2, _ = gen_etalis_pattern(ch, depth - 1, heads, False, atoms)
        p3, b3, _ = gen_etalis_pattern(ch, depth - 1, heads, False, atoms)
        cand = sorted(b2 | b3) + ["_", "L", "2"]
        neg = ch.choice(names)
        return f"not({neg}({ch.choice(cand)})).[{p2}, {p3}]", b2 | b3, True
    if kind == "win":
        p, b, n = gen_etalis_pattern(ch, depth - 1, heads, neg_ok, atoms)
        return f"({p}).{ch.integer(0, 4)}", b, n
    if kind == "where":
        p, b, n = gen_etalis_pattern(ch, depth - 1, heads, neg_ok, atoms)
        if not b:
            return p, b, n
        v = ch.choice(sorted(b))
        w = ch.choice(sorted(b))
        k = ch.integer(0, 3)
        cond = ch.choice([f"{v} < {k}", f"{v} >= {k}", f"{v} =\\= {k}", f"\\+ ({v} =:= {k})",
                          f"{v} + 1 > {w}", f"({v} < {k} ; {w} == 2)", f"{v} =< {w}"])
        return f"({p}) where ({cond})", b, n
    op = ch.choice(ETALIS_OPS)
    left, lb, ln = gen_etalis_pattern(ch, depth - 1, heads, neg_ok, atoms)
    right, rb, rn = gen_etalis_pattern(ch, depth - 1, heads, neg_ok and not ln, atoms)
    if op == "or" and lb != rb:
        op = "and"
    return f"({left}) {op} ({right})", (lb & rb if op == "or" else lb | rb), ln or rn


def gen_etalis_program(ch: Chooser, *, max_rules: int = 3, max_depth: int = 3,
                       atoms: Sequence[str] = ETALIS_ATOMS, p_self: float = 0.5,
                       p_rule_window: float = 0.25, p_counter: float = 0.25) -> str:
    """A random ETALIS rule base (text), docs/semantics/etalis.md#etalis-9.4.

    ``1..max_rules`` rules ``d0(ARG) <- body.``, ``d1(..) <- ..`` forming a hierarchy (rule ``i`` may
    use the heads of rules ``< i``), each body a :func:`gen_etalis_pattern` of depth
    ``1..max_depth``; with probability ``p_self`` a rule may also use its own head (self-recursion);
    with probability ``p_rule_window`` a rule gets an ``event_rule_window`` property (``w0([property(
    event_rule_window, 1..5)]) 'rule:' ...``). At most one ``not`` in the whole program (keeps the
    time stratification checkable). With probability ``p_counter`` the guarded recursive counter
    ``cnt(0) <- b(_). cnt(N+1) <- cnt(N) seq a(_) where N < 2.`` is added.
    """
    n = ch.integer(1, max_rules)
    rules: list[str] = []
    heads: list[str] = []
    used_not = False
    for i in range(n):
        head = f"d{i}"
        visible = heads + ([head] if ch.boolean(p_self) else [])
        body, bound_vars, uses_not = gen_etalis_pattern(ch, ch.integer(1, max_depth), visible,
                                                         not used_not, atoms)
        used_not |= uses_not
        arg = ch.choice(sorted(bound_vars)) if bound_vars else "1"
        rule = f"{head}({arg}) <- {body}."
        if ch.boolean(p_rule_window):
            rule = f"w{i}([property(event_rule_window, {ch.integer(1, 5)})]) 'rule:' " + rule
        rules.append(rule)
        heads.append(head)
    if ch.boolean(p_counter):
        rules.append("cnt(0) <- b(_). cnt(N+1) <- cnt(N) seq a(_) where N < 2.")
    return "\n".join(rules)


def gen_etalis_stream(ch: Chooser, length: int, atoms: Sequence[str] = ETALIS_ATOMS,
                      max_time: int | None = None, values: tuple[int, int] = (1, 2),
                      durations: Sequence[int] = (0, 0, 0, 1, 2, 3)) -> list[Any]:
    """A random ETALIS stream: ``length`` events ``p(v)`` (``p`` in ``atoms``, ``v`` in ``values``)
    with start in ``0..max_time`` (default ``max(6, 3*length//4)``, so times repeat: ties) and end =
    start + a duration from ``durations`` (mostly points, some interval-stamped inputs), ordered by
    end time (stable), ``position`` = index."""
    from ceplab.semantics.etalis import ast as EA
    from ceplab.semantics.etalis.streams import StreamEvent

    if max_time is None:
        max_time = max(6, 3 * length // 4)
    evs = []
    for _ in range(length):
        s = ch.integer(0, max_time)
        e = s + ch.choice(list(durations))
        evs.append((ch.choice(list(atoms)), ch.integer(*values), s, e))
    evs.sort(key=lambda x: x[3])
    return [StreamEvent(EA.EventAtom(n, (EA.Num(v),)), s, e, i) for i, (n, v, s, e) in enumerate(evs)]


@st.composite
def _etalis_programs(draw, kw):
    return gen_etalis_program(HypothesisChooser(draw), **kw)


@st.composite
def _etalis_streams(draw, min_len, max_len, kw):
    ch = HypothesisChooser(draw)
    return gen_etalis_stream(ch, ch.integer(min_len, max_len), **kw)


def etalis_programs(**kw: Any) -> st.SearchStrategy[str]:
    """Hypothesis strategy of ETALIS rule texts; keywords as :func:`gen_etalis_program`."""
    return _etalis_programs(kw)


def etalis_streams(min_len: int = 0, max_len: int = 8, **kw: Any) -> st.SearchStrategy[list]:
    """Hypothesis strategy of ETALIS streams (:func:`gen_etalis_stream`), length in
    [min_len, max_len]."""
    return _etalis_streams(min_len, max_len, kw)


def etalis_cases(min_len: int = 0, max_len: int = 8, **kw: Any) -> st.SearchStrategy[tuple]:
    """Hypothesis strategy of ``(rules_text, stream)`` pairs."""
    return st.tuples(etalis_programs(**kw), etalis_streams(min_len, max_len))


def etalis_options(policies: bool = True) -> st.SearchStrategy[Any]:
    """Hypothesis strategy of :class:`ceplab.semantics.etalis.options.Options`: ``not_local_vars``,
    ``proper_intervals_only``, ``window``, ``during_result`` (``"contained"`` in about a third of the draws, with
    or without ``not`` in the program: the engine decides the programs with both at ``close()``,
    docs/semantics/etalis.md#etalis-9.5.9) and, under the unrestricted policy, ``not_reading``. With
    ``policies`` (default) also the consumption ``policy`` (the policies are per witness only)."""
    from ceplab.semantics.etalis.options import Options

    pol = (st.sampled_from(["unrestricted", "chronological", "recent", "recent_lifo"]) if policies
           else st.just("unrestricted"))

    def build(policy: str, not_local_vars: str, proper: bool, window: str, literal: bool, during: str) -> Any:
        return Options(not_local_vars=not_local_vars, proper_intervals_only=proper, window=window,
                       policy=policy, during_result=during,
                       not_reading="literal" if literal and policy == "unrestricted" else "per_witness")

    return st.builds(build, pol, st.sampled_from(["existential", "free"]), st.booleans(),
                     st.sampled_from(["at_most", "exactly"]), st.booleans(),
                     st.sampled_from(["container", "container", "contained"]))


def gen_hull_not_rule(ch: Chooser) -> str:
    """A rule ``dn(X) <- not(P1).[P2, P3].`` over the stream predicates ``a`` and ``b`` whose readings of NOT
    often differ (docs/semantics/etalis.md#etalis-A7, #etalis-T6b): ``P2`` is a complex delimiter
    (``a(X) seq b(..)``, ``and``, ``par``), so several P2 instances share a start with different ends and a
    blocked gap can hide an unblocked one with the same hull under ``not_reading="literal"``; ``P1`` and
    ``P3`` are atoms, mostly ``b`` (with interval-stamped input, P3 instances with one end and different
    starts arrive at the same time). :func:`random_etalis_case` draws the stream over ``a`` and ``b`` then."""
    op = ch.choice(("seq", "and", "and", "par"))
    p2 = f"(a(X)) {op} (b({ch.choice(('_', 'X', '1'))}))"
    p1 = f"{ch.choice(('b', 'b', 'a'))}({ch.choice(('_', 'X', 'L'))})"
    p3 = f"{ch.choice(('b', 'b', 'a'))}({ch.choice(('_', '_', 'X'))})"
    return f"dn(X) <- not({p1}).[{p2}, {p3}]."


#: Probability that :func:`random_etalis_case` adds :func:`gen_hull_not_rule` to a program without ``not``.
P_HULL_NOT = 0.4


def random_etalis_case(rng: random.Random, length: int, **kw: Any) -> tuple[str, list]:
    """Spark fuzzing entry: ``(rules_text, stream)`` drawn by the same generators as
    :func:`etalis_programs` / :func:`etalis_streams`, from a seeded ``random.Random``; with probability
    :data:`P_HULL_NOT` a program without ``not`` gets the rule of :func:`gen_hull_not_rule` and a stream
    over ``a`` and ``b`` (so that ``not_reading="literal"`` meets the cases where it differs from the
    default)."""
    ch = RandomChooser(rng)
    text = gen_etalis_program(ch, **kw)
    if "not(" not in text and ch.boolean(P_HULL_NOT):
        text += "\n" + gen_hull_not_rule(ch)
        return text, gen_etalis_stream(ch, length, atoms=("a", "b"))
    return text, gen_etalis_stream(ch, length)


class EtalisStrategies:
    """The registry's strategy bundle for ETALIS (``ceplab.workbench.language.Language.strategies``).
    ``queries()`` draws rule texts (parse them with the language's ``parse``)."""

    def queries(self, **kw: Any) -> st.SearchStrategy[str]:
        return etalis_programs(**kw)

    def streams(self, min_len: int = 0, max_len: int = 8) -> st.SearchStrategy[list]:
        return etalis_streams(min_len, max_len)

    def options(self) -> st.SearchStrategy[Any]:
        return etalis_options()

    @staticmethod
    def render(query: Any) -> str:
        return str(query) if not isinstance(query, str) else query
