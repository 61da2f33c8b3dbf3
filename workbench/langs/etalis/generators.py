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


def gen_aggregate_rule(ch: Chooser, head: str, heads: Sequence[str] = (),
                       atoms: Sequence[str] = ETALIS_ATOMS) -> str:
    """A random aggregate rule ``head(..) <- START seq aggregate(F, ITEM, R).`` (docs/semantics/etalis.md#etalis-4.4).

    ``F`` is ``count``, ``sum(V)``, ``avg(V)`` (a fraction flows on into the later rules' comparisons),
    ``min(V)`` or ``max(V)``; ``START`` a :func:`gen_etalis_pattern` of depth 0..1
    over ``atoms`` and the earlier ``heads`` (never ``head``: the start may be recursive in ETALIS, but a generated
    recursive aggregate creates unboundedly many values); ``ITEM`` an atom over ``atoms`` and ``heads`` whose argument
    is the aggregated variable ``V``, a start variable (a join) or ``_``; the head carries ``R``; in 30% a count window
    of 1..3 items.  Sometimes the whole body is under a window ``(..).w`` or a ``where`` on ``R``.
    """
    start, sb, _ = gen_etalis_pattern(ch, ch.integer(0, 1), heads, False, atoms)
    func = ch.choice(("count", "sum", "avg", "min", "max"))
    item_name = ch.choice(tuple(atoms) + tuple(heads))
    join = sorted(sb)
    if func == "count":
        arg = ch.choice(["V", "_", "1"] + join)
        f = "count"
    else:
        arg = ch.choice(["V", "V"] + join)
        f = f"{func}({arg})"
    last = f", {ch.integer(1, 3)}" if ch.boolean(0.3) else ""       # a count window: the last 1..3 items
    body = f"({start}) seq aggregate({f}, {item_name}({arg}), R{last})"
    shape = ch.choice(("plain", "plain", "window", "where"))
    if shape == "window":
        body = f"({body}).{ch.integer(1, 5)}"
    elif shape == "where":
        body = f"({body}) where (R {ch.choice(('>', '=<', '=:='))} {ch.integer(0, 3)})"
    return f"{head}(R) <- {body}."


