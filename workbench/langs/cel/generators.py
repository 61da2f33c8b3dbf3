"""Random CEL cases for hypothesis and the Spark fuzzer, on the shared :class:`~ceplab.workbench.generators.Chooser`.

Formulas are kept small (depth <= 3, <= 6 atoms): :func:`gen_cel_formula`, :func:`gen_cel_query`,
:func:`gen_stream`; hypothesis wrappers :func:`cel_formulas`, :func:`cel_queries`, :func:`cel_streams`,
:func:`cel_cases`; Spark entry :func:`random_cel_case`; bundle :class:`CelStrategies`. Generated formulas
are strongly well-formed (``check_well_formed`` accepts them) and ``parse(str(q)) == q``.

For the fuzz campaign (issue 11 item 7(b): every planted engine mutant of workbench/langs/cel/mutants.py must be
drawable), :func:`random_cel_case` adds odd attribute values with rich filters (docs/semantics/cel.md#cel-G6),
planted queries (:func:`gen_kleene_filtered_seq`, :func:`gen_sel_window`) with witnesses planted in the stream
(:func:`plant_match`), constants on the left (:func:`constants_left`) and, for the plugin's long cases, small
windows with matches of span exactly w at the root-pruning points (:func:`plant_window_matches`,
#cel-G8, #cel-G15).  ``tests/cel/test_cel_fuzz_coverage.py`` checks that the campaign draws them.
"""
from __future__ import annotations

import random
import re
from typing import Any, Sequence

from hypothesis import strategies as st

from ceplab.semantics.cel.analysis import bound, var, vdef_plus
from ceplab.semantics.cel.ast import (FLIP, OPS, STRATEGIES, And, Atom, Cmp, Cmp2, Filter, Formula, Or, PAnd,
                               PFalse, PNot, POr, Pred, PTrue, Plus, Query, Seq)
from ceplab.semantics.events import Stream
from ceplab.workbench.generators import (TYPE_ALPHABETS, Chooser, HypothesisChooser, RandomChooser,
                                         gen_flat_stream)

VAR_POOL: tuple[str, ...] = ("x", "y", "z", "w", "u", "s", "r")
_PREFERRED_VARS = 4      # most atoms use the first four names, so names get reused (OR, shadowing)
_ATTR = "v"
_VALUES = (0, 1, 2)


def gen_stream(ch: Chooser, length: int, types: Sequence[str] | None = None,
               p_missing: float = 0.0, odd: bool = False) -> Stream:
    """A CEL test stream: ``length`` events, types from ``{A,B,C}`` or ``{A,B}`` (chosen by ``ch``
    when ``types`` is None), attribute ``v`` in ``{0,1,2}``, biased towards interleavings (see
    :func:`gen_flat_stream`).

    With ``odd`` the attribute values leave that range (:func:`_odd_attrs`): some events lack ``v``,
    carry a string or a value outside 0..2, and about half carry a second attribute ``w``: the events
    that are outside every comparison and inside its NOT (docs/semantics/cel.md#cel-G6)."""
    if types is None:
        types = ch.choice(TYPE_ALPHABETS)
    return Stream.of(_stream_events(ch, length, types, p_missing, odd))


def _stream_events(ch: Chooser, length: int, types: Sequence[str], p_missing: float = 0.0,
                   odd: bool = False) -> list[tuple[str, dict]]:
    """The ``(type, attrs)`` events of :func:`gen_stream`."""
    events = gen_flat_stream(ch, length, types, {_ATTR: (0, 2)}, p_missing)
    if odd:
        events = [(t, _odd_attrs(ch, a)) for t, a in events]
    return events


