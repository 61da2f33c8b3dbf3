"""Random CEL cases for hypothesis and the Spark fuzzer, on the shared :class:`~ceplab.workbench.generators.Chooser`.

Formulas are kept small (depth <= 3, <= 6 atoms): :func:`gen_cel_formula`, :func:`gen_cel_query`,
:func:`gen_stream`; hypothesis wrappers :func:`cel_formulas`, :func:`cel_queries`, :func:`cel_streams`,
:func:`cel_cases`; Spark entry :func:`random_cel_case`; bundle :class:`CelStrategies`. Generated formulas
are strongly well-formed (``check_well_formed`` accepts them) and ``parse(str(q)) == q``.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from hypothesis import strategies as st

from ceplab.semantics.cel.analysis import bound, var, vdef_plus
from ceplab.semantics.cel.ast import (OPS, STRATEGIES, And, Atom, Cmp, Cmp2, Filter, Formula, Or, PAnd,
                               PNot, POr, Pred, Plus, Query, Seq)
from ceplab.semantics.events import Stream
from ceplab.workbench.generators import (TYPE_ALPHABETS, Chooser, HypothesisChooser, RandomChooser,
                                         gen_flat_stream)

VAR_POOL: tuple[str, ...] = ("x", "y", "z", "w", "u", "s", "r")
_PREFERRED_VARS = 4      # most atoms use the first four names, so names get reused (OR, shadowing)
_ATTR = "v"
_VALUES = (0, 1, 2)


def gen_stream(ch: Chooser, length: int, types: Sequence[str] | None = None,
               p_missing: float = 0.0) -> Stream:
    """A CEL test stream: ``length`` events, types from ``{A,B,C}`` or ``{A,B}`` (chosen by ``ch``
    when ``types`` is None), attribute ``v`` in ``{0,1,2}``, biased towards interleavings (see
    :func:`gen_flat_stream`)."""
    if types is None:
        types = ch.choice(TYPE_ALPHABETS)
    return Stream.of(gen_flat_stream(ch, length, types, {_ATTR: (0, 2)}, p_missing))


def _count_atoms(f: Formula) -> int:
    if isinstance(f, Atom):
        return 1
    if isinstance(f, (Filter, Plus)):
        return _count_atoms(f.body)
    return _count_atoms(f.left) + _count_atoms(f.right)


def _skeleton(ch: Chooser, types: Sequence[str], depth: int, budget: int, allow_and: bool,
              top: bool) -> Formula:
    """Operator structure with placeholder variables (``"?"``); at most ``budget`` atoms."""
    p_op = 0.85 if top else 0.5
    if depth <= 0 or not ch.boolean(p_op):
        return Atom(ch.choice(types), "?")
    ops = ["seq", "or", "plus"] + (["and"] if allow_and else [])
    op = ch.choice(ops)
    if op == "and" and not ch.boolean(0.35):  # AND is rarer: it is mostly unsatisfiable
        op = "seq"
    if op == "plus" or budget < 2:
        return Plus(_skeleton(ch, types, depth - 1, budget, allow_and, False))
    lb = ch.integer(1, budget - 1)
    left = _skeleton(ch, types, depth - 1, lb, allow_and, False)
    right = _skeleton(ch, types, depth - 1, budget - _count_atoms(left), allow_and, False)
    return {"seq": Seq, "or": Or, "and": And}[op](left, right)


def _assign_vars(ch: Chooser, f: Formula, avoid: frozenset[str], safe_only: bool,
                 p_unsafe: float) -> Formula:
    """Name the atoms: the two sides of every ``;`` get disjoint vdef+ (safety) unless an unsafe
    choice is drawn (``p_unsafe`` per atom, never when ``safe_only``); the sides of AND always get
    disjoint vdef+ (the extension requires it); OR sides and ``+`` bodies may reuse names (shared
    definitions, shadowing: docs/semantics/cel.md#cel-G3)."""
    if isinstance(f, Atom):
        if not safe_only and avoid and ch.boolean(p_unsafe):
            cands = list(VAR_POOL[:_PREFERRED_VARS])
        else:
            cands = [v for v in VAR_POOL[:_PREFERRED_VARS] if v not in avoid]
            if not cands:
                cands = [v for v in VAR_POOL if v not in avoid][:1] or [f"v{len(avoid)}"]
        return Atom(f.rel, ch.choice(cands))
    if isinstance(f, Plus):
        return Plus(_assign_vars(ch, f.body, frozenset(), safe_only, p_unsafe))
    if isinstance(f, Seq):
        left = _assign_vars(ch, f.left, avoid, safe_only, p_unsafe)
        right = _assign_vars(ch, f.right, avoid | vdef_plus(left), safe_only, p_unsafe)
        return Seq(left, right)
    left = _assign_vars(ch, f.left, avoid, safe_only, p_unsafe)
    if isinstance(f, And):  # the AND extension needs distinct variables on its sides
        return And(left, _assign_vars(ch, f.right, avoid | vdef_plus(left), True, p_unsafe))
    right = _assign_vars(ch, f.right, avoid, safe_only, p_unsafe)
    return type(f)(left, right)


def gen_cel_pred(ch: Chooser, variables: Sequence[str], unary_only: bool = False,
                 outer: Sequence[str] = (), max_depth: int = 2) -> Pred:
    """A filter predicate over ``variables`` (all legal at the filter).

    Leaves are ``x.v OP c`` (all six OPs, ``c`` in {0,1,2}) and, unless ``unary_only``,
    ``x.v OP y.v`` between two different legal variables (preferring an ``outer`` variable, one
    bound outside the enclosing ``+``, for ``y``: the correlation of the paper's phi4) and unary
    comparisons on other legal variables. Inner nodes are NOT, AND, OR up to ``max_depth``.
    With ``unary_only`` every comparison is about one focus variable (``analysis.is_unary``).
    """
    variables = list(variables)
    focus = ch.choice(variables)
    others = [v for v in variables if v != focus]
    outer_others = [v for v in outer if v != focus and v in others]

    def leaf() -> Pred:
        if not unary_only and others and ch.boolean(0.3):
            pool = outer_others if outer_others and ch.boolean(0.5) else others
            y = ch.choice(pool)
            return Cmp2(focus, _ATTR, ch.choice(OPS), y, _ATTR)
        x = focus if unary_only or not others or not ch.boolean(0.25) else ch.choice(others)
        return Cmp(x, _ATTR, ch.choice(OPS), ch.choice(_VALUES))

    def rec(d: int) -> Pred:
        if d <= 0 or not ch.boolean(0.35):
            return leaf()
        k = ch.choice(("and", "or", "not"))
        if k == "not":
            return PNot(rec(d - 1))
        return (PAnd if k == "and" else POr)(rec(d - 1), rec(d - 1))

    return rec(max_depth)


def _decorate(ch: Chooser, f: Formula, legal_parent: frozenset[str], plus_body: bool,
              outer: frozenset[str], unary_only: bool, p_filter: float) -> Formula:
    """Add filters whose variables are legal for strong well-formedness (docs/semantics/cel.md#cel-G3).

    ``x`` is legal at node g iff some ancestor-or-self of g, below x's binder, has x bound:
    ``L(g) = (L(parent) - vdef+(g) if g is a + body else L(parent)) | bound(g)``. Adding a filter
    changes no bound/vdef+ set, so filters can be added independently.
    """
    legal = ((legal_parent - vdef_plus(f)) if plus_body else legal_parent) | bound(f)
    if plus_body:
        outer = (outer | legal_parent) - vdef_plus(f)
    if isinstance(f, Plus):
        new: Formula = Plus(_decorate(ch, f.body, legal, True, outer, unary_only, p_filter))
    elif isinstance(f, (Seq, Or, And)):
        new = type(f)(_decorate(ch, f.left, legal, False, outer, unary_only, p_filter),
                      _decorate(ch, f.right, legal, False, outer, unary_only, p_filter))
    else:
        new = f
    p = p_filter if isinstance(f, Atom) else p_filter * 0.6
    if legal and ch.boolean(p):
        new = Filter(new, gen_cel_pred(ch, sorted(legal), unary_only, sorted(outer & legal)))
    return new


def gen_cel_formula(ch: Chooser, *, types: Sequence[str] = ("A", "B", "C"), max_depth: int = 3,
                    max_atoms: int = 6, unary_only: bool = False, safe_only: bool = False,
                    allow_and: bool = True, p_filter: float = 0.3,
                    p_unsafe: float = 0.2) -> Formula:
    """A random strongly well-formed CEL formula (docs/semantics/cel.md#cel-G18 sizes).

    Three passes: operator skeleton (``;``, OR, ``+``, AND; nesting depth <= ``max_depth``,
    so ``+`` nests at most that deep; at most ``max_atoms`` atoms), variable naming (safe unless
    an unsafe reuse is drawn; OR branches and ``+`` bodies reuse names), then filters at legal
    places (unary comparisons, binary ``x.v OP y.v`` correlating e.g. an iteration with an outer
    variable, NOT/AND/OR).

    Args:
        ch: the chooser.
        types: atom relation names.
        max_depth: operator nesting depth (filters not counted).
        max_atoms: atom budget.
        unary_only: every filter mentions one variable (the CEA fragment, ``is_unary``).
        safe_only: every ``;`` has disjoint vdef+ sides (``is_safe``).
        allow_and: allow the AND extension.
        p_filter: probability of a filter on an atom (0.6 of it on operators).
        p_unsafe: per-atom probability of ignoring safety (only without ``safe_only``).
    """
    skel = _skeleton(ch, list(types), max_depth, max_atoms, allow_and, True)
    named = _assign_vars(ch, skel, frozenset(), safe_only, p_unsafe)
    return _decorate(ch, named, frozenset(), False, frozenset(), unary_only, p_filter)


def gen_iteration_vs_later(ch: Chooser, types: Sequence[str], avoid: frozenset[str] = frozenset()
                           ) -> Formula:
    """A formula whose iteration compares every round with a variable bound *after* it (or on
    the other side of an AND), the case the automaton compiler's registers cannot check and the
    engine evaluates by binding runs (docs/semantics/cel.md#cel-10.4).

    Shapes (``BODY`` is ``R AS x`` or ``R AS x ; R' AS w``, ``P`` compares ``x.v`` with ``y.v``,
    sometimes under NOT or combined with a unary comparison by AND/OR):

    * ``(BODY FILTER P)+ ; R AS y``: every round's x against the later y;
    * ``((BODY FILTER P)+ ; R AS y)+``: the same inside an outer iteration (y is round-local);
    * ``(R AS x FILTER P)+ AND ((R AS c)+ ; R AS y ; (R AS d)+)`` (either iteration of the right
      side may be missing): y is one of the rounds' events, rounds lie before and after it, so
      the filter is checked both when a round completes and when y arrives.

    Variable names avoid ``avoid`` (the names of a formula the piece is combined with).
    Strongly well-formed (docs/semantics/cel.md#cel-G3).
    """
    names = iter([v for v in VAR_POOL + tuple(f"v{i}" for i in range(8)) if v not in avoid])
    x, w, y, c, d = (next(names) for _ in range(5))
    shape = ch.integer(0, 5)
    rel = ch.choice(types)
    body: Formula = Atom(rel, x)
    if shape < 4 and ch.boolean(0.3):
        body = Seq(body, Atom(ch.choice(types), w))
    pred: Pred = Cmp2(x, _ATTR, ch.choice(OPS), y, _ATTR)
    if ch.boolean(0.2):
        pred = PNot(pred)
    if ch.boolean(0.3):
        other = Cmp(ch.choice((x, y)), _ATTR, ch.choice(OPS), ch.choice(_VALUES))
        pred = (PAnd if ch.boolean(0.5) else POr)(pred, other)
    it = Plus(Filter(body, pred))
    if shape <= 2:
        return Seq(it, Atom(ch.choice(types), y))
    if shape == 3:
        return Plus(Seq(it, Atom(ch.choice(types), y)))
    right: Formula = Atom(rel, y)
    if ch.boolean(0.7):
        right = Seq(Plus(Atom(rel, c)), right)
    if ch.boolean(0.7):
        right = Seq(right, Plus(Atom(rel, d)))
    return And(it, right)


def gen_cel_query(ch: Chooser, *, strategies: Sequence[str] = STRATEGIES,
                  allow_within: bool = True, p_later: float = 0.0, **formula_kw: Any) -> Query:
    """A random CEL query: :func:`gen_cel_formula` under a strategy from ``strategies``
    (default every one: ALL, STRICT, NXT, LAST, MAX) with an optional ``WITHIN 0..5``
    (probability 0.3, only if ``allow_within``). ``formula_kw`` go to :func:`gen_cel_formula`.

    With probability ``p_later`` the formula is instead a smaller random formula (at most 3 atoms)
    combined by ``;`` (either side) or OR with :func:`gen_iteration_vs_later`, or that piece alone
    (filters of an iteration over a later variable; requires binary filters, so not with
    ``unary_only``)."""
    if p_later and not formula_kw.get("unary_only") and ch.boolean(p_later):
        types = formula_kw.get("types", ("A", "B", "C"))
        kw = dict(formula_kw, max_atoms=min(3, formula_kw.get("max_atoms", 6)))
        g = gen_cel_formula(ch, **kw)
        piece = gen_iteration_vs_later(ch, types, var(g))
        mode = ch.integer(0, 3)
        f = (piece if mode == 0 else Seq(g, piece) if mode == 1 else Seq(piece, g) if mode == 2
             else Or(g, piece))
    else:
        f = gen_cel_formula(ch, **formula_kw)
    strategy = ch.choice(list(strategies))
    within = ch.integer(0, 5) if allow_within and ch.boolean(0.3) else None
    return Query(f, strategy, within)


def _replace_atom(f: Formula, target: int, new: Formula, count: list) -> Formula:
    """``f`` with its ``target``-th atom (pre-order, counted in ``count[0]``) replaced by ``new``."""
    if isinstance(f, Atom):
        count[0] += 1
        return new if count[0] - 1 == target else f
    if isinstance(f, Filter):
        return Filter(_replace_atom(f.body, target, new, count), f.pred)
    if isinstance(f, Plus):
        return Plus(_replace_atom(f.body, target, new, count))
    if isinstance(f, (Or, Seq, And)):
        return type(f)(_replace_atom(f.left, target, new, count),
                       _replace_atom(f.right, target, new, count))
    return f


def gen_nested_cel_query(ch: Chooser, types: Sequence[str], strategy: str | None = None) -> Query:
    """A random query with one nested selection strategy ``strategy(psi)`` (EXTENSION, docs/semantics/cel.md#cel-G5; evaluate under ``Options(nested_strategies="compositional")``).

    psi (unary filters, <= 3 atoms) and the outer formula (<= 2 atoms, no AND) are drawn by
    :func:`gen_cel_formula` over ``types``; the block replaces an outer atom or is combined with the
    outer formula by ``;`` (either side), OR, ``+`` of the block then ``;``, ``+`` of ``outer ;
    block``, or AND (either side; the engine evaluates a block under AND by binding runs,
    docs/semantics/cel.md#cel-10.4).  The block gets a window with probability 0.25, the query a random top-level strategy
    and a window with probability 0.25.  ``strategy`` None draws the block's strategy from STRICT,
    NXT, LAST and MAX.  The result may violate closedness or strong well-formedness (callers
    check, as :func:`random_nested_cel_case` does)."""
    from ceplab.semantics.cel.ast import Sel
    if strategy is None:
        strategy = ch.choice(["STRICT", "NXT", "LAST", "MAX"])
    psi = gen_cel_formula(ch, types=types, max_depth=2, max_atoms=3, unary_only=True, p_filter=0.15)
    sel = Sel(strategy, psi, ch.integer(0, 3) if ch.boolean(0.25) else None)
    outer = gen_cel_formula(ch, types=types, max_depth=2, max_atoms=2, unary_only=True,
                            allow_and=False, p_filter=0.15)
    mode = ch.integer(0, 6)
    if mode == 0:
        f: Formula = _replace_atom(outer, ch.integer(0, _count_atoms(outer) - 1), sel, [0])
    elif mode == 1:
        f = Seq(outer, sel)
    elif mode == 2:
        f = Seq(sel, outer)
    elif mode == 3:
        f = Or(sel, outer)
    elif mode == 4:
        f = Seq(Plus(sel), outer)
    elif mode == 5:
        f = Plus(Seq(outer, sel))
    else:
        f = And(sel, outer) if ch.boolean(0.5) else And(outer, sel)
    top = ch.choice(list(STRATEGIES))
    within = ch.integer(0, 4) if ch.boolean(0.25) else None
    return Query(f, top, within)


def random_nested_cel_case(rng: random.Random, length: int) -> tuple[str, Stream]:
    """Spark fuzzing entry for nested strategies: ``(query_text, stream)`` by
    :func:`gen_nested_cel_query`, redrawn from ``rng`` (at most 50 times) until the query is closed
    and strongly well-formed, so the draw stays a function of the seed.

    Raises:
        RuntimeError: no valid query in 50 draws (does not happen with the shipped generators).
    """
    from ceplab.semantics.cel.analysis import WellFormednessError, check_closed, check_well_formed
    ch = RandomChooser(rng)
    for _ in range(50):
        types = ch.choice(TYPE_ALPHABETS)
        q = gen_nested_cel_query(ch, types)
        try:
            check_closed(q.formula)
            check_well_formed(q.formula)
        except WellFormednessError:
            continue
        return str(q), gen_stream(ch, length, types)
    raise RuntimeError("no closed, strongly well-formed nested query in 50 draws")


# ---------------------------------------------------------------- hypothesis wrappers
@st.composite
def _formulas(draw, kw):
    return gen_cel_formula(HypothesisChooser(draw), **kw)


@st.composite
def _queries(draw, kw):
    return gen_cel_query(HypothesisChooser(draw), **kw)


@st.composite
def _streams(draw, min_len, max_len, types, p_missing):
    ch = HypothesisChooser(draw)
    n = ch.integer(min_len, max_len)
    return gen_stream(ch, n, types, p_missing)


@st.composite
def _cases(draw, min_len, max_len, kw):
    ch = HypothesisChooser(draw)
    types = ch.choice(TYPE_ALPHABETS)
    q = gen_cel_query(ch, types=types, **kw)
    n = ch.integer(min_len, max_len)
    return q, gen_stream(ch, n, types)


def cel_formulas(**kw: Any) -> st.SearchStrategy[Formula]:
    """Hypothesis strategy of formulas; keywords as :func:`gen_cel_formula`."""
    return _formulas(kw)


def cel_queries(**kw: Any) -> st.SearchStrategy[Query]:
    """Hypothesis strategy of queries; keywords as :func:`gen_cel_query` (``strategies``,
    ``allow_within``, ``unary_only``, ``safe_only``, ``allow_and``, ``types``, ...)."""
    return _queries(kw)


def cel_streams(min_len: int = 0, max_len: int = 6, types: Sequence[str] | None = None,
                p_missing: float = 0.0) -> st.SearchStrategy[Stream]:
    """Hypothesis strategy of CEL streams (:func:`gen_stream`), length in [min_len, max_len]."""
    return _streams(min_len, max_len, None if types is None else tuple(types), p_missing)


def cel_cases(min_len: int = 0, max_len: int = 6, **kw: Any) -> st.SearchStrategy[tuple[Query, Stream]]:
    """Hypothesis strategy of ``(query, stream)`` pairs sharing one type alphabet."""
    return _cases(min_len, max_len, kw)


def cel_options() -> st.SearchStrategy[Any]:
    """Hypothesis strategy of :class:`ceplab.semantics.cel.options.Options` (every switch value)."""
    from ceplab.semantics.cel.options import Options
    return st.builds(Options, max_scope=st.sampled_from(["same_end", "global"]),
                     nxt_output=st.sampled_from(["marked", "top_ranked"]))


def random_cel_case(rng: random.Random, length: int, **kw: Any) -> tuple[str, Stream]:
    """Spark fuzzing entry: ``(query_text, stream)`` drawn by the same generators as
    :func:`cel_cases` (one shared type alphabet), from a seeded ``random.Random``.

    Args:
        rng: the random source (seed it with ``(campaign seed, case index)`` for replay).
        length: stream length.
        kw: as :func:`gen_cel_query`; ``p_later`` defaults to :data:`P_LATER`.
    """
    ch = RandomChooser(rng)
    types = ch.choice(TYPE_ALPHABETS)
    q = gen_cel_query(ch, types=types, **{"p_later": P_LATER, **kw})
    return str(q), gen_stream(ch, length, types)


#: Fraction of :func:`random_cel_case` queries built around :func:`gen_iteration_vs_later` (an
#: iteration's filter over a later variable: binding runs, docs/semantics/cel.md#cel-10.4).
P_LATER = 0.12


class CelStrategies:
    """The registry's strategy bundle for CEL (``ceplab.workbench.language.Language.strategies``)."""

    def queries(self, **kw: Any) -> st.SearchStrategy[Query]:
        return cel_queries(**kw)

    def streams(self, min_len: int = 0, max_len: int = 6) -> st.SearchStrategy[Stream]:
        return cel_streams(min_len, max_len)

    def options(self) -> st.SearchStrategy[Any]:
        return cel_options()

    @staticmethod
    def render(query: Query) -> str:
        return str(query)
