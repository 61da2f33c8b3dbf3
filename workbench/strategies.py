"""Random test-case generators shared by hypothesis and the Spark fuzzer (DESIGN.md sections 2, 6).

One generator code path, two sources of randomness. Every generator here is written against the
tiny :class:`Chooser` protocol::

    integer(lo, hi) -> int        # lo <= n <= hi
    choice(seq) -> element
    boolean(p=0.5) -> bool        # True with probability ~p

with two adapters:

* :class:`HypothesisChooser` wraps a hypothesis ``draw``: every decision is one
  ``st.integers`` / ``st.sampled_from`` draw, so failing cases shrink (integers towards ``lo``,
  choices towards the first element, booleans towards False). The generators order their options
  so that these are the *simpler* ones (an atom before an operator, no filter, no window, ``ALL``).
* :class:`RandomChooser` wraps a seeded :class:`random.Random` for Spark fuzzing and
  reproducible seeded sampling.

The two draw from (approximately; hypothesis biases some integer draws towards boundaries) the same
distribution, and a case found by either can be replayed: hypothesis from its database / printed
blob, Spark from ``(seed, index)``.

Language-neutral plumbing: :func:`gen_flat_stream` (flat events, small type alphabets, small
attribute ranges, biased towards interleavings such as ``A B A B``; note cel.md G10).

CEL (note cel.md; G18 keeps formulas small: depth <= 3, <= 6 atoms): :func:`gen_cel_formula`,
:func:`gen_cel_query`, :func:`gen_stream`; hypothesis wrappers :func:`cel_formulas`,
:func:`cel_queries`, :func:`cel_streams`, :func:`cel_cases`; Spark entry :func:`random_cel_case`.
Generated formulas are strongly well-formed (note G3; ``check_well_formed`` accepts them) and
``parse(str(q)) == q``.

ETALIS (note etalis.md 9.4): :func:`gen_etalis_pattern`, :func:`gen_etalis_program` (rule texts in the
``.event`` syntax), :func:`gen_etalis_stream` (``StreamEvent`` lists ordered by end time, with ties and
interval-stamped inputs); hypothesis wrappers :func:`etalis_programs`, :func:`etalis_streams`,
:func:`etalis_options`, :func:`etalis_cases`; Spark entry :func:`random_etalis_case`; bundle
:class:`EtalisStrategies`. A drawn program may still fail to parse (e.g. an unsafe head variable) or
be refused by the oracle/engine; callers redraw (``ceplab.workbench.etalis_language._random_case``) or
``assume`` it away.

EP-SPARQL (note epsparql.md): :func:`gen_epsparql_pattern`, :func:`gen_epsparql_query` (query texts with
explicit braces, every operator, FILTERs on values / BOUND / the time functions, occasionally a CONSTRUCT
feeding the SELECT), :func:`gen_epsparql_stream` (occurrence lists, times 0..8, mostly points); hypothesis
wrappers :func:`epsparql_queries`, :func:`epsparql_streams`, :func:`epsparql_options`,
:func:`epsparql_cases`; Spark entry :func:`random_epsparql_case` (a fraction of Spark cases also draw background
knowledge, :func:`gen_epsparql_background`: static triples and an RDFS schema over the same vocabulary);
bundle :class:`EpsparqlStrategies`.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Protocol, Sequence, TypeVar

from hypothesis import strategies as st

from ceplab.semantics.cel.analysis import bound, vdef_plus
from ceplab.semantics.cel.ast import (OPS, STRATEGIES, And, Atom, Cmp, Cmp2, Filter, Formula, Or, PAnd,
                               PNot, POr, Pred, Plus, Query, Seq)
from ceplab.semantics.events import Stream

T = TypeVar("T")

__all__ = ["Chooser", "HypothesisChooser", "RandomChooser", "gen_flat_stream", "gen_stream",
           "gen_cel_formula", "gen_cel_query", "gen_cel_pred", "cel_formulas", "cel_queries",
           "cel_streams", "cel_cases", "cel_options", "random_cel_case", "CelStrategies",
           "VAR_POOL", "TYPE_ALPHABETS", "gen_etalis_pattern", "gen_etalis_program",
           "gen_etalis_stream", "etalis_programs", "etalis_streams", "etalis_options", "etalis_cases",
           "random_etalis_case", "EtalisStrategies", "ETALIS_ATOMS", "ETALIS_OPS",
           "gen_epsparql_pattern", "gen_epsparql_query", "gen_epsparql_stream", "epsparql_queries",
           "epsparql_streams", "epsparql_cases", "epsparql_options", "random_epsparql_case",
           "EpsparqlStrategies", "EPSPARQL_OPS", "gen_epsparql_background", "EPSPARQL_CLASSES"]


# ================================================================ the chooser protocol
class Chooser(Protocol):
    """Source of decisions for the generators (see the module docstring)."""

    def integer(self, lo: int, hi: int) -> int: ...

    def choice(self, seq: Sequence[T]) -> T: ...

    def boolean(self, p: float = 0.5) -> bool: ...


class RandomChooser:
    """Chooser backed by a :class:`random.Random` (seeded fuzzing; reproducible)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq: Sequence[T]) -> T:
        seq = list(seq)
        if not seq:
            raise ValueError("choice from an empty sequence")
        return seq[self.rng.randrange(len(seq))]

    def boolean(self, p: float = 0.5) -> bool:
        return self.rng.random() < p


