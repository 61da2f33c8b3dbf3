"""Syntactic rewritings of CEL formulas (paper section 5 and Appendix B; docs/semantics/cel.md#cel-4).

Every function here maps a formula to an *equivalent* one (docs/semantics/cel.md#cel-4.2: ``phi == psi`` iff
``[[phi]](S) = [[psi]](S)`` for every stream S) and is pure: inputs are never mutated, outputs are
fresh frozen AST values. Inputs must be strongly well-formed (docs/semantics/cel.md#cel-G3,
:func:`ceplab.semantics.cel.analysis.check_well_formed`); that is what :func:`ceplab.semantics.cel.parser.parse`
guarantees. Every public rewrite also accepts a :class:`~ceplab.semantics.cel.ast.Query` and then rewrites
its formula, keeping strategy and window (strategies and ``WITHIN`` only look at ``[[phi]](S)``, so
an equivalent formula gives an equivalent query).

Public functions:

``alpha_rename(f)``
    docs/semantics/cel.md#cel-G3 / #cel-10.3 item 1: every ``+`` body gets fresh names (``x__1``, ``x__2``, ... in pre-order)
    for its vdef+ variables, and the references to them inside the body are rewritten.
``dnf(f)``, ``dnf_size(f)``
    Lemma 2: OR pushed to the top except under ``+``; ``+`` bodies normalised recursively.
    ``dnf_size`` is the exact node count of ``dnf(f)``, computed without building it.
``safe_rewrite(f)``
    Theorem 1 / Lemma B.12: DNF, then drop the unsafe disjuncts bottom-up, starting inside the
    ``+`` bodies. ``FalseF`` if nothing is left (docs/semantics/cel.md#cel-G7).
``lp_normal_form(f)``
    Theorem 2 / Appendix B.2: unary filters sit directly on the atom that defines their variable.
``engine_form(f)``
    ``alpha_rename -> safe_rewrite -> lp_normal_form``: what the automaton compiler (Theorem 3)
    needs. The result is safe and LP-normal (``FalseF`` possible); binary filters are untouched.
``simplify(f)``, ``simplify_pred(p)``
    TRUE/FALSE predicate simplification and ``FalseF`` propagation (docs/semantics/cel.md#cel-G7).

Conventions chosen here (project decisions, documented in the functions):

* ``FalseF`` (docs/semantics/cel.md#cel-G7) is the unit of OR and absorbing for ``;``, ``+``, ``FILTER`` and ``AND``.
  ``phi FILTER TRUE`` is ``phi`` and ``phi FILTER FALSE`` is ``FalseF``.
* ``AND`` (EXTENSION, docs/semantics/cel.md#cel-G8: ``C`` in both sides under the *same* valuation) distributes over OR,
  so DNF treats it like ``;``: ``(a OR b) AND c == (a AND c) OR (b AND c)``. Lemma B.8 holds for
  AND (every vdef+ variable of either side is in C), so an unsafe ``;`` inside an AND still makes its
  disjunct unsatisfiable and is dropped. Safety is checked on ``;`` only (as
  :func:`ceplab.semantics.cel.analysis.is_safe`); an AND whose sides share a vdef+ variable is kept as is.
  Such an AND is *not* the CE-set intersection of its sides (``(A AS x ; A AS y) AND (A AS y ;
  A AS x)`` is empty, the product automaton would accept every pair); that is for the compiler to
  reject. Filters are pushed into both sides of an AND (both are evaluated under the same
  valuation).
* A filter predicate over several variables that contains no genuinely binary comparison (e.g.
  ``x.v = 0 OR y.v = 1``) is the paper's AND/OR sugar (docs/semantics/cel.md#cel-2.1) and is split into unary filters
  by :func:`lp_normal_form`; genuinely binary comparisons ``x.a OP y.b`` (x != y) stay where they
  are, conjoined into one filter per original filter, stacked above the unary ones.
* ``NOT x.v < 1`` is *not* ``x.v >= 1`` (an event lacking ``v`` is in the complement, docs/semantics/cel.md#cel-G6), so
  negations of comparisons are never folded into the comparison.

All rewrites are exponential in the worst case (Theorems 1 and 2); every public rewrite takes
``max_nodes`` (default :data:`MAX_NODES`) and raises :class:`ceplab.semantics.errors.UnsupportedError` as
soon as a result would exceed it.
"""
from __future__ import annotations