def _witness(ch: Chooser, f: Formula, rounds: tuple[int, int] = (1, 2)) -> list[str] | None:
    """The event types of one complex event of ``f`` ignoring its filters, in position order (a ``+`` body
    ``rounds[0]..rounds[1]`` times, one OR branch); None for AND and nested blocks (not planted)."""
    if isinstance(f, Atom):
        return [f.rel]
    if isinstance(f, Filter):
        return _witness(ch, f.body, rounds)
    if isinstance(f, Plus):
        w = _witness(ch, f.body, rounds)
        return None if w is None else w * ch.integer(*rounds)
    if isinstance(f, Or):
        return _witness(ch, f.left if ch.boolean(0.5) else f.right, rounds)
    if isinstance(f, Seq):
        a, b = _witness(ch, f.left, rounds), _witness(ch, f.right, rounds)
        return None if a is None or b is None else a + b
    return None


def plant_match(ch: Chooser, events: list[tuple[str, dict]], f: Formula, types: Sequence[str],
                rounds: tuple[int, int] = (1, 3), p_skip: float = 0.3) -> list[tuple[str, dict]]:
    """``events`` with the types of a witness of ``f`` (:func:`_witness`, a ``+`` body ``rounds`` times)
    written from a random position, with an event of another type after each of its events with
    probability ``p_skip`` (skipped by every strategy but STRICT: ``A A C A`` for ``MAX((A AS x)+ WITHIN
    2)``), cut at the stream's end.  Attribute values are kept, so the filters decide.  Used for
    :func:`gen_planted_query`'s cases, whose interesting runs need two or more rounds of an iteration."""
    word = _witness(ch, f, rounds)
    if not word or not events:
        return events
    seg: list[str] = []
    for t in word:
        seg.append(t)
        if ch.boolean(0.3):
            seg.append(ch.choice([u for u in types if u != t] or list(types)))
    out = list(events)
    start = ch.integer(0, max(0, len(out) - len(seg)))
    for k, t in enumerate(seg[:len(out) - start]):
        out[start + k] = (t, out[start + k][1])
    return out


#: Positions after which the generated path prunes its roots under ``WITHIN w <= 64`` (every 64 events,
#: engine/cel/evaluate.py): a long stream plants a match ending at each of them (:func:`plant_window_matches`).
PRUNE_POINTS = (64, 128, 192)


def plant_window_matches(ch: Chooser, events: list[tuple[str, dict]], f: Formula, within: int,
                         types: Sequence[str]) -> list[tuple[str, dict]]:
    """``events`` with the types of a witness of ``f`` (:func:`_witness`, filters ignored) written so that its
    span is exactly ``within``: first event at ``p - within``, last at ``p``, the other events of the
    witness right after the first, and the positions left between them filled with a type ``f`` does not
    use (or, when it uses every type, one other than the witness's first), so the match's start is the
    newest start of its automaton state.  ``p`` is each of :data:`PRUNE_POINTS` inside the stream
    (each: the root pruning must keep a state the next event completes,
    docs/semantics/cel.md#cel-G15, the ``root-pruning-too-eager`` mutant) and about one position in 12
    elsewhere (a match at the window's inclusive bound after the step plans were compiled, #cel-G8,
    #cel-5.5, the ``compiled-window-off-by-one`` mutant).  Attribute values are kept."""
    out = list(events)
    n = len(out)
    rels = {a.rel for a in _atoms(f)}
    ends = [p for p in PRUNE_POINTS if p < n]
    ends += [p for p in range(within, n) if ch.boolean(0.08)]
    for p in sorted(set(ends)):
        word = _witness(ch, f)
        if not word or len(word) > within + 1 or p - within < 0:
            continue
        spare = [t for t in types if t not in rels] or [t for t in types if t != word[0]] or list(types)
        filler = ch.choice(spare)
        seg = word[:-1] + [filler] * (within + 1 - len(word)) + word[-1:]
        for k, t in enumerate(seg):
            out[p - within + k] = (t, out[p - within + k][1])
    return out