class HypothesisChooser:
    """Chooser backed by a hypothesis ``draw`` (inside ``@st.composite``), so cases shrink."""

    def __init__(self, draw: Callable[[st.SearchStrategy], Any]) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, seq: Sequence[T]) -> T:
        seq = list(seq)
        if not seq:
            raise ValueError("choice from an empty sequence")
        return seq[0] if len(seq) == 1 else self.draw(st.sampled_from(seq))

    def boolean(self, p: float = 0.5) -> bool:
        if p <= 0:
            return False
        if p >= 1:
            return True
        if p == 0.5:
            return self.draw(st.booleans())
        # shrinks towards 0, i.e. towards False
        return self.draw(st.integers(0, 999)) >= round((1 - p) * 1000)


# ================================================================ language-neutral streams
TYPE_ALPHABETS: tuple[tuple[str, ...], ...] = (("A", "B"), ("A", "B", "C"))


def gen_flat_stream(ch: Chooser, length: int, types: Sequence[str] = ("A", "B", "C"),
                    attrs: Mapping[str, tuple[int, int]] | None = None,
                    p_missing: float = 0.0) -> list[tuple[str, dict[str, int]]]:
    """A list of ``(type, attrs)`` flat events (time = position when fed to ``Stream.of``).

    The type sequence is one of three shapes (chosen first): uniform random; periodic (a pattern
    of 2-3 types such as ``A B`` repeated, each event replaced by a random type with probability
    0.2) -- the interleavings that catch off-by-one ``;``/``+`` implementations (note G10);
    or blocks (runs of one type, such as ``A A B B``).

    Args:
        ch: the chooser.
        length: number of events.
        types: the type alphabet.
        attrs: attribute name -> inclusive value range; default ``{"v": (0, 2)}``.
        p_missing: probability that an event lacks an attribute (predicate semantics on missing
            attributes, note G6).
    """
    attrs = {"v": (0, 2)} if attrs is None else dict(attrs)
    types = list(types)
    shape = ch.integer(0, 2)
    seq: list[str] = []
    if shape == 1:
        k = ch.integer(2, 3)
        start = ch.integer(0, len(types) - 1)
        pattern = [types[(start + i) % len(types)] for i in range(k)]
        for i in range(length):
            seq.append(ch.choice(types) if ch.boolean(0.2) else pattern[i % k])
    elif shape == 2:
        while len(seq) < length:
            t = ch.choice(types)
            seq.extend([t] * min(ch.integer(1, 3), length - len(seq)))
    else:
        seq = [ch.choice(types) for _ in range(length)]
    out = []
    for t in seq:
        a = {}
        for name, (lo, hi) in attrs.items():
            if p_missing and ch.boolean(p_missing):
                continue
            a[name] = ch.integer(lo, hi)
        out.append((t, a))
    return out


