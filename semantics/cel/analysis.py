"""Syntactic analysis of CEL formulas (paper section 5, Appendix B; docs/semantics/cel.md#cel-4).

``vdef``, ``vdef_plus`` and ``bound`` follow the paper's definitions; ``check_well_formed`` checks the
note's *strong* well-formedness (G3), which the project requires of every query. Safety is
``vdef+(l) & vdef+(r) == {}`` for every ``l ; r``.

Nested selection strategies (EXTENSION, docs/semantics/cel.md#cel-G5, :class:`ceplab.semantics.cel.ast.Sel`) are leaves of the
outer formula: they define no variable for it (``vdef``, ``bound``, ``var`` do not enter them).
``check_closed`` checks that they are closed, ``check_nested_strategies`` applies the switch
``Options.nested_strategies``.

Analyse once: ``vdef``, ``vdef_plus``, ``bound``, ``is_safe`` and ``has_binary`` are *annotations*
(:func:`ceplab.semantics.cel.ast.annotation`): computed on first use from the children's
annotations and kept on the immutable node. The rewrites of :mod:`ceplab.semantics.cel.rewrite` build
new nodes over existing children, so across the whole pipeline (well-formedness, alpha-renaming,
DNF, safety, LP-normal form, lifting and placement of binary filters) every node is analysed at
most once per annotation, and each query costs O(1) after that.
"""
from __future__ import annotations

from ceplab.semantics.cel.ast import (STRATEGIES, And, Atom, FalseF, Filter, Formula, Or, Plus, Query, Sel,
                               Seq, annotation, children, nested_sels, pred_atoms, pred_vars,
                               subformulas, Cmp2)
from ceplab.semantics.errors import ParseError


class WellFormednessError(Exception):
    """A formula that is not strongly well-formed; ``var`` is the offending variable."""

    def __init__(self, var: str, message: str) -> None:
        self.var = var
        self.message = message
        super().__init__(message)


def vdef(f: Formula) -> frozenset[str]:
    """Variables defined by some ``R AS x`` in ``f`` (paper section 5.1; an annotation)."""
    r = f.__dict__.get("_vdef")
    if r is None:
        r = annotation(f, "_vdef", _vdef)
    return r


def _vdef(f: Formula) -> frozenset[str]:
    if isinstance(f, Atom):
        return frozenset((f.var,))
    out: frozenset[str] = frozenset()
    for c in children(f):
        out |= vdef(c)
    return out


def vdef_plus(f: Formula) -> frozenset[str]:
    """Variables defined in ``f`` outside the scope of every ``+`` (paper section 5.2: vdef+; an
    annotation)."""
    r = f.__dict__.get("_vdef_plus")
    if r is None:
        r = annotation(f, "_vdef_plus", _vdef_plus)
    return r


def _vdef_plus(f: Formula) -> frozenset[str]:
    if isinstance(f, Atom):
        return frozenset((f.var,))
    if isinstance(f, (Plus, FalseF)):
        return frozenset()
    out: frozenset[str] = frozenset()
    for c in children(f):
        out |= vdef_plus(c)
    return out


def bound(f: Formula) -> frozenset[str]:
    """Bound variables (paper section 5.1): OR intersects, ``;`` and AND unite, ``+`` binds none
    (an annotation)."""
    r = f.__dict__.get("_bound")
    if r is None:
        r = annotation(f, "_bound", _bound)
    return r


def _bound(f: Formula) -> frozenset[str]:
    if isinstance(f, Atom):
        return frozenset((f.var,))
    if isinstance(f, Filter):
        return bound(f.body)
    if isinstance(f, Or):
        return bound(f.left) & bound(f.right)
    if isinstance(f, (Seq, And)):
        return bound(f.left) | bound(f.right)
    return frozenset()


def var(f: Formula) -> frozenset[str]:
    """All variables mentioned in ``f``, including those in predicates."""
    out: set[str] = set()
    for g in subformulas(f):
        if isinstance(g, Atom):
            out.add(g.var)
        elif isinstance(g, Filter):
            out |= pred_vars(g.pred)
    return frozenset(out)