def gen_etalis_program(ch: Chooser, *, max_rules: int = 3, max_depth: int = 3,
                       atoms: Sequence[str] = ETALIS_ATOMS, p_self: float = 0.5,
                       p_rule_window: float = 0.25, p_counter: float = 0.25, p_aggregate: float = 0.0) -> str:
    """A random ETALIS rule base (text), docs/semantics/etalis.md#etalis-9.4.

    ``1..max_rules`` rules ``d0(ARG) <- body.``, ``d1(..) <- ..`` forming a hierarchy (rule ``i`` may
    use the heads of rules ``< i``), each body a :func:`gen_etalis_pattern` of depth
    ``1..max_depth``; with probability ``p_self`` a rule may also use its own head (self-recursion);
    with probability ``p_rule_window`` a rule gets an ``event_rule_window`` property (``w0([property(
    event_rule_window, 1..5)]) 'rule:' ...``). At most one ``not`` in the whole program (keeps the
    time stratification checkable). With probability ``p_counter`` the guarded recursive counter
    ``cnt(0) <- b(_). cnt(N+1) <- cnt(N) seq a(_) where N < 2.`` is added.  With probability ``p_aggregate`` each
    rule is an aggregate rule instead (:func:`gen_aggregate_rule`; aggregates are defined under every policy,
    docs/semantics/etalis.md#etalis-4.4 and ETALIS-P 7b, but not with ``during_result="contained"``; the default 0
    keeps them out of the properties of aggregate-free programs, such as ETALIS-P 9's subset property).
    """
    n = ch.integer(1, max_rules)
    rules: list[str] = []
    heads: list[str] = []
    used_not = False
    for i in range(n):
        head = f"d{i}"
        if p_aggregate and ch.boolean(p_aggregate):
            rules.append(gen_aggregate_rule(ch, head, heads, atoms))
            heads.append(head)
            continue
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
    docs/semantics/etalis.md#etalis-9.5.9), the relation switches ``par_overlap``, ``starts_end``,
    ``during_bounds``, ``finishes_start`` (each the implementation's reading in a third of the draws,
    docs/semantics/etalis.md#etalis-A23 to #etalis-A26), ``aggregate_initial``, ``goal_replacement`` (under
    ``chronological`` and ``recent_lifo``) and, under the unrestricted policy, ``not_reading``. With
    ``policies`` (default) also the consumption ``policy`` (the policies are per witness only)."""
    from ceplab.semantics.etalis.options import Options

    pol = (st.sampled_from(["unrestricted", "chronological", "recent", "recent_lifo"]) if policies
           else st.just("unrestricted"))

    def build(policy: str, not_local_vars: str, proper: bool, window: str, literal: bool, during: str,
              relations: tuple, initial: str, replace: bool) -> Any:
        return Options(not_local_vars=not_local_vars, proper_intervals_only=proper, window=window,
                       policy=policy, during_result=during, aggregate_initial=initial,
                       goal_replacement="same_values" if replace and policy in ("chronological", "recent_lifo")
                       else "keep",
                       not_reading="literal" if literal and policy == "unrestricted" else "per_witness",
                       **dict(zip(("par_overlap", "starts_end", "during_bounds", "finishes_start"), relations)))

    relations = st.tuples(*(st.sampled_from([paper, paper, other]) for paper, other in (
        ("positive", "starts_before_end"), ("strict", "inclusive"), ("strict", "inclusive"), ("strict", "any"))))
    return st.builds(build, pol, st.sampled_from(["existential", "free"]), st.booleans(),
                     st.sampled_from(["at_most", "exactly"]), st.booleans(),
                     st.sampled_from(["container", "container", "contained"]), relations,
                     st.sampled_from(["none", "sentinel"]), st.booleans())


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


# ----------------------------------------------------------------------------- switch-steered shapes
def _events(evs: Sequence[tuple[str, tuple[int, ...], int, int]]) -> list[Any]:
    """``(name, args, start, end)`` tuples as a stream ordered by end time (stable), ``position`` = index."""
    from ceplab.semantics.etalis import ast as EA
    from ceplab.semantics.etalis.streams import StreamEvent

    evs = sorted(evs, key=lambda x: x[3])
    return [StreamEvent(EA.EventAtom(n, tuple(EA.Num(v) for v in args)), s, e, i)
            for i, (n, args, s, e) in enumerate(evs)]


def _noise(ch: Chooser, k: int, atoms: Sequence[str], max_time: int, arity: int = 1,
           durations: Sequence[int] = (0, 0, 1, 2, 3)) -> list[tuple]:
    out = []
    for _ in range(k):
        s = ch.integer(0, max_time)
        out.append((ch.choice(list(atoms)), (ch.integer(1, 2),) * arity, s, s + ch.choice(list(durations))))
    return out


#: The Allen operators that ``proper_intervals_only`` restricts (docs/semantics/etalis.md#etalis-opt-proper_intervals_only).
_ALLEN_POINT_OPS = ("meets", "starts", "finishes", "equals")


def gen_proper_shape(ch: Chooser, length: int) -> tuple[str, list]:
    """``d(X) <- a(X) OP b(X).`` with OP one of MEETS/STARTS/FINISHES/EQUALS and a planted pair where a point event
    takes part in OP (answers that ``proper_intervals_only=true`` removes), plus random noise over ``a``, ``b``."""
    op = ch.choice(_ALLEN_POINT_OPS)
    v = ch.integer(1, 2)
    t = ch.integer(0, 3)
    d = ch.integer(1, 3)
    if op == "meets":        # e1 == s2: a point meets a point or an interval, an interval meets a point
        pair = ch.choice(((t, t, t, t), (t, t, t, t + d), (t, t + d, t + d, t + d)))
    elif op == "starts":     # s1 == s2, e1 < e2
        pair = (t, t, t, t + d)
    elif op == "finishes":   # e1 == e2, s2 < s1
        pair = (t + d, t + d, t, t + d)
    else:                    # equals over points
        pair = (t, t, t, t)
    planted = [("a", (v,), pair[0], pair[1]), ("b", (v,), pair[2], pair[3])]
    extra = _noise(ch, max(0, length - 2), ("a", "b"), max(6, 3 * length // 4))
    return f"d(X) <- a(X) {op} b(X).", _events(planted + extra)


def gen_contained_during_shape(ch: Chooser, length: int) -> tuple[str, list]:
    """``d(X) <- a(X) during b(X).`` (sometimes under a second rule using ``d``) with a planted pair ``a`` strictly
    inside ``b`` (``during_result=contained`` gives ``a``'s interval, the default ``b``'s)."""
    v = ch.integer(1, 2)
    s2 = ch.integer(0, 3)
    s1 = s2 + ch.integer(1, 2)
    e1 = s1 + ch.integer(0, 2)
    e2 = e1 + ch.integer(1, 2)
    planted = [("a", (v,), s1, e1), ("b", (v,), s2, e2)]
    extra = _noise(ch, max(0, length - 2), ("a", "b", "c"), max(6, 3 * length // 4))
    text = "d(X) <- a(X) during b(X)."
    if ch.boolean(0.4):
        text += f"\nd1(X) <- d(X) {ch.choice(('seq', 'and', 'during', 'starts'))} c(X)."
    return text, _events(planted + extra)


#: The relation switches (docs/semantics/etalis.md#etalis-A23 to #etalis-A26): operator -> (field, paper's value).
RELATION_SWITCHES = {"par": ("par_overlap", "positive"), "starts": ("starts_end", "strict"),
                     "during": ("during_bounds", "strict"), "finishes": ("finishes_start", "strict")}


def gen_relation_shape(ch: Chooser, options: Any, length: int) -> tuple[str, list] | None:
    """``d(X) <- a(X) OP b(X).`` (sometimes under ``d1(X) <- d(X) seq c(X).``) with OP one of PAR, STARTS, DURING,
    FINISHES whose relation switch in ``options`` is not the paper's, and a planted pair on which the two readings
    differ (docs/semantics/etalis.md#etalis-A23 to #etalis-A26): a point in the other operand's ``(s, e]`` (PAR), equal
    intervals (STARTS), a container sharing a start or an end or equal (DURING), equal ends with ``a`` starting no
    later than ``b`` (FINISHES); plus random noise over ``a``, ``b``, ``c``.  None when every relation switch has
    the paper's value."""
    ops = [op for op, (f, d) in RELATION_SWITCHES.items() if getattr(options, f) != d]
    if not ops:
        return None
    op = ch.choice(ops)
    v = ch.integer(1, 2)
    s = ch.integer(0, 3)
    d = ch.integer(1, 3)
    if op == "par":          # a point <t,t> with s < t <= e
        t = s + ch.integer(1, d)
        pair = ((t, t), (s, s + d)) if ch.boolean() else ((s, s + d), (t, t))
    elif op == "starts":     # e1 = e2 (a point starts a point)
        pair = ((s, s + ch.choice((0, d))),) * 2
    elif op == "during":     # s2 <= s1 <= e1 <= e2 with an equality
        pair = ch.choice((((s, s + d), (s, s + d)), ((s, s), (s, s + d)), ((s + d, s + d), (s, s + d)),
                          ((s, s + d - 1), (s, s + d)), ((s + 1, s + d), (s, s + d))))
    else:                    # e1 = e2, s1 <= s2
        pair = ((s, s + d), (s + ch.integer(0, d), s + d))
    planted = [("a", (v,), *pair[0]), ("b", (v,), *pair[1])]
    extra = _noise(ch, max(0, length - 2), ("a", "b", "c"), max(6, 3 * length // 4))
    text = f"d(X) <- a(X) {op} b(X)."
    if ch.boolean(0.3):
        text += "\nd1(X) <- d(X) seq c(X)."
    return text, _events(planted + extra)


def gen_interval_policy_shape(ch: Chooser, length: int, policy: str) -> tuple[str, list]:
    """``d(X) <- a(X) seq b(X).`` with two planted ``a`` instances of one key and the same timestamp (same end under
    ``recent``/``recent_lifo``, same start under ``chronological``) and different lengths, then a ``b`` that joins
    them (for ``chronological``, one that only the shorter one precedes): ``interval_policy`` picks which is kept."""
    v = ch.integer(1, 2)
    if policy == "chronological":
        s = ch.integer(0, 2)
        e1 = s + ch.integer(0, 1)
        e2 = e1 + ch.integer(1, 2)
        planted = [("a", (v,), s, e1), ("a", (v,), s, e2)]
        tb = ch.choice((e1 + 1, e2, e2 + 1))
    else:
        e = ch.integer(2, 4)
        s1 = ch.integer(0, e - 1)
        s2 = ch.integer(s1 + 1, e)
        planted = [("a", (v,), s1, e), ("a", (v,), s2, e)]
        if ch.boolean():
            planted.reverse()
        tb = e + ch.integer(1, 2)
    planted.append(("b", (v,), tb, tb + ch.choice((0, 0, 1))))
    extra = _noise(ch, max(0, length - 3), ("a", "b"), max(6, 3 * length // 4))
    return "d(X) <- a(X) seq b(X).", _events(planted + extra)


#: The nested NOT of docs/semantics/etalis.md#etalis-A7 whose delimiter is another NOT's result.
NESTED_NOT_RULES = "p2 <- x seq y. r <- not(c).[p2, z]. q <- not(c).[x, r]."


def gen_nested_not_shape(ch: Chooser, length: int) -> tuple[str, list]:
    """:data:`NESTED_NOT_RULES` on a stream over ``x, y, c, z, w`` with interval-stamped ``z``: half the time the
    pattern ``x x c x y z@[s,e] w`` (several ``x`` starts, a blocker between them, a long ``z``) shifted and with a
    little noise, else a random stream over those atoms (``not_reading=literal`` releases hulls of one end by
    decreasing start)."""
    if ch.boolean(0.6):
        o = ch.integer(0, 2)
        gap = ch.integer(0, 1)
        evs = [("x", (), o, o), ("x", (), o + 1, o + 1), ("c", (), o + 2, o + 2), ("x", (), o + 3, o + 3),
               ("y", (), o + 4 + gap, o + 4 + gap)]
        zs = o + 5 + gap
        evs.append(("z", (), zs, zs + ch.integer(1, 4)))
        evs.append(("w", (), zs + 5, zs + 5))
        evs += _noise(ch, ch.choice((0, 0, 1, 2)), ("x", "y", "c", "z"), o + 10, arity=0)
    else:
        evs = _noise(ch, max(4, length + 1), ("x", "x", "y", "c", "z", "z"), max(6, length), arity=0,
                     durations=(0, 0, 1, 2, 3, 4))
    return NESTED_NOT_RULES, _events(evs)


def gen_long_window_case(ch: Chooser) -> tuple[str, list]:
    """A windowed rule over a long dense stream (20-40 events, times ``0..length/2``, values ``{1, 2}`` or ``{1}``)
    so that stored instances expire and the window's garbage collection matters (docs/semantics/etalis.md#etalis-3.11):
    ``d(1) <- (a(X) OP b(X)).q.`` with a small ``q``, sometimes as an ``event_rule_window`` property."""
    n = ch.integer(20, 40)
    q = ch.integer(1, 3)
    op = ch.choice(("seq", "seq", "and", "or"))
    if ch.boolean(0.3):
        text = f"w0([property(event_rule_window, {q})]) 'rule:' d(X) <- a(X) {op} b(X)."
    else:
        text = f"d(X) <- (a(X) {op} b(X)).{q}."
    hi = ch.choice((1, 2))
    evs = []
    for _ in range(n):
        s = ch.integer(0, n // 2)
        evs.append((ch.choice(("a", "a", "b", "c")), (ch.integer(1, hi),), s, s + ch.choice((0, 0, 0, 1))))
    return text, _events(evs)


def gen_switch_shape(ch: Chooser, options: Any, length: int) -> tuple[str, list] | None:
    """A case shaped by the drawn switches (the shape under which a non-default value changes answers), or None:
    ``proper_intervals_only`` -> :func:`gen_proper_shape`; ``during_result="contained"`` ->
    :func:`gen_contained_during_shape`; ``interval_policy`` other than off -> :func:`gen_interval_policy_shape`;
    ``not_reading="literal"`` -> :func:`gen_nested_not_shape`; a relation switch other than the paper's
    (``par_overlap``, ``starts_end``, ``during_bounds``, ``finishes_start``) -> :func:`gen_relation_shape` (one of the
    applicable ones, at random)."""
    cands = []
    if any(getattr(options, f) != d for f, d in RELATION_SWITCHES.values()):
        cands.append("relation")
    if options.proper_intervals_only:
        cands.append("proper")
    if options.during_result == "contained":
        cands.append("during")
    if options.interval_policy != "off":
        cands += ["interval"] * 3
    if options.not_reading == "literal":
        cands.append("not")
    if not cands:
        return None
    kind = ch.choice(cands)
    if kind == "relation":
        return gen_relation_shape(ch, options, length)
    if kind == "proper":
        return gen_proper_shape(ch, length)
    if kind == "during":
        return gen_contained_during_shape(ch, length)
    if kind == "interval":
        return gen_interval_policy_shape(ch, length, options.policy)
    return gen_nested_not_shape(ch, length)