# ================================================================ CEL
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
    definitions, shadowing: note G3)."""
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
    """Add filters whose variables are legal for strong well-formedness (note G3).

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
    """A random strongly well-formed CEL formula (note G18 sizes).

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


def gen_cel_query(ch: Chooser, *, strategies: Sequence[str] = STRATEGIES,
                  allow_within: bool = True, **formula_kw: Any) -> Query:
    """A random CEL query: :func:`gen_cel_formula` under a strategy from ``strategies``
    (default every one: ALL, STRICT, NXT, LAST, MAX) with an optional ``WITHIN 0..5``
    (probability 0.3, only if ``allow_within``). ``formula_kw`` go to :func:`gen_cel_formula`."""
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
    """A random query with one nested selection strategy ``strategy(psi)`` (EXTENSION, note cel.md
    G5; evaluate under ``Options(nested_strategies="compositional")``).

    psi (unary filters, <= 3 atoms) and the outer formula (<= 2 atoms, no AND) are drawn by
    :func:`gen_cel_formula` over ``types``; the block replaces an outer atom or is combined with the
    outer formula by ``;`` (either side), OR, ``+`` of the block then ``;``, or ``+`` of ``outer ;
    block``.  The block gets a window with probability 0.25, the query a random top-level strategy
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
    mode = ch.integer(0, 5)
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
    else:
        f = Plus(Seq(outer, sel))
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
        kw: as :func:`gen_cel_query`.
    """
    ch = RandomChooser(rng)
    types = ch.choice(TYPE_ALPHABETS)
    q = gen_cel_query(ch, types=types, **kw)
    return str(q), gen_stream(ch, length, types)


class CelStrategies:
    """The registry's strategy bundle for CEL (``ceplab.workbench.languages.Language.strategies``)."""

    def queries(self, **kw: Any) -> st.SearchStrategy[Query]:
        return cel_queries(**kw)

    def streams(self, min_len: int = 0, max_len: int = 6) -> st.SearchStrategy[Stream]:
        return cel_streams(min_len, max_len)

    def options(self) -> st.SearchStrategy[Any]:
        return cel_options()

    @staticmethod
    def render(query: Query) -> str:
        return str(query)


# ================================================================ ETALIS
#: Stream predicates of generated ETALIS programs (each with one integer argument in {1, 2}).
ETALIS_ATOMS: tuple[str, ...] = ("a", "b", "c")
#: The nine binary operators of the paper (Figure 2; DURING restored by note A3).
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
    """A random ETALIS rule base (text), note etalis.md 9.4.

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


def _etalis_policy_available() -> bool:
    """True once the consumption-policy engine and oracle modules exist."""
    import importlib.util

    try:
        return (importlib.util.find_spec("ceplab.engine.etalis.policy") is not None
                and importlib.util.find_spec("ceplab.asp.etalis_policy") is not None)
    except (ImportError, ValueError):
        return False


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


def etalis_options(policies: bool | None = None) -> st.SearchStrategy[Any]:
    """Hypothesis strategy of :class:`ceplab.semantics.etalis.options.Options` the incremental engine
    implements: ``not_local_vars``, ``proper_intervals_only``, ``window`` (``not_reading="literal"``
    and ``during_result="contained"`` are oracle-only or restricted and not drawn). With
    ``policies`` (default: when the policy modules exist) also the consumption ``policy``."""
    from ceplab.semantics.etalis.options import Options

    if policies is None:
        policies = _etalis_policy_available()
    pol = (st.sampled_from(["unrestricted", "chronological", "recent", "recent_lifo"]) if policies
           else st.just("unrestricted"))
    return st.builds(Options, not_local_vars=st.sampled_from(["existential", "free"]),
                     proper_intervals_only=st.booleans(),
                     window=st.sampled_from(["at_most", "exactly"]), policy=pol)


def random_etalis_case(rng: random.Random, length: int, **kw: Any) -> tuple[str, list]:
    """Spark fuzzing entry: ``(rules_text, stream)`` drawn by the same generators as
    :func:`etalis_programs` / :func:`etalis_streams`, from a seeded ``random.Random``."""
    ch = RandomChooser(rng)
    text = gen_etalis_program(ch, **kw)
    return text, gen_etalis_stream(ch, length)


class EtalisStrategies:
    """The registry's strategy bundle for ETALIS (``ceplab.workbench.languages.Language.strategies``).
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