def is_safe(f: Formula) -> bool:
    """Safety (paper section 5.2): every ``l ; r`` has disjoint vdef+ sides (an annotation)."""
    r = f.__dict__.get("_safe")
    if r is None:
        r = annotation(f, "_safe", _is_safe)
    return r


def _is_safe(f: Formula) -> bool:
    if isinstance(f, Seq) and vdef_plus(f.left) & vdef_plus(f.right):
        return False
    return all(is_safe(c) for c in children(f))


def is_unary(f: Formula) -> bool:
    """True if every filter predicate mentions at most one variable (the CEA fragment)."""
    return all(len(pred_vars(g.pred)) <= 1 for g in subformulas(f) if isinstance(g, Filter))


def has_binary(f: Formula) -> bool:
    """True if some filter compares attributes of two different variables (an annotation)."""
    r = f.__dict__.get("_binary")
    if r is None:
        r = annotation(f, "_binary", _has_binary)
    return r


def _has_binary(f: Formula) -> bool:
    if isinstance(f, Filter) and any(isinstance(c, Cmp2) and c.var != c.var2
                                     for c in pred_atoms(f.pred)):
        return True
    return any(has_binary(c) for c in children(f))


def is_lp_normal(f: Formula) -> bool:
    """LP-normal form (paper section 5.3): every unary filter sits directly on the atom that
    defines its variable."""
    for g in subformulas(f):
        if isinstance(g, Filter):
            vs = pred_vars(g.pred)
            if len(vs) == 1:
                body = g.body
                while isinstance(body, Filter) and len(pred_vars(body.pred)) == 1:
                    body = body.body
                if not (isinstance(body, Atom) and body.var in vs):
                    return False
    return True


def check_well_formed(f: Formula) -> None:
    """Check strong well-formedness (docs/semantics/cel.md#cel-G3).

    For every sub-formula ``psi FILTER P`` and every variable x of P there must be a sub-formula
    psi' that contains the filter, has ``x in bound(psi')``, and lies inside the body of x's binder
    (the innermost enclosing ``+`` whose body has x in vdef+, or the whole formula).

    EXTENSION: the two sides of ``AND`` must define distinct variables (vdef+), so that AND is
    the product of the sides' automata (docs/semantics/cel.md#cel-G8); a shared variable is reported like a
    well-formedness error.

    Raises:
        WellFormednessError: naming the first offending variable.
    """
    def walk(g: Formula, anc: list[Formula]) -> None:
        path = anc + [g]
        if isinstance(g, And):
            shared = vdef_plus(g.left) & vdef_plus(g.right)
            if shared:
                x = sorted(shared)[0]
                raise WellFormednessError(
                    x, f"variable {x} is defined on both sides of AND; the AND extension ("
                    "docs/semantics/cel.md#cel-G8, the product of complex event automata) needs sides with distinct "
                    "variables")
        if isinstance(g, Sel):   # closed block (docs/semantics/cel.md#cel-G5): well-formed on its own
            check_well_formed(g.body)
            return
        if isinstance(g, Filter):
            for x in sorted(pred_vars(g.pred)):
                # candidates: the filter and its ancestors, up to x's binder body
                ok = False
                for i in range(len(path) - 1, -1, -1):
                    h = path[i]
                    if x in bound(h):
                        ok = True
                        break
                    if i > 0 and isinstance(path[i - 1], Plus) and x in vdef_plus(h):
                        break  # h is the body of x's binder: may not look further out
                if not ok:
                    if x not in vdef(f):
                        msg = f"variable {x} is used in a FILTER but never defined by 'R AS {x}'"
                    else:
                        msg = (f"variable {x} in FILTER is not bound where the filter applies "
                               f"(not well-formed; bind {x} in the filtered formula or outside "
                               "the iteration; docs/semantics/cel.md#cel-G3)")
                    raise WellFormednessError(x, msg)
        for c in children(g):
            walk(c, path)

    walk(f, [])