import functools
from typing import Callable, Iterable

from ceplab.semantics.cel.analysis import (WellFormednessError, bound, check_well_formed, is_safe,
                                    vdef_plus)
from ceplab.semantics.cel.ast import (And, Atom, Cmp, Cmp2, FalseF, Filter, Formula, Or, PAnd, PFalse,
                               PNot, POr, Pred, PTrue, Plus, Query, Seq, annotation, children, rebuild,
                               pred_atoms, pred_vars, size)
from ceplab.semantics.errors import UnsupportedError

MAX_NODES = 10_000
"""Default size guard: no rewrite returns (or builds) a formula with more nodes than this."""

__all__ = ["MAX_NODES", "alpha_rename", "dnf", "dnf_size", "disjuncts", "simplify",
           "simplify_pred", "safe_rewrite", "lp_normal_form", "engine_form", "split_filters"]


def _on_query(fn: Callable[..., Formula]) -> Callable[..., Formula | Query]:
    """Let a formula rewrite also take a Query (rewrites its formula, keeps strategy/window)."""
    @functools.wraps(fn)
    def wrapper(f, *args, **kwargs):
        if isinstance(f, Query):
            return Query(fn(f.formula, *args, **kwargs), f.strategy, f.within)
        return fn(f, *args, **kwargs)
    return wrapper


def _too_big(what: str, n: int, limit: int) -> UnsupportedError:
    return UnsupportedError(
        f"{what} would have {n} formula nodes, more than the limit of {limit} (the CEL rewritings "
        "of Theorems 1 and 2 are exponential; simplify the query or raise max_nodes)")


def _balanced(items: list[Formula], mk: Callable[[Formula, Formula], Formula]) -> Formula:
    """Balanced binary tree of ``mk`` over ``items`` (keeps nesting depth logarithmic)."""
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return mk(_balanced(items[:mid], mk), _balanced(items[mid:], mk))


def _or_all(items: Iterable[Formula]) -> Formula:
    """OR of the given formulas (duplicates and FalseF removed); FalseF if none is left."""
    seen: list[Formula] = []
    for g in items:
        if not isinstance(g, FalseF) and g not in seen:
            seen.append(g)
    return _balanced(seen, Or) if seen else FalseF()


def _pand_all(items: Iterable[Pred]) -> Pred:
    ps: list[Pred] = []
    for p in items:
        if p not in ps:
            ps.append(p)
    if not ps:
        return PTrue()
    out = ps[0]
    for p in ps[1:]:
        out = PAnd(out, p)
    return out


# ================================================================ simplification (docs/semantics/cel.md#cel-G7)
def simplify_pred(p: Pred) -> Pred:
    """Fold TRUE/FALSE, double negation and idempotent AND/OR in a predicate.

    Only laws valid for predicates as *sets of tuples* are used (docs/semantics/cel.md#cel-G6): ``NOT`` of a comparison is
    kept as is (``NOT x.v < 1`` also holds on events without ``v``). Returns ``p`` itself when
    nothing changes; the result is kept on ``p`` (an annotation, computed once per node).
    """
    r = p.__dict__.get("_simp")
    if r is None:
        r = annotation(p, "_simp", _simplify_pred)
    return r


def _simplify_pred(p: Pred) -> Pred:
    if isinstance(p, PAnd):
        a, b = simplify_pred(p.left), simplify_pred(p.right)
        if isinstance(a, PFalse) or isinstance(b, PFalse):
            return PFalse()
        if isinstance(a, PTrue):
            return b
        if isinstance(b, PTrue) or a == b:
            return a
        if PNot(a) == b or PNot(b) == a:
            return PFalse()
        return p if a is p.left and b is p.right else PAnd(a, b)
    if isinstance(p, POr):
        a, b = simplify_pred(p.left), simplify_pred(p.right)
        if isinstance(a, PTrue) or isinstance(b, PTrue):
            return PTrue()
        if isinstance(a, PFalse):
            return b
        if isinstance(b, PFalse) or a == b:
            return a
        if PNot(a) == b or PNot(b) == a:
            return PTrue()
        return p if a is p.left and b is p.right else POr(a, b)
    if isinstance(p, PNot):
        a = simplify_pred(p.arg)
        if isinstance(a, PTrue):
            return PFalse()
        if isinstance(a, PFalse):
            return PTrue()
        if isinstance(a, PNot):
            return a.arg
        return p if a is p.arg else PNot(a)
    return p