# ================================================================ EP-SPARQL
#: Subjects, predicates and objects of generated EP-SPARQL cases (``PREFIX : <http://example.org/>``).
EPSPARQL_SUBJECTS: tuple[str, ...] = ("a", "b", "c")
EPSPARQL_PREDICATES: tuple[str, ...] = ("p", "q", "r")
EPSPARQL_VALUES: tuple[int, ...] = (0, 1, 2)
#: The binary graph operators (juxtaposition = Join), simpler first.
EPSPARQL_OPS: tuple[str, ...] = ("JOIN", "SEQ", "UNION", "OPTIONAL", "EQUALS", "OPTIONALSEQ",
                                 "EQUALSOPTIONAL")
_EPSPARQL_PREFIX = "PREFIX : <http://example.org/>\n"
_EPSPARQL_VARS = ("?x", "?y", "?z")
#: Predicate written by generated CONSTRUCT rules (never read by their own WHERE: the closure stays finite).
EPSPARQL_DERIVED = "d"
#: Classes of generated background ontologies (``rdf:type`` objects in streams, static graphs and queries).
EPSPARQL_CLASSES: tuple[str, ...] = ("C0", "C1", "C2")
#: The pseudo-predicate ``a`` (``rdf:type``) in a predicate pool: its object is a variable or a class.
EPSPARQL_TYPE = "a"
_RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"


def _epsparql_triple(ch: Chooser, preds: Sequence[str]) -> tuple[str, set[str]]:
    s = ch.choice(["?s", "?s", ":" + ch.choice(EPSPARQL_SUBJECTS)])
    p = ch.choice(list(preds))
    if p == EPSPARQL_TYPE:
        o = ch.choice(list(_EPSPARQL_VARS) + [":" + c for c in EPSPARQL_CLASSES])
        vs = {v for v in (s, o) if v.startswith("?")}
        return f"{s} a {o}", vs
    p = ":" + p
    o = ch.choice(list(_EPSPARQL_VARS) + [str(ch.choice(EPSPARQL_VALUES))])
    vs = {v for v in (s, o) if v.startswith("?")}
    return f"{s} {p} {o}", vs


def _epsparql_filter(ch: Chooser, vs: Sequence[str]) -> str:
    """A FILTER expression over the variables ``vs`` and the group's interval (boundary constants)."""
    k = ch.integer(0, 4)
    kinds = ["dur", "dur_le", "start", "end", "bound", "notbound"] + (["val", "val2", "or"] if vs else [])
    kind = ch.choice(kinds)
    if kind == "dur":
        return f"getDURATION() < {k}"
    if kind == "dur_le":
        return f"getDURATION() <= {k}"
    if kind == "start":
        return f"getSTARTTIME() >= {ch.integer(0, 8)}"
    if kind == "end":
        return f"getENDTIME() < {ch.integer(0, 8)}"
    pool = list(vs) or list(_EPSPARQL_VARS)
    v = ch.choice(pool)
    if kind == "bound":
        return f"BOUND({v})"
    if kind == "notbound":
        return f"!BOUND({v})"
    if kind == "val":
        return f"{v} {ch.choice(['<', '=', '!=', '>='])} {ch.choice(EPSPARQL_VALUES)}"
    if kind == "val2":
        return f"{v} {ch.choice(['<', '=', '!='])} {ch.choice(pool)}"
    return f"{v} = {ch.choice(EPSPARQL_VALUES)} || getDURATION() > {k}"


