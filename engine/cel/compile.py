"""Compile CEL formulas to complex event automata (paper Theorem 3, Appendix C.2; note 5.2).

Pipeline: ``engine_form`` (alpha-renaming, safe rewriting of Theorem 1, LP-normal form of Theorem 2)
-> placement of non-unary filters (project EXTENSION, see below) -> the bottom-up construction with
epsilon transitions (one initial and one final state per piece) -> epsilon removal keeping the
"last transition marks" property (note G14) -> trimming.

Binary filters (EXTENSION, outside the paper's automata): a filter ``psi FILTER P`` whose predicate
is not unary on an atom is checked on the atom that binds the *last* of its variables inside psi;
the other variables' attribute values are read from registers stored when their atoms marked
(:class:`~engine.cel.automaton.Transition.store`). This is exact when the binding order is fixed by
``;`` (every atom of an earlier variable precedes every atom of the later one, and variables bound
outside psi are bound before it); other placements raise :class:`UnsupportedError`, naming the filter.
"""
from __future__ import annotations

from dataclasses import dataclass

from semantics.cel import ast as A
from semantics.cel.analysis import bound, has_binary, vdef_plus
from semantics.errors import UnsupportedError

from engine.cel.automaton import CEA, Label, Transition

Path = tuple[int, ...]


def _engine_form(f: A.Formula) -> A.Formula:
    from semantics.cel.rewrite import engine_form
    return engine_form(f)


def _node(f: A.Formula, path: Path) -> A.Formula:
    for i in path:
        f = A.children(f)[i]
    return f


def _atom_paths(f: A.Formula, path: Path = (), under_plus: bool = False):
    """(path, atom, under_plus) for every atom in ``f``."""
    if isinstance(f, A.Atom):
        yield path, f, under_plus
    for i, c in enumerate(A.children(f)):
        yield from _atom_paths(c, path + (i,), under_plus or isinstance(f, A.Plus))


def _precedes(root: A.Formula, p1: Path, p2: Path) -> bool:
    """True if the node at p1 comes before the node at p2 in every run: their lowest common
    ancestor is a ``;`` with p1 on the left and p2 on the right."""
    k = 0
    while k < min(len(p1), len(p2)) and p1[k] == p2[k]:
        k += 1
    if k == len(p1) or k == len(p2):
        return False
    lca = _node(root, p1[:k])
    return isinstance(lca, A.Seq) and p1[k] == 0 and p2[k] == 1


@dataclass
class _Placement:
    guards: dict[Path, list[A.Pred]]
    registers: dict[str, set[str]]


def _is_lp_filter(f: A.Filter) -> bool:
    vs = A.pred_vars(f.pred)
    body = f.body
    while isinstance(body, A.Filter) and _is_lp_filter(body):
        body = body.body
    return isinstance(body, A.Atom) and vs <= {body.var}


def _place(root: A.Formula) -> _Placement:
    guards: dict[Path, list[A.Pred]] = {}
    regs: dict[str, set[str]] = {}
    register_attrs: dict[str, set[str]] = {}

    def need(var: str, attr: str) -> None:
        register_attrs.setdefault(var, set()).add(attr)

    def walk(f: A.Formula, path: Path) -> None:
        if isinstance(f, A.Filter) and not _is_lp_filter(f):
            place_filter(f, path)
        for i, c in enumerate(A.children(f)):
            walk(c, path + (i,))

    def place_filter(f: A.Filter, path: Path) -> None:
        vs = A.pred_vars(f.pred)
        internal = {v for v in vs if v in vdef_plus(f.body)}
        outer = vs - internal
        for v in outer:
            if not _bound_before(root, path, v):
                raise UnsupportedError(
                    f"filter {f.pred} needs variable {v} before it is bound; the engine's register "
                    "extension checks binary filters only when the earlier variables are bound "
                    "earlier by ';' (use the oracle)")
        atoms = [(p, a) for p, a, _under in _atom_paths(f.body, path + (0,))]
        top_atoms = [(p, a) for p, a, under in _atom_paths(f.body, path + (0,))
                     if not _under_plus_between(root, path + (0,), p)]
        if not internal:
            targets = [p for p, _ in atoms]
            last = None
        else:
            last = None
            for y in internal:
                ys = [p for p, a in top_atoms if a.var == y]
                ok = all(_precedes(root, px, py) for x in internal if x != y
                         for px in (p for p, a in top_atoms if a.var == x) for py in ys)
                if ok:
                    last = y
                    break
            if last is None:
                raise UnsupportedError(
                    f"filter {f.pred}: the binding order of {', '.join(sorted(internal))} is not "
                    "fixed by ';', so the engine's register extension cannot check it (use the "
                    "oracle)")
            targets = [p for p, a in top_atoms if a.var == last]
        for p in targets:
            guards.setdefault(p, []).append(f.pred)
        for c in A.pred_atoms(f.pred):
            if c.var != last:
                need(c.var, c.attr)
            if isinstance(c, A.Cmp2) and c.var2 != last:
                need(c.var2, c.attr2)

    walk(root, ())
    for v, attrs in register_attrs.items():
        regs[v] = attrs
    return _Placement(guards, regs)