def simplify(f: Formula) -> Formula:
    """Simplify TRUE/FALSE predicates and propagate ``FalseF`` (docs/semantics/cel.md#cel-G7).

    ``psi FILTER TRUE -> psi``; ``psi FILTER FALSE -> FalseF``; ``FalseF`` is the unit of OR and
    absorbing for ``;``, ``+``, ``AND`` and ``FILTER``; ``a OR a -> a``. Equivalence-preserving.
    Returns ``f`` itself when nothing changes (and unchanged sub-formulas are shared); the result
    is kept on ``f`` (an annotation), so re-simplifying after a local rewrite only visits the new
    nodes.

    Args:
        f: any formula (or a Query).
    Returns:
        An equivalent formula, ``FalseF()`` if it is trivially unsatisfiable.
    Raises:
        TypeError: ``f`` is not a CEL formula.
    """
    if isinstance(f, Query):
        return Query(simplify(f.formula), f.strategy, f.within)
    r = f.__dict__.get("_simp")
    if r is None:
        r = annotation(f, "_simp", _simplify)
    return r


def _simplify(f: Formula) -> Formula:
    if isinstance(f, (Atom, FalseF)):
        return f
    if isinstance(f, Filter):
        b = simplify(f.body)
        p = simplify_pred(f.pred)
        if isinstance(b, FalseF) or isinstance(p, PFalse):
            return FalseF()
        if isinstance(p, PTrue):
            return b
        return f if b is f.body and p is f.pred else Filter(b, p)
    if isinstance(f, Plus):
        b = simplify(f.body)
        if isinstance(b, FalseF):
            return FalseF()
        return f if b is f.body else Plus(b)
    if isinstance(f, Or):
        l, r = simplify(f.left), simplify(f.right)
        if isinstance(l, FalseF):
            return r
        if isinstance(r, FalseF) or l == r:
            return l
        return f if l is f.left and r is f.right else Or(l, r)
    if isinstance(f, (Seq, And)):
        l, r = simplify(f.left), simplify(f.right)
        if isinstance(l, FalseF) or isinstance(r, FalseF):
            return FalseF()
        return f if l is f.left and r is f.right else type(f)(l, r)
    raise TypeError(f"not a CEL formula: {f!r}")


# ================================================================ alpha-renaming (docs/semantics/cel.md#cel-G3)
def _rename_pred(p: Pred, env: dict[str, str]) -> Pred:
    if isinstance(p, Cmp):
        return Cmp(env.get(p.var, p.var), p.attr, p.op, p.value)
    if isinstance(p, Cmp2):
        return Cmp2(env.get(p.var, p.var), p.attr, p.op, env.get(p.var2, p.var2), p.attr2)
    if isinstance(p, (PAnd, POr)):
        return type(p)(_rename_pred(p.left, env), _rename_pred(p.right, env))
    if isinstance(p, PNot):
        return PNot(_rename_pred(p.arg, env))
    return p


def _all_names(f: Formula) -> set[str]:
    out: set[str] = set()
    stack = [f]
    while stack:
        g = stack.pop()
        if isinstance(g, Atom):
            out.add(g.var)
        elif isinstance(g, Filter):
            out |= pred_vars(g.pred)
        stack.extend(children(g))
    return out