def _min_span(f: Formula) -> int:
    """``max C - min C`` of the shortest complex events of ``f`` (filters ignored): atoms minus one; 0 for
    nested blocks."""
    def atoms(g: Formula) -> int:
        if isinstance(g, Atom):
            return 1
        if isinstance(g, (Filter, Plus)):
            return atoms(g.body)
        if isinstance(g, Seq):
            return atoms(g.left) + atoms(g.right)
        if isinstance(g, Or):
            return min(atoms(g.left), atoms(g.right))
        if isinstance(g, And):
            return max(atoms(g.left), atoms(g.right))
        return 1
    return atoms(f) - 1


def _strip(f: Formula) -> Formula:
    """``f`` without its top-level filters."""
    while isinstance(f, Filter):
        f = f.body
    return f


def _fresh(used: frozenset[str]) -> str:
    """The first name of :data:`VAR_POOL` (then ``v0``, ``v1``, ...) not in ``used``."""
    return next(v for v in VAR_POOL + tuple(f"v{i}" for i in range(16)) if v not in used)


def _atoms(f: Formula) -> list[Atom]:
    if isinstance(f, Atom):
        return [f]
    if isinstance(f, (Filter, Plus)):
        return _atoms(f.body)
    if isinstance(f, (Seq, Or, And)):
        return _atoms(f.left) + _atoms(f.right)
    return []


#: Values of ``v`` drawn for an event of an ``odd`` stream besides 0..2 (strings, a float, out-of-range ints).
ODD_VALUES: tuple = ("a", "b", "", 3, -1, 1.5)
#: The string and non-default numeric constants of ``rich`` predicates (:func:`gen_cel_pred`).
RICH_VALUES: tuple = (0, 1, 2, 3, -1, 1.5, "a", "b")


def _odd_attrs(ch: Chooser, attrs: dict) -> dict:
    """One event's attributes in an ``odd`` stream: ``v`` missing (probability 0.15), of another kind or
    out of range (0.15, :data:`ODD_VALUES`), else kept; ``w`` in -1..3 added with probability 0.5."""
    a = dict(attrs)
    r = ch.integer(0, 99)
    if r < 15:
        a.pop(_ATTR, None)
    elif r < 30:
        a[_ATTR] = ch.choice(ODD_VALUES)
    if ch.boolean(0.5):
        a["w"] = ch.integer(-1, 3)
    return a


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
                 outer: Sequence[str] = (), max_depth: int = 2, rich: bool = False) -> Pred:
    """A filter predicate over ``variables`` (all legal at the filter).

    Leaves are ``x.v OP c`` (all six OPs, ``c`` in {0,1,2}) and, unless ``unary_only``,
    ``x.v OP y.v`` between two different legal variables (preferring an ``outer`` variable, one
    bound outside the enclosing ``+``, for ``y``: the correlation of the paper's phi4) and unary
    comparisons on other legal variables. Inner nodes are NOT, AND, OR up to ``max_depth``.
    With ``unary_only`` every comparison is about one focus variable (``analysis.is_unary``).

    With ``rich`` (the fuzz campaign's ``odd`` cases, docs/semantics/cel.md#cel-G6) the leaves also use
    the attribute ``w`` (a quarter of them; ``x.v OP y.w`` too), constants from :data:`RICH_VALUES`
    (strings, a float, -1 and 3), ``TRUE``/``FALSE`` (5%), and a comparison is put under NOT with
    probability 0.3: NOT of a comparison holds on events lacking the attribute or holding a value of
    another kind, which the complementary operator does not (the ``not-as-complement`` mutant).
    """
    variables = list(variables)
    focus = ch.choice(variables)
    others = [v for v in variables if v != focus]
    outer_others = [v for v in outer if v != focus and v in others]

    def attr() -> str:
        return "w" if rich and ch.boolean(0.25) else _ATTR

    def leaf() -> Pred:
        if rich and ch.boolean(0.05):
            return PTrue() if ch.boolean(0.5) else PFalse()
        if not unary_only and others and ch.boolean(0.3):
            pool = outer_others if outer_others and ch.boolean(0.5) else others
            y = ch.choice(pool)
            p: Pred = Cmp2(focus, attr(), ch.choice(OPS), y, attr())
        else:
            x = focus if unary_only or not others or not ch.boolean(0.25) else ch.choice(others)
            p = Cmp(x, attr(), ch.choice(OPS), ch.choice(RICH_VALUES if rich else _VALUES))
        return PNot(p) if rich and ch.boolean(0.3) else p

    def rec(d: int) -> Pred:
        if d <= 0 or not ch.boolean(0.35):
            return leaf()
        k = ch.choice(("and", "or", "not"))
        if k == "not":
            return PNot(rec(d - 1))
        return (PAnd if k == "and" else POr)(rec(d - 1), rec(d - 1))

    return rec(max_depth)