def _under_plus_between(root: A.Formula, top: Path, p: Path) -> bool:
    f = _node(root, top)
    for i in p[len(top):]:
        if isinstance(f, A.Plus):
            return True
        f = A.children(f)[i]
    return False


def _bound_before(root: A.Formula, path: Path, v: str) -> bool:
    """Is variable v bound by a sub-formula that precedes the node at ``path`` via ';'?"""
    for k in range(len(path) - 1, -1, -1):
        anc = _node(root, path[:k])
        child = path[k]
        if isinstance(anc, A.Seq):
            if child == 1 and v in bound(anc.left):
                return True
            if child == 0 and v in vdef_plus(anc.right):
                return False
        elif isinstance(anc, A.And):
            other = anc.right if child == 0 else anc.left
            if v in vdef_plus(other):
                return False
        if v in bound(anc):
            return False
    return False


class _Builder:
    def __init__(self, placement: _Placement) -> None:
        self.n = 0
        self.trans: list[tuple[int, Label | None, bool, int, str | None]] = []  # label None = epsilon
        self.pl = placement

    def state(self) -> int:
        self.n += 1
        return self.n - 1

    def eps(self, p: int, q: int) -> None:
        self.trans.append((p, None, False, q, None))

    def build(self, f: A.Formula, path: Path) -> tuple[int, int]:
        if isinstance(f, A.Filter) and _is_lp_filter(f):
            preds = []
            g = f
            while isinstance(g, A.Filter):
                preds.append(g.pred)
                g = g.body
                path = path + (0,)
            return self.atom(g, path, preds[::-1])
        if isinstance(f, A.Filter):
            return self.build(f.body, path + (0,))
        if isinstance(f, A.Atom):
            return self.atom(f, path, [])
        if isinstance(f, A.Or):
            i, o = self.state(), self.state()
            for k, c in enumerate((f.left, f.right)):
                ci, co = self.build(c, path + (k,))
                self.eps(i, ci)
                self.eps(co, o)
            return i, o
        if isinstance(f, A.Seq):
            li, lo = self.build(f.left, path + (0,))
            ri, ro = self.build(f.right, path + (1,))
            self.eps(lo, ri)
            return li, ro
        if isinstance(f, A.Plus):
            bi, bo = self.build(f.body, path + (0,))
            self.eps(bo, bi)
            return bi, bo
        if isinstance(f, A.And):
            return self.product(f, path)
        if isinstance(f, A.FalseF):
            return self.state(), self.state()
        raise TypeError(f)

    def atom(self, a: A.Atom, path: Path, preds: list[A.Pred]) -> tuple[int, int]:
        preds = preds + self.pl.guards.get(path, [])
        pred: A.Pred = A.PTrue()
        for p in preds:
            pred = p if isinstance(pred, A.PTrue) else A.PAnd(pred, p)
        q1, q2 = self.state(), self.state()
        self.trans.append((q1, Label(), False, q1, None))
        store = a.var if a.var in self.pl.registers else None
        self.trans.append((q1, Label(a.rel, pred, a.var), True, q2, store))
        return q1, q2

    def product(self, f: A.And, path: Path) -> tuple[int, int]:
        if vdef_plus(f.left) & vdef_plus(f.right):
            raise UnsupportedError(
                f"AND whose sides both define {', '.join(sorted(vdef_plus(f.left) & vdef_plus(f.right)))}:"
                " the product automaton cannot force one position per variable (use the oracle)")
        sides = []
        for k, c in enumerate((f.left, f.right)):
            sub = _Builder(self.pl)
            ci, co = sub.build(c, path + (k,))
            sides.append(_eps_free(sub.n, sub.trans, ci, {co}))
        (n1, t1, i1, f1), (n2, t2, i2, f2) = sides
        ids: dict[tuple[int, int], int] = {}

        def sid(p: int, q: int) -> int:
            if (p, q) not in ids:
                ids[(p, q)] = self.state()
            return ids[(p, q)]

        start = sid(i1, i2)
        todo = [(i1, i2)]
        seen = {(i1, i2)}
        out = self.state()
        while todo:
            p, q = todo.pop()
            for (a, la, ma, b, sa) in t1:
                if a != p:
                    continue
                for (c, lc, mc, d, sc) in t2:
                    if c != q or mc != ma:
                        continue
                    lab = _conj(la, lc)
                    if lab is None:
                        continue
                    if (b, d) not in seen:
                        seen.add((b, d))
                        todo.append((b, d))
                    self.trans.append((sid(p, q), lab, ma, sid(b, d), sa or sc))
            if p in f1 and q in f2:
                self.eps(sid(p, q), out)
        return start, out