@_on_query
def alpha_rename(f: Formula) -> Formula:
    """Rename the iteration-local variables of every ``+`` apart (docs/semantics/cel.md#cel-G3, #cel-10.3 item 1).

    For every ``rho+`` (pre-order), each ``x`` in ``vdef+(rho)`` is renamed to a fresh ``x__k``
    (``k`` = 1, 2, ... counting across the formula; names already in the formula are skipped) in
    the atoms defining it and in every reference to it inside ``rho``, except inside nested ``+``
    bodies that rebind ``x`` again (they get their own fresh name). References to variables that
    ``rho`` does not define keep their outer name (this is how ``y.id = x.id`` in phi4 keeps
    correlating with the outer ``x``). Top-level variables are never renamed.

    Equivalence: ``[[rho+]](S, nu)`` does not depend on ``nu`` restricted to ``vdef+(rho)`` and
    each round overwrites exactly those variables (docs/semantics/cel.md#cel-3.1), so consistent renaming inside the
    body is invisible. Deterministic: equal inputs give equal outputs.

    Args:
        f: a formula (or Query).
    Returns:
        The renamed formula; after it, distinct ``+`` bodies define disjoint variable names and no
        ``+``-local name occurs outside its body.
    """
    used = _all_names(f)
    counter = [0]

    def fresh(x: str) -> str:
        while True:
            counter[0] += 1
            name = f"{x}__{counter[0]}"
            if name not in used:
                used.add(name)
                return name

    def go(g: Formula, env: dict[str, str]) -> Formula:
        if isinstance(g, Atom):
            return g if g.var not in env else Atom(g.rel, env[g.var])
        if isinstance(g, FalseF):
            return g
        if isinstance(g, Filter):
            b = go(g.body, env)
            p = _rename_pred(g.pred, env) if env and pred_vars(g.pred) & env.keys() else g.pred
            return rebuild(g, b) if p is g.pred else Filter(b, p)
        if isinstance(g, Plus):
            inner = dict(env)
            for x in sorted(vdef_plus(g.body)):
                inner[x] = fresh(x.split("__")[0] if "__" in x else x)
            return rebuild(g, go(g.body, inner))
        if isinstance(g, (Or, Seq, And)):
            return rebuild(g, go(g.left, env), go(g.right, env))
        raise TypeError(f"not a CEL formula: {g!r}")

    return go(f, {})


# ================================================================ DNF (Lemma 2)
def _dnf_counts(f: Formula) -> tuple[int, int]:
    """(number of disjuncts, total size of the disjuncts) of ``dnf(f)``."""
    if isinstance(f, Atom):
        return 1, 1
    if isinstance(f, FalseF):
        return 0, 0
    if isinstance(f, Filter):
        n, s = _dnf_counts(f.body)
        return n, s + n
    if isinstance(f, Or):
        n1, s1 = _dnf_counts(f.left)
        n2, s2 = _dnf_counts(f.right)
        return n1 + n2, s1 + s2
    if isinstance(f, (Seq, And)):
        n1, s1 = _dnf_counts(f.left)
        n2, s2 = _dnf_counts(f.right)
        return n1 * n2, n2 * s1 + n1 * s2 + n1 * n2
    if isinstance(f, Plus):
        n, s = _dnf_counts(f.body)
        return (0, 0) if n == 0 else (1, s + (n - 1) + 1)
    raise TypeError(f"not a CEL formula: {f!r}")


def dnf_size(f: Formula | Query) -> int:
    """Exact number of nodes of ``dnf(f)`` (without building it; may be astronomically large).

    Counts as :func:`ceplab.semantics.cel.ast.size` does; an empty DNF (``FalseF``) has size 1. Used as
    the size guard of :func:`dnf` and :func:`safe_rewrite`.
    """
    if isinstance(f, Query):
        f = f.formula
    n, s = _dnf_counts(f)
    return 1 if n == 0 else s + n - 1


def _dnf_list(f: Formula) -> list[Formula]:
    if isinstance(f, Atom):
        return [f]
    if isinstance(f, FalseF):
        return []
    if isinstance(f, Filter):
        return [Filter(d, f.pred) for d in _dnf_list(f.body)]
    if isinstance(f, Or):
        return _dnf_list(f.left) + _dnf_list(f.right)
    if isinstance(f, (Seq, And)):
        ls, rs = _dnf_list(f.left), _dnf_list(f.right)
        return [type(f)(a, b) for a in ls for b in rs]
    if isinstance(f, Plus):
        body = _dnf_list(f.body)
        return [Plus(_balanced(body, Or))] if body else []
    raise TypeError(f"not a CEL formula: {f!r}")


def disjuncts(f: Formula) -> list[Formula]:
    """The top-level OR operands of ``f`` (``[f]`` if it is no OR; ``[]`` for ``FalseF``)."""
    if isinstance(f, FalseF):
        return []
    if isinstance(f, Or):
        return disjuncts(f.left) + disjuncts(f.right)
    return [f]