def _decorate(ch: Chooser, f: Formula, legal_parent: frozenset[str], plus_body: bool,
              outer: frozenset[str], unary_only: bool, p_filter: float, rich: bool = False) -> Formula:
    """Add filters whose variables are legal for strong well-formedness (docs/semantics/cel.md#cel-G3).

    ``x`` is legal at node g iff some ancestor-or-self of g, below x's binder, has x bound:
    ``L(g) = (L(parent) - vdef+(g) if g is a + body else L(parent)) | bound(g)``. Adding a filter
    changes no bound/vdef+ set, so filters can be added independently.
    """
    legal = ((legal_parent - vdef_plus(f)) if plus_body else legal_parent) | bound(f)
    if plus_body:
        outer = (outer | legal_parent) - vdef_plus(f)
    if isinstance(f, Plus):
        new: Formula = Plus(_decorate(ch, f.body, legal, True, outer, unary_only, p_filter, rich))
    elif isinstance(f, (Seq, Or, And)):
        new = type(f)(_decorate(ch, f.left, legal, False, outer, unary_only, p_filter, rich),
                      _decorate(ch, f.right, legal, False, outer, unary_only, p_filter, rich))
    else:
        new = f
    p = p_filter if isinstance(f, Atom) else p_filter * 0.6
    if legal and ch.boolean(p):
        new = Filter(new, gen_cel_pred(ch, sorted(legal), unary_only, sorted(outer & legal), rich=rich))
    return new