def gen_epsparql_pattern(ch: Chooser, depth: int, preds: Sequence[str] = EPSPARQL_PREDICATES,
                         p_filter: float = 0.25) -> tuple[str, set[str]]:
    """A random group graph pattern (text with explicit braces) and the variables it mentions.

    Leaves are triples blocks of 1 (mostly) or 2 patterns ``?s|:a :p ?x|?y|?z|0..2``; inner nodes one of
    :data:`EPSPARQL_OPS` (Join as juxtaposition); an optional operand sometimes carries a FILTER (its ``F``),
    any group sometimes a group-level FILTER (values, ``BOUND``, ``getDURATION()``/``getSTARTTIME()``/
    ``getENDTIME()`` against small boundary constants). ``depth`` bounds the operator nesting.
    """
    if depth <= 0 or ch.boolean(0.3):
        n = 2 if ch.boolean(0.3) else 1
        tps, vs = [], set()
        for _ in range(n):
            t, v = _epsparql_triple(ch, preds)
            tps.append(t)
            vs |= v
        body = " . ".join(tps)
    else:
        op = ch.choice(EPSPARQL_OPS)
        left, lv = gen_epsparql_pattern(ch, depth - 1, preds, p_filter)
        right, rv = gen_epsparql_pattern(ch, depth - 1, preds, p_filter)
        vs = lv | rv
        if op in ("OPTIONAL", "EQUALSOPTIONAL") and ch.boolean(0.3):
            right = "{ " + right + f" FILTER ({_epsparql_filter(ch, sorted(vs))}) }}"
        if op == "OPTIONALSEQ" and ch.boolean(0.3):
            left = "{ " + left + f" FILTER ({_epsparql_filter(ch, sorted(vs))}) }}"
        body = f"{left} {right}" if op == "JOIN" else f"{left} {op} {right}"
    if ch.boolean(p_filter):
        body += f" FILTER ({_epsparql_filter(ch, sorted(vs))})"
    return "{ " + body + " }", vs


def gen_epsparql_query(ch: Chooser, *, max_depth: int = 3, p_construct: float = 0.15,
                       p_filter: float = 0.25, types: bool = False) -> str:
    """A random EP-SPARQL query file (text): a SELECT over 3 subjects, 3 predicates and small integer
    objects, with operators nested to depth ``1..max_depth``; with probability ``p_construct`` first a
    CONSTRUCT rule deriving ``?s :d ?v`` (from a pattern over the stream predicates) whose triples the
    SELECT may read (the closure is finite: no rule reads ``:d``). Projection: ``*`` or a non-empty subset
    of the pattern's variables. With ``types`` (cases with background knowledge, :func:`gen_epsparql_background`)
    triple patterns may also be ``?s a ?x|:C0..:C2`` (``rdf:type``), so that domain/range/subclass entailments
    reach the answers. The text may still be refused (e.g. a SELECT without variables); callers redraw."""
    parts = [_EPSPARQL_PREFIX]
    base: tuple[str, ...] = tuple(EPSPARQL_PREDICATES) + ((EPSPARQL_TYPE,) if types else ())
    preds: Sequence[str] = base
    if ch.boolean(p_construct):
        where, vs = gen_epsparql_pattern(ch, ch.integer(0, max_depth - 1), base, p_filter)
        subj = "?s" if "?s" in vs else ":" + ch.choice(EPSPARQL_SUBJECTS)
        obj = ch.choice(sorted(vs)) if vs else str(ch.choice(EPSPARQL_VALUES))
        parts.append(f"CONSTRUCT {{ {subj} :{EPSPARQL_DERIVED} {obj} }} WHERE {where}\n")
        preds = base + (EPSPARQL_DERIVED,)
    where, vs = gen_epsparql_pattern(ch, ch.integer(1, max_depth), preds, p_filter)
    if not vs or ch.boolean(0.4):
        head = "*"
    else:
        pool = sorted(vs)
        head = " ".join(v for v in pool if ch.boolean(0.6)) or pool[0]
    parts.append(f"SELECT {head} WHERE {where}\n")
    return "".join(parts)