@_on_query
def dnf(f: Formula, max_nodes: int = MAX_NODES) -> Formula:
    """Disjunctive normal form (Lemma 2; docs/semantics/cel.md#cel-4.2).

    Rules: atoms unchanged; ``(psi1 OR .. OR psin) FILTER P -> OR_i (psi_i FILTER P)``;
    ``(psi_i)_i ; (chi_j)_j -> OR_ij (psi_i ; chi_j)`` and the same for ``AND`` (EXTENSION: both
    sides share the valuation, so AND distributes over OR); under ``+`` the body is normalised
    recursively and its OR stays inside the ``+``. ``FalseF`` contributes no disjunct, so
    ``FalseF+`` and ``FalseF ; psi`` vanish. Disjunct order is left to right; the top-level OR is
    built as a balanced tree. No other simplification is done, so ``size(dnf(f)) == dnf_size(f)``.

    Args:
        f: a formula (or Query).
        max_nodes: size guard.
    Returns:
        ``d1 OR ... OR dn`` (balanced) where no ``di`` has an OR outside a ``+``, or ``FalseF()``.
    Raises:
        UnsupportedError: ``dnf_size(f) > max_nodes``.
    """
    n = dnf_size(f)
    if n > max_nodes:
        raise _too_big("the disjunctive normal form (Lemma 2)", n, max_nodes)
    return _balanced(_dnf_list(f), Or) if _dnf_counts(f)[0] else FalseF()


# ================================================================ Theorem 1: safety
def _drop_unsafe(f: Formula) -> Formula:
    """``f`` in DNF: drop unsafe disjuncts bottom-up, starting inside ``+`` bodies (B.12)."""
    kept: list[Formula] = []
    for d in disjuncts(f):
        d2 = simplify(_fix_plus_bodies(d))
        if isinstance(d2, FalseF):
            continue
        if is_safe(d2):
            kept.append(d2)
    return _balanced(kept, Or) if kept else FalseF()


def _fix_plus_bodies(d: Formula) -> Formula:
    if isinstance(d, Plus):
        return rebuild(d, _drop_unsafe(d.body))
    if isinstance(d, Filter):
        return rebuild(d, _fix_plus_bodies(d.body))
    if isinstance(d, (Seq, And, Or)):
        return rebuild(d, _fix_plus_bodies(d.left), _fix_plus_bodies(d.right))
    return d


@_on_query
def safe_rewrite(f: Formula, max_nodes: int = MAX_NODES) -> Formula:
    """An equivalent *safe* formula (Theorem 1 via Lemma 2 and Lemma B.12; docs/semantics/cel.md#cel-4.2, #cel-G7).

    Steps: :func:`dnf`; then, bottom-up starting with the innermost ``+`` bodies (which are in DNF
    themselves), delete every disjunct that is not safe (some ``l ; r`` outside ``+`` with
    ``vdef+(l) & vdef+(r) != {}``). Such a disjunct is unsatisfiable: it has no OR outside ``+``,
    so by Lemma B.8 ``nu(x)`` lies in both disjoint halves. A ``+`` whose body loses every
    disjunct is ``FalseF`` and takes its disjunct with it; TRUE/FALSE filters are simplified
    (:func:`simplify`). AND (EXTENSION) is distributed by the DNF; Lemma B.8 also holds for AND, so
    the same deletion is sound for disjuncts containing AND (see the module docstring for what is
    *not* done for AND).

    Args:
        f: a formula (or Query); should be strongly well-formed (docs/semantics/cel.md#cel-G3) and, if it has ``+``
            bodies that shadow outer names, alpha-renamed first (:func:`engine_form` does both).
    Returns:
        A safe formula in DNF (``analysis.is_safe`` holds), or ``FalseF()`` if every disjunct was
        unsafe (docs/semantics/cel.md#cel-G7).
    Raises:
        UnsupportedError: the DNF would exceed ``max_nodes``.
    """
    return _drop_unsafe(dnf(f, max_nodes))


# ================================================================ Theorem 2: LP-normal form
def _has_binary_cmp(p: Pred) -> bool:
    return any(isinstance(c, Cmp2) and c.var != c.var2 for c in pred_atoms(p))


def _flatten_and(p: Pred) -> list[Pred]:
    if isinstance(p, PAnd):
        return _flatten_and(p.left) + _flatten_and(p.right)
    return [p]