# ------------------------------------------------------------------ nested strategies (docs/semantics/cel.md#cel-G5)
def _local_vars(f: Formula) -> dict[str, Sel]:
    """Variables defined inside the nested strategies of ``f`` (at any depth) -> the outermost
    nested strategy of ``f`` containing the definition."""
    out: dict[str, Sel] = {}
    for s in nested_sels(f):
        for x in vdef(s.body) | frozenset(_local_vars(s.body)):
            out.setdefault(x, s)
    return out


def _short(s: Sel) -> str:
    text = str(s)
    return text if len(text) <= 40 else f"{s.strategy}(...)"


def check_closed(f: Formula) -> None:
    """Check that every nested strategy ``SEL(psi)`` in ``f`` is closed (docs/semantics/cel.md#cel-G5): every variable
    of a FILTER inside psi is defined inside psi (not outside it), and no FILTER outside psi
    mentions a variable defined only inside psi (psi's variables are local). Nested strategies
    inside psi are checked recursively. A formula without nested strategies always passes.

    Raises:
        WellFormednessError: naming the first offending variable.
    """
    for s in nested_sels(f):
        if s.strategy not in STRATEGIES:
            raise ValueError(f"unknown selection strategy {s.strategy!r}")
        check_closed(s.body)
        inner = vdef(s.body)
        for g in subformulas(s.body):
            if isinstance(g, Filter):
                for x in sorted(pred_vars(g.pred)):
                    if x not in inner:
                        raise WellFormednessError(
                            x, f"variable {x} in a FILTER inside the nested strategy {_short(s)} "
                            f"is not defined inside it; a nested strategy is closed (docs/semantics/cel.md "
                            f"G5, nested_strategies=compositional): it may not refer to variables "
                            f"outside it")
    local = _local_vars(f)
    if not local:
        return
    outer = vdef(f)
    for g in subformulas(f):
        if isinstance(g, Filter):
            for x in sorted(pred_vars(g.pred)):
                if x not in outer and x in local:
                    raise WellFormednessError(
                        x, f"variable {x} is defined only inside the nested strategy "
                        f"{_short(local[x])}; the variables of a nested strategy are local to it "
                        f"(docs/semantics/cel.md#cel-G5, nested_strategies=compositional) and a FILTER outside "
                        f"it may not use them")


def check_nested_strategies(q: Query, options, file: str | None = None,
                            closed: bool = True) -> None:
    """Apply ``Options.nested_strategies`` to a query (every entry point calls this).

    ``"reject"``: any nested strategy is an error. ``"compositional"``: nested strategies are
    accepted if closed (:func:`check_closed`, skipped with ``closed=False`` when the caller checks
    it itself). A query without nested strategies always passes.

    Raises:
        ParseError: a nested strategy under ``"reject"`` (with the line and column of its keyword
            when the query was parsed from text) or a nested strategy that is not closed.
        ValueError: an unknown value of ``nested_strategies``.
    """
    mode = getattr(options, "nested_strategies", "reject")
    if mode not in ("reject", "compositional"):
        raise ValueError(f"unknown nested_strategies {mode!r}; allowed: reject, compositional")
    sels = list(nested_sels(q.formula))
    if not sels:
        return
    if mode == "reject":
        s = sels[0]
        hint = ""
        if q.formula == s and q.strategy == "ALL" and q.within is not None:
            hint = (f" (to window the strategy's formula write {s.strategy}(phi WITHIN "
                    f"{q.within}))")
        line, col = s.at if s.at is not None else (None, None)
        raise ParseError(
            f"selection strategy {s.strategy} is nested inside the formula{hint}; nested "
            "strategies are not defined by the paper (docs/semantics/cel.md#cel-G5) and are rejected under "
            "nested_strategies=reject (the default): put the strategy around the whole formula, "
            "or set nested_strategies=compositional (--set nested_strategies=compositional) for "
            "the compositional reading", file, line, col)
    if closed:
        try:
            check_closed(q.formula)
        except WellFormednessError as e:
            raise ParseError(e.message, file) from None