def _conj(a: Label, b: Label) -> Label | None:
    if a.rel is not None and b.rel is not None and a.rel != b.rel:
        return None
    rel = a.rel if a.rel is not None else b.rel
    preds = [p for p in (a.pred, b.pred) if not isinstance(p, A.PTrue)]
    pred: A.Pred = A.PTrue() if not preds else preds[0] if len(preds) == 1 else A.PAnd(*preds)
    var = a.var or b.var
    if a.var and b.var and a.var != b.var:
        # the same event is bound to both variables: rename b's variable in its predicate
        pred = A.PAnd(a.pred, _rename(b.pred, b.var, a.var)) if preds else A.PTrue()
    return Label(rel, pred, var)


def _rename(p: A.Pred, old: str, new: str) -> A.Pred:
    if isinstance(p, A.Cmp):
        return A.Cmp(new if p.var == old else p.var, p.attr, p.op, p.value)
    if isinstance(p, A.Cmp2):
        return A.Cmp2(new if p.var == old else p.var, p.attr, p.op,
                      new if p.var2 == old else p.var2, p.attr2)
    if isinstance(p, (A.PAnd, A.POr)):
        return type(p)(_rename(p.left, old, new), _rename(p.right, old, new))
    if isinstance(p, A.PNot):
        return A.PNot(_rename(p.arg, old, new))
    return p


def _eps_free(n, trans, init, finals):
    """Epsilon removal: Delta' = {(p,P,m,q) | p'' in eps-closure(p), (p'',P,m,q) in Delta},
    F' = {p | eps-closure(p) meets F} (note 5.2). Returns (n, transitions, initial, finals)."""
    eps: dict[int, list[int]] = {}
    for (p, lab, _m, q, _s) in trans:
        if lab is None:
            eps.setdefault(p, []).append(q)
    closure: dict[int, set[int]] = {}
    for p in range(n):
        seen = {p}
        stack = [p]
        while stack:
            x = stack.pop()
            for y in eps.get(x, ()):
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        closure[p] = seen
    by_src: dict[int, list] = {}
    for t in trans:
        if t[1] is not None:
            by_src.setdefault(t[0], []).append(t)
    out = []
    seen_t = set()
    for p in range(n):
        for pp in sorted(closure[p]):
            for (_x, lab, m, q, s) in by_src.get(pp, ()):
                key = (p, lab, m, q, s)
                if key not in seen_t:
                    seen_t.add(key)
                    out.append(key)
    fin = {p for p in range(n) if closure[p] & set(finals)}
    return n, out, init, fin


def _trim(n, trans, init, finals) -> CEA:
    fwd: dict[int, set[int]] = {}
    bwd: dict[int, set[int]] = {}
    for (p, _l, _m, q, _s) in trans:
        fwd.setdefault(p, set()).add(q)
        bwd.setdefault(q, set()).add(p)

    def reach(start, adj):
        seen = set(start)
        stack = list(start)
        while stack:
            x = stack.pop()
            for y in adj.get(x, ()):
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        return seen

    useful = reach({init}, fwd) & reach(set(finals), bwd)
    useful.add(init)
    order = sorted(useful, key=lambda q: (q != init, q))
    ren = {q: i for i, q in enumerate(order)}
    ts = [Transition(ren[p], l, m, ren[q], s) for (p, l, m, q, s) in trans
          if p in useful and q in useful]
    return CEA(len(order), ren[init], frozenset(ren[q] for q in finals if q in useful), ts)


def compile_formula(f: A.Formula, normalise: bool = True) -> CEA:
    """Compile a (strongly well-formed) CEL formula into an equivalent CEA.

    Args:
        f: the formula.
        normalise: apply ``semantics.cel.rewrite.engine_form`` first (alpha-renaming, Theorem 1
            safe rewriting, Theorem 2 LP-normal form). Pass False only for formulas that are
            already safe and LP-normal.

    Returns:
        A trimmed, epsilon-free CEA whose final states are entered only by marking transitions;
        ``registers`` is non-empty only when binary filters are present (EXTENSION).

    Raises:
        UnsupportedError: a binary filter or AND outside the register/product extension.
    """
    g = _engine_form(f) if normalise else f
    placement = _place(g)
    b = _Builder(placement)
    i, o = b.build(g, ())
    n, trans, init, fin = _eps_free(b.n, b.trans, i, {o})
    cea = _trim(n, trans, init, fin)
    # registers: variable -> attributes, fixed order
    cea.registers = {v: tuple(sorted(attrs)) for v, attrs in sorted(placement.registers.items())}
    assert all(t.mark for t in cea.transitions if t.dst in cea.finals), "G14: finals entered by ◦"
    return cea


def compile_query(q: A.Query) -> CEA:
    """Compile the formula of a query (strategy and window are handled by the evaluators)."""
    return compile_formula(q.formula)


__all__ = ["compile_formula", "compile_query", "has_binary"]