def _pred_dnf(p: Pred, neg: bool, limit: int) -> list[list[Pred]]:
    """DNF of a predicate as a list of conjunctions of literals (comparisons or their NOT)."""
    if isinstance(p, PTrue):
        return [] if neg else [[]]
    if isinstance(p, PFalse):
        return [[]] if neg else []
    if isinstance(p, PNot):
        return _pred_dnf(p.arg, not neg, limit)
    if isinstance(p, (PAnd, POr)):
        conj = isinstance(p, PAnd) != neg
        a, b = _pred_dnf(p.left, neg, limit), _pred_dnf(p.right, neg, limit)
        if not conj:
            return a + b
        if len(a) * len(b) > limit:
            raise _too_big("splitting a multi-variable filter predicate into unary filters",
                           len(a) * len(b), limit)
        return [x + y for x in a for y in b]
    return [[PNot(p)]] if neg else [[p]]


def _split_filter(body: Formula, pred: Pred, limit: int) -> Formula:
    """``body FILTER pred`` with the predicate decomposed by the AND/OR sugar (docs/semantics/cel.md#cel-2.1).

    Conjuncts over one variable become unary filters (one per variable, stacked innermost);
    conjuncts containing a genuinely binary comparison are conjoined into one filter; conjuncts
    over several variables without binary comparisons are expanded to DNF and split with OR.
    """
    unary: dict[str, list[Pred]] = {}
    binary: list[Pred] = []
    decomp: list[Pred] = []
    for c in _flatten_and(simplify_pred(pred)):
        vs = pred_vars(c)
        if isinstance(c, PFalse):
            return FalseF()
        if isinstance(c, PTrue):
            continue
        if len(vs) <= 1:
            unary.setdefault(next(iter(vs)) if vs else "", []).append(c)
        elif _has_binary_cmp(c):
            binary.append(c)
        else:
            decomp.append(c)
    res = body
    for x in sorted(unary):
        res = Filter(res, _pand_all(unary[x]))
    if binary:
        res = Filter(res, _pand_all(binary))
    for c in decomp:
        alts = []
        for conj in _pred_dnf(c, False, limit):
            alts.append(_split_filter(res, _pand_all(conj), limit))
        res = _or_all(alts)
        if size(res) > limit:
            raise _too_big("splitting a multi-variable filter predicate into unary filters",
                           size(res), limit)
    return res


@_on_query
def split_filters(f: Formula, max_nodes: int = MAX_NODES) -> Formula:
    """Apply the AND/OR filter sugar (docs/semantics/cel.md#cel-2.1) so that no filter mixes variables needlessly.

    Every filter whose predicate mentions two or more variables is decomposed: each conjunct over
    a single variable becomes its own unary filter; a conjunct over several variables without any
    ``x.a OP y.b`` (x != y) comparison is put in DNF, and ``psi FILTER (P1 OR P2)`` becomes
    ``(psi FILTER P1) OR (psi FILTER P2)``; conjuncts with binary comparisons stay together in one
    (binary) filter. Unary filters are unchanged.

    Raises:
        UnsupportedError: the result would exceed ``max_nodes``.
    """
    def go(g: Formula) -> Formula:
        if isinstance(g, Filter):
            b = go(g.body)
            if len(pred_vars(g.pred)) >= 2:
                return _split_filter(b, g.pred, max_nodes)
            return rebuild(g, b)
        if isinstance(g, Plus):
            return rebuild(g, go(g.body))
        if isinstance(g, (Or, Seq, And)):
            return rebuild(g, go(g.left), go(g.right))
        return g

    out = simplify(go(f))
    if size(out) > max_nodes:
        raise _too_big("splitting filter predicates", size(out), max_nodes)
    return out


def _is_unary_filter(g: Formula) -> bool:
    return isinstance(g, Filter) and len(pred_vars(g.pred)) == 1


def _find_unbound(f: Formula) -> tuple[list[tuple[Formula, int]], Filter] | None:
    """First (pre-order) unary filter ``psi FILTER P(x)`` with ``x`` not in ``bound(psi)``, with
    its path from the root as ``(ancestor, child index)`` pairs."""
    stack: list[tuple[Formula, list[tuple[Formula, int]]]] = [(f, [])]
    while stack:
        g, path = stack.pop()
        if _is_unary_filter(g):
            (x,) = pred_vars(g.pred)
            if x not in bound(g.body):
                return path, g
        cs = children(g)
        for i in range(len(cs) - 1, -1, -1):
            stack.append((cs[i], path + [(g, i)]))
    return None


def _replace_at(root: Formula, path: list[tuple[Formula, int]], new: Formula) -> Formula:
    for g, i in reversed(path):
        if isinstance(g, Filter):
            new = Filter(new, g.pred)
        elif isinstance(g, Plus):
            new = Plus(new)
        else:
            new = type(g)(new, g.right) if i == 0 else type(g)(g.left, new)
    return new


