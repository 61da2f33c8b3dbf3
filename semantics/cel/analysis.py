"""Syntactic analysis of CEL formulas (paper section 5, Appendix B; note cel.md section 4).

``vdef``, ``vdef_plus`` and ``bound`` follow the paper's definitions; ``check_well_formed`` checks the
note's *strong* well-formedness (G3), which the project requires of every query. Safety is
``vdef+(l) & vdef+(r) == {}`` for every ``l ; r``.
"""
from __future__ import annotations

from functools import lru_cache

from semantics.cel.ast import (And, Atom, FalseF, Filter, Formula, Or, Plus, Seq, children,
                               pred_atoms, pred_vars, subformulas, Cmp2)


class WellFormednessError(Exception):
    """A formula that is not strongly well-formed; ``var`` is the offending variable."""

    def __init__(self, var: str, message: str) -> None:
        self.var = var
        self.message = message
        super().__init__(message)


@lru_cache(maxsize=4096)
def vdef(f: Formula) -> frozenset[str]:
    """Variables defined by some ``R AS x`` in ``f``."""
    if isinstance(f, Atom):
        return frozenset((f.var,))
    out: frozenset[str] = frozenset()
    for c in children(f):
        out |= vdef(c)
    return out


@lru_cache(maxsize=4096)
def vdef_plus(f: Formula) -> frozenset[str]:
    """Variables defined in ``f`` outside the scope of every ``+`` (paper: vdef+)."""
    if isinstance(f, Atom):
        return frozenset((f.var,))
    if isinstance(f, (Plus, FalseF)):
        return frozenset()
    out: frozenset[str] = frozenset()
    for c in children(f):
        out |= vdef_plus(c)
    return out


@lru_cache(maxsize=4096)
def bound(f: Formula) -> frozenset[str]:
    """Bound variables (paper section 5.1): OR intersects, ``;`` and AND unite, ``+`` binds none."""
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
    """Safety (paper section 5.2): every ``l ; r`` has disjoint vdef+ sides."""
    return all(not (vdef_plus(g.left) & vdef_plus(g.right))
               for g in subformulas(f) if isinstance(g, Seq))


def is_unary(f: Formula) -> bool:
    """True if every filter predicate mentions at most one variable (the CEA fragment)."""
    return all(len(pred_vars(g.pred)) <= 1 for g in subformulas(f) if isinstance(g, Filter))


def has_binary(f: Formula) -> bool:
    """True if some filter compares attributes of two different variables."""
    return any(isinstance(c, Cmp2) and c.var != c.var2
               for g in subformulas(f) if isinstance(g, Filter) for c in pred_atoms(g.pred))


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
    """Check strong well-formedness (note cel.md G3).

    For every sub-formula ``psi FILTER P`` and every variable x of P there must be a sub-formula
    psi' that contains the filter, has ``x in bound(psi')``, and lies inside the body of x's binder
    (the innermost enclosing ``+`` whose body has x in vdef+, or the whole formula).

    EXTENSION: the two sides of ``AND`` must define distinct variables (vdef+), so that AND is
    the product of the sides' automata (note G8); a shared variable is reported like a
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
                    x, f"variable {x} is defined on both sides of AND; the AND extension (note "
                    "cel.md G8, the product of complex event automata) needs sides with distinct "
                    "variables")
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
                               "the iteration; note cel.md G3)")
                    raise WellFormednessError(x, msg)
        for c in children(g):
            walk(c, path)

    walk(f, [])