def gen_epsparql_stream(ch: Chooser, length: int, max_time: int = 8,
                        durations: Sequence[int] = (0, 0, 0, 0, 1, 2), types: bool = False) -> list[Any]:
    """A random triple stream: ``length`` occurrences ``:s :p v`` (``v`` mostly an integer 0..2, sometimes a
    subject IRI), start in ``0..max_time``, end = start + a duration from ``durations`` (mostly points),
    ordered by end (stable); duplicates (same triple, same interval) are one occurrence (note A19), so the
    stream may be shorter than ``length``. With ``types`` about one occurrence in five is ``:s rdf:type :Ck``
    instead (classes :data:`EPSPARQL_CLASSES`)."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    occ = []
    for i in range(length):
        s = ch.choice(EPSPARQL_SUBJECTS)
        if types and ch.boolean(0.2):
            p = _RDF_TYPE
            o = f"<http://example.org/{ch.choice(EPSPARQL_CLASSES)}>"
        else:
            p = f"<http://example.org/{ch.choice(EPSPARQL_PREDICATES)}>"
            o = (str(ch.choice(EPSPARQL_VALUES)) if not ch.boolean(0.1)
                 else f"<http://example.org/{ch.choice(EPSPARQL_SUBJECTS)}>")
        t = ch.integer(0, max_time)
        e = t + ch.choice(list(durations))
        occ.append((e, i, f"<http://example.org/{s}> {p} {o} {t} {e} ."))
    occ.sort(key=lambda x: (x[0], x[1]))
    return read_line_stream("".join(x[2] + "\n" for x in occ), "<generated>")


def gen_epsparql_background(ch: Chooser) -> tuple[list[str], list[str]]:
    """Random background knowledge (note A14) over the generated vocabulary, as N-Triples lines
    ``(static graph, ontology)``: 1..4 schema axioms (``rdfs:subPropertyOf`` between :data:`EPSPARQL_PREDICATES`,
    ``rdfs:subClassOf`` between :data:`EPSPARQL_CLASSES`, chains and cycles possible, ``rdfs:domain`` /
    ``rdfs:range`` of a predicate), the first always a ``rdfs:subPropertyOf`` so that the SELECT's answers
    change, and 0..3 static triples (``:s :p v``, ``:s :p :s'`` or ``:s rdf:type :Ck``)."""
    def iri(x: str) -> str:
        return f"<http://example.org/{x}>"

    onto: list[str] = []
    for i in range(ch.integer(1, 4)):
        kind = "spo" if i == 0 else ch.choice(["spo", "sco", "domain", "range"])
        if kind == "spo":
            a, b = ch.choice(EPSPARQL_PREDICATES), ch.choice(EPSPARQL_PREDICATES)
            line = f"{iri(a)} <{_RDFS}subPropertyOf> {iri(b)} ."
        elif kind == "sco":
            a, b = ch.choice(EPSPARQL_CLASSES), ch.choice(EPSPARQL_CLASSES)
            line = f"{iri(a)} <{_RDFS}subClassOf> {iri(b)} ."
        else:
            line = f"{iri(ch.choice(EPSPARQL_PREDICATES))} <{_RDFS}{kind}> {iri(ch.choice(EPSPARQL_CLASSES))} ."
        if line not in onto:
            onto.append(line)
    graph: list[str] = []
    for _ in range(ch.integer(0, 3)):
        s = iri(ch.choice(EPSPARQL_SUBJECTS))
        kind = ch.choice(["value", "value", "iri", "type"])
        if kind == "type":
            line = f"{s} {_RDF_TYPE} {iri(ch.choice(EPSPARQL_CLASSES))} ."
        elif kind == "iri":
            line = f"{s} {iri(ch.choice(EPSPARQL_PREDICATES))} {iri(ch.choice(EPSPARQL_SUBJECTS))} ."
        else:
            v = ch.choice(EPSPARQL_VALUES)
            line = (f"{s} {iri(ch.choice(EPSPARQL_PREDICATES))} "
                    f"\"{v}\"^^<http://www.w3.org/2001/XMLSchema#integer> .")
        if line not in graph:
            graph.append(line)
    return graph, onto


@st.composite
def _epsparql_queries(draw, kw):
    return gen_epsparql_query(HypothesisChooser(draw), **kw)


@st.composite
def _epsparql_streams(draw, min_len, max_len, kw):
    ch = HypothesisChooser(draw)
    return gen_epsparql_stream(ch, ch.integer(min_len, max_len), **kw)


def epsparql_queries(**kw: Any) -> st.SearchStrategy[str]:
    """Hypothesis strategy of EP-SPARQL query texts; keywords as :func:`gen_epsparql_query`."""
    return _epsparql_queries(kw)


def epsparql_streams(min_len: int = 0, max_len: int = 8, **kw: Any) -> st.SearchStrategy[list]:
    """Hypothesis strategy of EP-SPARQL streams (:func:`gen_epsparql_stream`)."""
    return _epsparql_streams(min_len, max_len, kw)


def epsparql_cases(min_len: int = 0, max_len: int = 8, **kw: Any) -> st.SearchStrategy[tuple]:
    """Hypothesis strategy of ``(query_text, stream)`` pairs."""
    return st.tuples(epsparql_queries(**kw), epsparql_streams(min_len, max_len))


def epsparql_options() -> st.SearchStrategy[Any]:
    """Hypothesis strategy of :class:`ceplab.semantics.epsparql.options.Options` (every switch)."""
    import typing

    from ceplab.semantics.epsparql.options import Options

    hints = typing.get_type_hints(Options)
    kw = {n: st.sampled_from(list(typing.get_args(tp))) for n, tp in hints.items()
          if typing.get_origin(tp) is typing.Literal}
    return st.builds(Options, **kw)


def random_epsparql_case(rng: random.Random, length: int, background: bool = False,
                         **kw: Any) -> tuple[str, list]:
    """Spark fuzzing entry: ``(query_text, stream)`` drawn by the same generators as
    :func:`epsparql_queries` / :func:`epsparql_streams`, from a seeded ``random.Random``.

    With ``background``, the case also has background knowledge (:func:`gen_epsparql_background`, drawn first),
    written into the query text as ``# background graph: <s> <p> <o> .`` / ``# background ontology: ...``
    comment lines (:func:`ceplab.workbench.epsparql_language.background_comment`; the language's ``parse`` attaches
    them), and query and stream may use ``rdf:type`` with the ontology's classes."""
    ch = RandomChooser(rng)
    if not background:
        text = gen_epsparql_query(ch, **kw)
        return text, gen_epsparql_stream(ch, length)
    from ceplab.workbench.epsparql_language import background_comment

    graph, onto = gen_epsparql_background(ch)
    text = gen_epsparql_query(ch, types=True, **kw)
    return background_comment(graph, onto) + text, gen_epsparql_stream(ch, length, types=True)


class EpsparqlStrategies:
    """The registry's strategy bundle for EP-SPARQL. ``queries()`` draws query texts (parse them with the
    language's ``parse``)."""

    def queries(self, **kw: Any) -> st.SearchStrategy[str]:
        return epsparql_queries(**kw)

    def streams(self, min_len: int = 0, max_len: int = 8) -> st.SearchStrategy[list]:
        return epsparql_streams(min_len, max_len)

    def options(self) -> st.SearchStrategy[Any]:
        return epsparql_options()

    @staticmethod
    def render(query: Any) -> str:
        if isinstance(query, str):
            return query
        from ceplab.semantics.epsparql.parser import render

        return render(query)