def _subst_pred(p: Pred, target: Pred, val: Pred) -> Pred:
    if p == target:
        return val
    if isinstance(p, (PAnd, POr)):
        return type(p)(_subst_pred(p.left, target, val), _subst_pred(p.right, target, val))
    if isinstance(p, PNot):
        return PNot(_subst_pred(p.arg, target, val))
    return p


def _case(g: Formula, x: str, target: Pred, val: Pred) -> Formula:
    """``g`` with every occurrence of the predicate ``target`` (about ``x``, in the scope of the
    current binding of ``x``) replaced by TRUE or FALSE; nested ``+`` bodies that rebind ``x``
    are left alone."""
    if isinstance(g, Filter):
        b = _case(g.body, x, target, val)
        p = _subst_pred(g.pred, target, val) if x in pred_vars(g.pred) else g.pred
        return rebuild(g, b) if p == g.pred else Filter(b, p)
    if isinstance(g, Plus):
        if x in vdef_plus(g.body):
            return g
        return rebuild(g, _case(g.body, x, target, val))
    if isinstance(g, (Or, Seq, And)):
        return rebuild(g, _case(g.left, x, target, val), _case(g.right, x, target, val))
    return g


def _pop_up(f: Formula, limit: int) -> Formula:
    """Appendix B.2 step 1: until every unary filter's variable is bound in the filtered formula,
    replace the lowest enclosing psi' with x in bound(psi') by
    ``(psi'_T FILTER P(x)) OR (psi'_F FILTER NOT P(x))``."""
    while True:
        found = _find_unbound(f)
        if found is None:
            return f
        path, flt = found
        (x,) = pred_vars(flt.pred)
        k = len(path) - 1
        child: Formula = flt
        while k >= 0:
            anc, _ = path[k]
            if isinstance(anc, Plus) and x in vdef_plus(child):
                k = -1  # reached x's binder without binding it: not strongly well-formed
                break
            if x in bound(anc):
                break
            child = anc
            k -= 1
        if k < 0:
            raise WellFormednessError(
                x, f"variable {x} in FILTER {flt.pred} is not bound where the filter applies "
                   "(not strongly well-formed, docs/semantics/cel.md#cel-G3); the LP rewrite needs it bound")
        anc = path[k][0]
        p = flt.pred
        pos = simplify(Filter(_case(anc, x, p, PTrue()), p))
        neg = simplify(Filter(_case(anc, x, p, PFalse()), PNot(p)))
        f = simplify(_replace_at(f, path[:k], _or_all([pos, neg])))
        if size(f) > limit:
            raise _too_big("the LP-normal form (Theorem 2)", size(f), limit)


def _push_into(g: Formula, x: str, p: Pred) -> Formula:
    """Attach ``FILTER p`` to every ``R AS x`` of the current binding of ``x`` in ``g`` (not into
    ``+`` bodies: an atom defining ``x`` under a ``+`` is always rebound by that ``+``)."""
    if isinstance(g, Atom):
        return Filter(g, p) if g.var == x else g
    if isinstance(g, Filter):
        return rebuild(g, _push_into(g.body, x, p))
    if isinstance(g, (Or, Seq, And)):
        return rebuild(g, _push_into(g.left, x, p), _push_into(g.right, x, p))
    return g  # Plus, FalseF


def _push_down(g: Formula) -> Formula:
    """Appendix B.2 step 2 (bottom-up): ``psi FILTER P(x)`` with x in bound(psi) -> P attached to
    the atoms of psi defining this x."""
    if isinstance(g, Filter):
        b = _push_down(g.body)
        if len(pred_vars(g.pred)) == 1:
            (x,) = pred_vars(g.pred)
            if x in bound(b):
                return _push_into(b, x, g.pred)
        return rebuild(g, b)
    if isinstance(g, Plus):
        return rebuild(g, _push_down(g.body))
    if isinstance(g, (Or, Seq, And)):
        return rebuild(g, _push_down(g.left), _push_down(g.right))
    return g