def gen_cel_formula(ch: Chooser, *, types: Sequence[str] = ("A", "B", "C"), max_depth: int = 3,
                    max_atoms: int = 6, unary_only: bool = False, safe_only: bool = False,
                    allow_and: bool = True, p_filter: float = 0.3,
                    p_unsafe: float = 0.2, rich: bool = False) -> Formula:
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
        rich: filters draw :func:`gen_cel_pred`'s ``rich`` leaves (attribute ``w``, strings, TRUE/FALSE,
            NOT of a comparison).
    """
    skel = _skeleton(ch, list(types), max_depth, max_atoms, allow_and, True)
    named = _assign_vars(ch, skel, frozenset(), safe_only, p_unsafe)
    return _decorate(ch, named, frozenset(), False, frozenset(), unary_only, p_filter, rich)


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


def gen_kleene_filtered_seq(ch: Chooser, types: Sequence[str], rich: bool = False) -> Query:
    """Kleene+ over a filtered sequence: ``((R AS x ; R' AS y) FILTER x.v OP y.v)+``, the filter sometimes
    combined with a unary comparison, alone or after/before ``R'' AS z``; strategy ALL or STRICT in 4 draws
    of 7 (the generated path), an optional ``WITHIN 2..5``.  Every round rebinds x and y, so a later round's
    filter must read the later round's events (docs/semantics/cel.md#cel-3.1, #cel-G11: the
    ``plus-no-rebind`` mutant).  Strongly well-formed (docs/semantics/cel.md#cel-G3)."""
    def rel() -> str:
        return ch.choice(types)

    pred: Pred = Cmp2("x", _ATTR, ch.choice(OPS), "y", _ATTR)
    if ch.boolean(0.3):
        other = gen_cel_pred(ch, ["x", "y"], unary_only=True, max_depth=0, rich=rich)
        pred = (PAnd if ch.boolean(0.5) else POr)(pred, other)
    f: Formula = Plus(Filter(Seq(Atom(rel(), "x"), Atom(rel(), "y")), pred))
    k = ch.integer(0, 3)
    if k == 1:
        f = Seq(f, Atom(rel(), "z"))
    elif k == 2:
        f = Seq(Atom(rel(), "z"), f)
    strategy = ch.choice(("ALL", "ALL", "STRICT", "STRICT", "NXT", "LAST", "MAX"))
    within = ch.integer(2, 5) if ch.boolean(0.3) else None
    return Query(f, strategy, within)


def gen_sel_window(ch: Chooser, types: Sequence[str], rich: bool = False) -> Query:
    """A selection strategy under a small window: ``SEL(phi WITHIN w)`` with phi ``(R AS x)+`` (the atom
    sometimes filtered), alone or before/after ``R' AS y``, or ``R AS x ; R' AS y``; SEL is MAX (half),
    LAST or NXT and w is 1..4, so runs with different starts reach one state and leave the window at
    different times, and NXT's and LAST's rankings pick different complex events
    (docs/semantics/cel.md#cel-3.2 MAX after WITHIN, #cel-5.3, #cel-G8: the
    ``max-window-keeps-earliest-start`` and ``window-rank-orders-swapped`` mutants).  Strongly
    well-formed (docs/semantics/cel.md#cel-G3)."""
    def rel() -> str:
        return ch.choice(types)

    body: Formula = Atom(rel(), "x")
    if ch.boolean(0.3):
        body = Filter(body, gen_cel_pred(ch, ["x"], unary_only=True, max_depth=1, rich=rich))
    f: Formula = Plus(body)
    k = ch.integer(0, 3)
    if k == 1:
        f = Seq(f, Atom(rel(), "y"))
    elif k == 2:
        f = Seq(Atom(rel(), "y"), f)
    elif k == 3:
        f = Seq(body, Atom(rel(), "y"))
    return Query(f, ch.choice(("MAX", "MAX", "LAST", "NXT")), ch.integer(1, 4))


def gen_planted_query(ch: Chooser, types: Sequence[str], rich: bool = False) -> Query:
    """:func:`gen_kleene_filtered_seq` or :func:`gen_sel_window` (even odds): shapes the general generator
    rarely draws, both exercising engine state that lives across several events."""
    return (gen_kleene_filtered_seq if ch.boolean(0.5) else gen_sel_window)(ch, types, rich)


_CONST_CMP = re.compile(r'\b([a-z]\w*)\.(\w+) (<=|>=|!=|<|>|=) (-?\d+(?:\.\d+)?|"[^"\\]*")')


def constants_left(ch: Chooser, text: str) -> str:
    """``text`` with each unary comparison ``x.a OP c`` written ``c OP' x.a`` (OP' the mirrored operator)
    with probability 0.5: the same query (the parser mirrors it back, docs/semantics/cel.md#cel-2), another
    path through the parser."""
    return _CONST_CMP.sub(lambda m: (f"{m.group(4)} {FLIP[m.group(3)]} {m.group(1)}.{m.group(2)}"
                                     if ch.boolean(0.5) else m.group(0)), text)


def random_cel_case(rng: random.Random, length: int, *, long: bool = False, **kw: Any) -> tuple[str, Stream]:
    """Spark fuzzing entry: ``(query_text, stream)`` drawn by the same generators as
    :func:`cel_cases` (one shared type alphabet), from a seeded ``random.Random``.

    On top of :func:`gen_cel_query` (which stays the bulk of the draws):

    * a fraction :data:`P_ODD` of the cases is *odd*: the stream's events may lack ``v``, carry strings,
      a float or out-of-range values and a second attribute ``w`` (:func:`gen_stream`), and the filters
      are ``rich`` (:func:`gen_cel_pred`: ``w``, string constants, TRUE/FALSE, NOT of comparisons),
      docs/semantics/cel.md#cel-G6;
    * a fraction :data:`P_PLANTED` of the short cases is :func:`gen_planted_query` (Kleene+ over a
      filtered sequence; MAX/LAST/NXT over + under a small window), 70% of them with a witness of the
      query planted in the stream (:func:`plant_match`);
    * in a fraction :data:`P_LEFT` of the cases constants are written on the left of some comparisons
      (:func:`constants_left`);
    * ``long`` (the plugin's long cases, ``length`` 40-200): a small formula (at most 3 atoms, depth 2)
      (a single atom gets ``; R AS v`` after it, so that matches span the window) or, in a third of them, a
      planted query, always under ``WITHIN 1..3`` (raised to the span of the formula's shortest complex
      event, :func:`_min_span`, so that a match fits), with strategy ALL in half of them and STRICT in 20%, so that the generated path's step plans are compiled (after 16 uses), the window
      expires complex events and the root pruning (every ``max(w, 64)`` events) runs, with matches live
      across it (docs/semantics/cel.md#cel-G8, #cel-G15, #cel-5.5): :func:`plant_window_matches` writes
      matches of span exactly w ending at the pruning points and elsewhere.

    Args:
        rng: the random source (seed it with ``(campaign seed, case index)`` for replay).
        length: stream length.
        long: draw the long-stream query shape (above).
        kw: as :func:`gen_cel_query`; ``p_later`` defaults to :data:`P_LATER`.
    """
    ch = RandomChooser(rng)
    types = ch.choice(TYPE_ALPHABETS)
    odd = ch.boolean(P_ODD)
    planted = None
    kw = {"p_later": P_LATER, "rich": odd, **kw}
    if long:
        if ch.boolean(1 / 3):
            q = gen_planted_query(ch, types, odd)
        else:
            q = gen_cel_query(ch, types=types, **{**kw, "max_atoms": 3, "max_depth": 2})
            if isinstance(q.formula, (Atom, Filter)) and isinstance(_strip(q.formula), Atom):
                q = Query(Seq(q.formula, Atom(ch.choice(types), _fresh(var(q.formula)))), q.strategy)
        r = ch.integer(0, 9)
        strategy = "ALL" if r < 5 else "STRICT" if r < 7 else q.strategy
        q = Query(q.formula, strategy, max(ch.integer(1, 3), _min_span(q.formula)))
    elif ch.boolean(P_PLANTED):
        kleene = ch.boolean(0.5)
        q = planted = (gen_kleene_filtered_seq if kleene else gen_sel_window)(ch, types, odd)
    else:
        q = gen_cel_query(ch, types=types, **kw)
    text = str(q)
    if ch.boolean(P_LEFT):
        text = constants_left(ch, text)
    events = _stream_events(ch, length, types, odd=odd)
    if long:
        events = plant_window_matches(ch, events, q.formula, q.within, types)
    elif planted is not None and ch.boolean(0.7):
        events = (plant_match(ch, events, planted.formula, types, rounds=(2, 3), p_skip=0.1) if kleene
                  else plant_match(ch, events, planted.formula, types))
    return text, Stream.of(events)


#: Fraction of :func:`random_cel_case` queries built around :func:`gen_iteration_vs_later` (an
#: iteration's filter over a later variable: binding runs, docs/semantics/cel.md#cel-10.4).
P_LATER = 0.12
#: Fraction of :func:`random_cel_case` cases with odd attribute values and rich filters (docs/semantics/cel.md#cel-G6).
P_ODD = 0.25
#: Fraction of short :func:`random_cel_case` cases drawn by :func:`gen_planted_query`.
P_PLANTED = 0.18
#: Fraction of :func:`random_cel_case` cases with some constants written on the left (:func:`constants_left`).
P_LEFT = 0.3


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