def _merge_stacks(g: Formula) -> Formula:
    """Merge the unary filters stacked on an atom into one conjunction directly on the atom,
    with the other (binary) filters of the stack above it, in their original order."""
    if isinstance(g, Filter):
        preds: list[Pred] = []
        base: Formula = g
        while isinstance(base, Filter):
            preds.append(base.pred)
            base = base.body
        preds.reverse()  # innermost first
        if isinstance(base, Atom):
            own = [p for p in preds if pred_vars(p) <= {base.var}]
            rest = [p for p in preds if not pred_vars(p) <= {base.var}]
            conj = simplify_pred(_pand_all(own))
            if isinstance(conj, PFalse):
                return FalseF()
            out: Formula = base if isinstance(conj, PTrue) else Filter(base, conj)
        else:
            rest = preds
            out = _merge_stacks(base)
        for p in rest:
            out = Filter(out, p)
        return out
    if isinstance(g, Plus):
        return rebuild(g, _merge_stacks(g.body))
    if isinstance(g, (Or, Seq, And)):
        return rebuild(g, _merge_stacks(g.left), _merge_stacks(g.right))
    return g


@_on_query
def lp_normal_form(f: Formula, max_nodes: int = MAX_NODES, rename: bool = True) -> Formula:
    """An equivalent formula in LP-normal form (Theorem 2, Appendix B.2; docs/semantics/cel.md#cel-4.3, #cel-G17).

    Steps:
      1. :func:`alpha_rename` (unless ``rename=False``), so that no ``+`` body shadows an outer
         name (the proof's implicit renaming; docs/semantics/cel.md#cel-G3).
      2. :func:`split_filters`: predicates over several variables built from unary comparisons are
         split by the AND/OR sugar; genuinely binary comparisons stay in one filter.
      3. Pop-up: while some unary ``psi FILTER P(x)`` has ``x`` not in ``bound(psi)``, take the
         lowest enclosing psi' with ``x in bound(psi')`` (below x's binder, by strong
         well-formedness) and replace it by ``(psi'_T FILTER P(x)) OR (psi'_F FILTER NOT P(x))``,
         where ``psi'_T``/``psi'_F`` have every occurrence of ``P`` about this ``x`` replaced by
         TRUE/FALSE. (When the path from psi' to the filter has no OR, ``psi'_F`` collapses to
         FalseF and this is a plain hoist.)
      4. Push-down: ``psi FILTER P(x)`` with ``x in bound(psi)`` loses the filter, and ``P`` is
         attached to every ``R AS x`` of psi outside nested ``+`` (those rebind ``x``).
      5. Stacked unary filters on an atom are merged by conjunction directly on the atom, binary
         filters stay above them; TRUE/FALSE are simplified (a FALSE-filtered atom makes its
         branch FalseF).

    Args:
        f: a strongly well-formed formula (or Query).
        max_nodes: size guard.
        rename: run step 1 (pass False when the input is already alpha-renamed).
    Returns:
        An equivalent formula satisfying ``analysis.is_lp_normal``; safety is preserved (it is
        safe if ``f`` is); ``FalseF()`` possible.
    Raises:
        WellFormednessError: a unary filter's variable is not bound where it applies (not strongly
            well-formed).
        UnsupportedError: a rewrite step would exceed ``max_nodes``.
    """
    g = alpha_rename(f) if rename else f
    g = split_filters(g, max_nodes)
    g = _pop_up(g, max_nodes)
    g = _push_down(g)
    return simplify(_merge_stacks(g))


@_on_query
def engine_form(f: Formula, max_nodes: int = MAX_NODES) -> Formula:
    """The normal form the automaton compiler needs (docs/semantics/cel.md#cel-10.3 item 1, paper Figure 3 pipeline).

    ``alpha_rename`` -> ``safe_rewrite`` (Theorem 1) -> ``lp_normal_form`` (Theorem 2).

    Args:
        f: a strongly well-formed formula (or Query).
        max_nodes: size guard for every step.
    Returns:
        An equivalent formula that is safe (``analysis.is_safe``) and LP-normal
        (``analysis.is_lp_normal``), with binary filters left where they were (after splitting
        off their unary conjuncts), or ``FalseF()``.
    Raises:
        WellFormednessError: ``f`` is not strongly well-formed.
        UnsupportedError: a rewrite would exceed ``max_nodes``.
    """
    check_well_formed(f)
    g = alpha_rename(f)
    g = safe_rewrite(g, max_nodes)
    if isinstance(g, FalseF):
        return g
    return lp_normal_form(g, max_nodes, rename=False)
