"""Compile CEL formulas to complex event automata (paper Theorem 3, Appendix C.2; docs/semantics/cel.md#cel-5.2).

Pipeline: ``engine_form`` (alpha-renaming, safe rewriting of Theorem 1, LP-normal form of Theorem 2)
-> lifting of non-unary filters (pop-up, below) -> placement of non-unary filters (project
EXTENSION, see below) -> the bottom-up construction with epsilon transitions (one initial and one
final state per piece) -> epsilon removal keeping the "last transition marks" property (docs/semantics/cel.md#cel-G14)
-> trimming -> register assignment.

Binary filters (EXTENSION, outside the paper's automata): a filter ``psi FILTER P`` whose predicate
is not unary on an atom is checked on the atom that binds the *last* of its variables inside psi;
the other variables' attribute values are read from registers stored when their atoms marked
(:class:`~ceplab.engine.cel.automaton.Transition.store`). This is exact when the binding order is fixed by
``;`` (every atom of an earlier variable precedes every atom of the later one, and variables bound
outside psi are bound before it).

Lifting (the pop-up step of Theorem 2, docs/semantics/cel.md#cel-4.3, applied to non-unary predicates): a filter that
needs a variable bound *after* it (``(A AS x FILTER x.v < y.v) ; B AS y``) or on the other side of
an ``AND`` is moved up. For a fixed valuation nu, ``P(nu)`` is simply true or false, so for the
lowest ancestor psi' that binds all of P's variables (bound in psi' or bound before psi' by ``;``)
``psi' == (psi'_T FILTER P) OR (psi'_F FILTER NOT P)``, where psi'_T has the filter node replaced by
its body and psi'_F has it replaced by ``FalseF`` (then simplified). This is valid as long as no
``+`` between psi' and the filter rebinds one of P's variables (the iteration would give them
other values); such filters, and filters with no such ancestor, raise :class:`UnsupportedError`,
and :func:`ceplab.engine.cel.evaluator` evaluates the query by binding runs instead
(:mod:`ceplab.engine.cel.runs`, outside Theorem 3's constant-time guarantee;
docs/semantics/cel.md#cel-10.4).
Each pop-up may double psi'; the result is capped at :data:`ceplab.semantics.cel.rewrite.MAX_NODES`.

Filters over both sides of an ``AND`` (EXTENSION): the order in which the sides' atoms mark is not
fixed by the formula, so such a filter is checked on the product automaton instead: on every
marking product transition that binds one of its variables while all the others are bound on every
path from the product's initial state (the "must-bound" analysis); if some path to a final state
of the product avoids all such transitions, the binding order really is open and the filter is
unsupported.

Registers of variables bound at the same product transition (``(A AS w AND A AS x)`` binds both to
one event) share one register: every label reading ``x`` reads the representative ``w`` instead.
This is exact when every transition binding ``x`` also binds ``w`` (checked; otherwise
:class:`UnsupportedError`): then ``w`` holds ``x``'s event from ``x``'s binding until the end of the
scope instance, since a safe formula binds each variable at most once per scope instance.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.analysis import bound, has_binary, vdef_plus
from ceplab.semantics.errors import UnsupportedError

from ceplab.engine.cel.automaton import CEA, Label, Transition

Path = tuple[int, ...]
_NOBIND: frozenset[str] = frozenset()


def _engine_form(f: A.Formula) -> A.Formula:
    from ceplab.semantics.cel.rewrite import engine_form
    return engine_form(f)


def _node(f: A.Formula, path: Path) -> A.Formula:
    for i in path:
        f = A.children(f)[i]
    return f


def _replace(f: A.Formula, path: Path, new: A.Formula) -> A.Formula:
    """``f`` with the node at ``path`` replaced by ``new``."""
    if not path:
        return new
    i, rest = path[0], path[1:]
    if isinstance(f, A.Filter):
        return A.Filter(_replace(f.body, rest, new), f.pred)
    if isinstance(f, A.Plus):
        return A.Plus(_replace(f.body, rest, new))
    if isinstance(f, (A.Or, A.Seq, A.And)):
        if i == 0:
            return type(f)(_replace(f.left, rest, new), f.right)
        return type(f)(f.left, _replace(f.right, rest, new))
    raise TypeError(f)


def _atom_paths(f: A.Formula, path: Path = (), under_plus: bool = False):
    """(path, atom, under_plus) for every atom in ``f``."""
    if isinstance(f, A.Atom):
        yield path, f, under_plus
    for i, c in enumerate(A.children(f)):
        yield from _atom_paths(c, path + (i,), under_plus or isinstance(f, A.Plus))


@dataclass
class _Placement:
    guards: dict[Path, list[A.Pred]]
    registers: dict[str, set[str]]
    # EXTENSION: filters checked on the product automaton of the AND at this path:
    # (predicate, variables of the predicate bound inside the AND)
    deferred: dict[Path, list[tuple[A.Pred, frozenset[str]]]] = field(default_factory=dict)


def _is_lp_filter(f: A.Filter) -> bool:
    vs = A.pred_vars(f.pred)
    body = f.body
    while isinstance(body, A.Filter) and _is_lp_filter(body):
        body = body.body
    return isinstance(body, A.Atom) and vs <= {body.var}


# ================================================================ lifting (pop-up, Theorem 2)
def _unplaceable(root: A.Formula):
    """First (pre-order) non-LP filter with a variable that is neither defined in its body nor
    bound before it by ';': ``(path, filter)``, or None."""
    stack: list[tuple[A.Formula, Path]] = [(root, ())]
    while stack:
        g, path = stack.pop()
        if isinstance(g, A.Filter) and not _is_lp_filter(g):
            vs = A.pred_vars(g.pred)
            outer = vs - vdef_plus(g.body)
            if any(not _bound_before(root, path, v) for v in outer):
                return path, g
        cs = A.children(g)
        for i in range(len(cs) - 1, -1, -1):
            stack.append((cs[i], path + (i,)))
    return None


def _lift(root: A.Formula, max_nodes: int | None = None) -> A.Formula:
    """Pop every non-unary filter that needs a variable bound after it (or on the other side of an
    AND) up to the lowest ancestor psi' that binds all of its variables (see the module
    docstring): ``psi' -> (psi'_T FILTER P) OR (psi'_F FILTER NOT P)``.

    Raises:
        UnsupportedError: psi' lies beyond a ``+`` that rebinds one of P's variables, no ancestor
            binds them all, or the result exceeds ``max_nodes`` (default ``rewrite.MAX_NODES``).
    """
    from ceplab.semantics.cel.rewrite import MAX_NODES, _or_all, simplify
    limit = MAX_NODES if max_nodes is None else max_nodes
    g = root
    while True:
        found = _unplaceable(g)
        if found is None:
            return g
        path, flt = found
        vs = A.pred_vars(flt.pred)
        target: Path | None = None
        for k in range(len(path) - 1, -1, -1):
            anc = _node(g, path[:k])
            child = _node(g, path[:k + 1])
            if isinstance(anc, A.Plus) and vs & vdef_plus(child):
                rebound = ", ".join(sorted(vs & vdef_plus(child)))
                raise UnsupportedError(
                    f"filter {flt.pred} needs a variable bound after it (or on the other side of "
                    f"an AND) outside the iteration that rebinds {rebound}; the engine's register "
                    "extension cannot compare an iteration's values with later events (the engine runs it "
                    "on binding runs)")
            if all(v in bound(anc) or _bound_before(g, path[:k], v) for v in vs):
                target = path[:k]
                break
        if target is None:
            raise UnsupportedError(
                f"filter {flt.pred}: no enclosing sub-formula binds all of "
                f"{', '.join(sorted(vs))} in every run (or before it by ';'), so the engine's "
                "register extension cannot check it (the engine runs it on binding runs)")
        anc = _node(g, target)
        rel = path[len(target):]
        pos = simplify(A.Filter(_replace(anc, rel, flt.body), flt.pred))
        neg = simplify(A.Filter(_replace(anc, rel, A.FalseF()), A.PNot(flt.pred)))
        g = simplify(_replace(g, target, _or_all([pos, neg])))
        n = A.size(g)
        if n > limit:
            raise UnsupportedError(
                f"lifting binary filters (pop-up) would give {n} formula nodes, more than the "
                f"limit of {limit} (each pop-up doubles a sub-formula; the engine runs it on "
                "binding runs)")


# ================================================================ placement
def _place(root: A.Formula) -> _Placement:
    """Decide where each non-LP filter is checked (EXTENSION for binary filters).

    A filter ``psi FILTER P`` whose variables outside psi are all bound before it by ';' (after
    :func:`_lift`) is moved down through psi along the variables of P that psi binds (``vs``):
    through a FILTER to its body; through ``l ; r`` into ``r`` when ``l`` binds (``bound``) the
    variables of ``vs`` it defines, or into the only side defining variables of ``vs``; into both
    branches of an OR (the branches are alternatives); into the only side of an AND defining
    variables of ``vs``, and if both sides do, onto the AND's product automaton
    (``_Builder._guard_product``). At an atom, P becomes a guard of the atom's label; every other
    variable of P is read from its register. A filter with no variable bound inside psi is
    checked on every atom of psi (every run through psi marks one; all read the same registers).
    """
    guards: dict[Path, list[A.Pred]] = {}
    deferred: dict[Path, list[tuple[A.Pred, frozenset[str]]]] = {}
    register_attrs: dict[str, set[str]] = {}

    def need(var: str, attr: str) -> None:
        register_attrs.setdefault(var, set()).add(attr)

    def need_all(pred: A.Pred, current: frozenset[str]) -> None:
        for c in A.pred_atoms(pred):
            if c.var not in current:
                need(c.var, c.attr)
            if isinstance(c, A.Cmp2) and c.var2 not in current:
                need(c.var2, c.attr2)

    def walk(f: A.Formula, path: Path) -> None:
        if isinstance(f, A.Filter) and not _is_lp_filter(f):
            place_filter(f, path)
        for i, c in enumerate(A.children(f)):
            walk(c, path + (i,))

    def place_filter(f: A.Filter, path: Path) -> None:
        vs = A.pred_vars(f.pred)
        internal = frozenset(v for v in vs if v in vdef_plus(f.body))
        for v in sorted(vs - internal):
            if not _bound_before(root, path, v):
                raise UnsupportedError(
                    f"filter {f.pred} needs variable {v} before it is bound; the engine's register "
                    "extension checks binary filters only when the earlier variables are bound "
                    "earlier by ';' (the engine runs it on binding runs)")
        if not internal:
            for p, _a, _under in _atom_paths(f.body, path + (0,)):
                guards.setdefault(p, []).append(f.pred)
            need_all(f.pred, frozenset())
            return
        descend(f, path + (0,), internal)

    def descend(f: A.Filter, p: Path, vs: frozenset[str]) -> None:
        n = _node(root, p)
        if not vs <= bound(n):
            raise UnsupportedError(
                f"filter {f.pred}: variable(s) {', '.join(sorted(vs - bound(n)))} are not bound "
                "in every run of the filtered formula, so the engine's register extension cannot "
                "check it (the engine runs it on binding runs)")
        if isinstance(n, A.Filter):
            descend(f, p + (0,), vs)
        elif isinstance(n, A.Atom):
            guards.setdefault(p, []).append(f.pred)
            need_all(f.pred, frozenset((n.var,)))
        elif isinstance(n, A.Or):
            descend(f, p + (0,), vs)
            descend(f, p + (1,), vs)
        elif isinstance(n, (A.Seq, A.And)):
            lv, rv = vs & vdef_plus(n.left), vs & vdef_plus(n.right)
            if lv and rv:
                if isinstance(n, A.And):
                    deferred.setdefault(p, []).append((f.pred, vs))
                    need_all(f.pred, vs)   # the product decides which of vs it reads
                elif lv <= bound(n.left):
                    descend(f, p + (1,), rv)   # lv is bound before the right side
                else:
                    raise UnsupportedError(
                        f"filter {f.pred}: variable(s) {', '.join(sorted(lv - bound(n.left)))} "
                        "are not bound in every run of the left side of ';' (the engine runs it on binding runs)")
            elif rv:
                descend(f, p + (1,), rv)
            else:
                descend(f, p + (0,), lv)
        else:  # Plus or FalseF: vs would be empty (vdef+ of a + is empty)
            raise UnsupportedError(f"filter {f.pred}: cannot place it on {n}")

    walk(root, ())
    return _Placement(guards, register_attrs, deferred)


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


# ================================================================ construction
# Internal transitions are tuples ``(src, label or None for epsilon, mark, dst, binds)`` where
# ``binds`` is the set of variables the (marking) transition binds to the current event; the
# register each transition stores is decided at the end (:func:`_assign_registers`).
class _Builder:
    def __init__(self, placement: _Placement) -> None:
        self.n = 0
        self.trans: list[tuple[int, Label | None, bool, int, frozenset[str]]] = []
        self.pl = placement

    def state(self) -> int:
        self.n += 1
        return self.n - 1

    def eps(self, p: int, q: int) -> None:
        self.trans.append((p, None, False, q, _NOBIND))

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
        self.trans.append((q1, Label(), False, q1, _NOBIND))
        self.trans.append((q1, Label(a.rel, pred, a.var), True, q2, frozenset((a.var,))))
        return q1, q2

    def product(self, f: A.And, path: Path) -> tuple[int, int]:
        if vdef_plus(f.left) & vdef_plus(f.right):
            raise UnsupportedError(
                f"AND whose sides both define {', '.join(sorted(vdef_plus(f.left) & vdef_plus(f.right)))}:"
                " the product automaton cannot force one position per variable (the engine runs it on binding runs)")
        sides = []
        for k, c in enumerate((f.left, f.right)):
            sub = _Builder(self.pl)
            ci, co = sub.build(c, path + (k,))
            sides.append(_eps_free(sub.n, sub.trans, ci, {co}))
        (_n1, t1, i1, f1), (_n2, t2, i2, f2) = sides
        by1: dict[int, list] = {}
        for t in t1:
            by1.setdefault(t[0], []).append(t)
        by2: dict[int, list] = {}
        for t in t2:
            by2.setdefault(t[0], []).append(t)
        start = (i1, i2)
        todo = [start]
        seen = {start}
        ptrans: list[list] = []   # [src pair, label, mark, dst pair, binds]
        while todo:
            p, q = todo.pop()
            for (_a, la, ma, b, sa) in by1.get(p, ()):
                for (_c, lc, mc, d, sc) in by2.get(q, ()):
                    if mc != ma:
                        continue
                    binds = sa | sc
                    lab = _conj(la, lc, binds)
                    if lab is None:
                        continue
                    if (b, d) not in seen:
                        seen.add((b, d))
                        todo.append((b, d))
                    ptrans.append([(p, q), lab, ma, (b, d), binds])
        finals = {s for s in seen if s[0] in f1 and s[1] in f2}
        for pred, inside in self.pl.deferred.get(path, []):
            self._guard_product(f, pred, inside, start, ptrans, finals)
        ids: dict[tuple[int, int], int] = {}

        def sid(s: tuple[int, int]) -> int:
            if s not in ids:
                ids[s] = self.state()
            return ids[s]

        i = sid(start)
        out = self.state()
        for (s, lab, m, d, binds) in ptrans:
            self.trans.append((sid(s), lab, m, sid(d), binds))
        for s in sorted(finals):
            self.eps(sid(s), out)
        return i, out

    def _guard_product(self, f: A.And, pred: A.Pred, inside: frozenset[str], start,
                       ptrans: list[list], finals: set) -> None:
        """Check ``pred`` (variables ``inside`` bound in this AND, the others in registers) on
        every marking product transition binding one of ``inside`` when all the others are
        bound on every path from the product's initial state to it."""
        must: dict = {start: frozenset()}
        changed = True
        while changed:
            changed = False
            for (s, _lab, _m, d, binds) in ptrans:
                if s not in must or d == start:
                    continue
                val = must[s] | binds
                new = val if d not in must else must[d] & val
                if d not in must or new != must[d]:
                    must[d] = new
                    changed = True
        guarded = set()
        for k, (s, lab, m, d, binds) in enumerate(ptrans):
            if not m or not (binds & inside) or s not in must:
                continue
            if not inside <= must[s] | binds:
                continue
            guarded.add(k)
            cur = lab.var
            p = pred
            for v in sorted(binds):
                if v != cur:
                    p = _rename(p, v, cur)
            for c in A.pred_atoms(p):
                for var, attr in ((c.var, c.attr),) + (((c.var2, c.attr2),)
                                                      if isinstance(c, A.Cmp2) else ()):
                    if var != cur:
                        self.pl.registers.setdefault(var, set()).add(attr)
            newp = p if isinstance(lab.pred, A.PTrue) else A.PAnd(lab.pred, p)
            ptrans[k][1] = Label(lab.rel, newp, cur)
        # every accepting run of the product must pass a guarded transition
        reach = {start}
        stack = [start]
        adj: dict = {}
        for k, (s, _lab, _m, d, _b) in enumerate(ptrans):
            if k not in guarded:
                adj.setdefault(s, []).append(d)
        while stack:
            x = stack.pop()
            for y in adj.get(x, ()):
                if y not in reach:
                    reach.add(y)
                    stack.append(y)
        if reach & finals:
            raise UnsupportedError(
                f"filter {pred} over both sides of an AND: the order in which the sides bind "
                f"{', '.join(sorted(inside))} is not fixed, so the engine's register extension "
                "cannot check it (the engine runs it on binding runs)")


def _conj(a: Label, b: Label, binds: frozenset[str] = _NOBIND) -> Label | None:
    """The label of a product transition: both labels hold. Every variable in ``binds`` (bound
    to the current event by either side) is read from the current event, named ``var``."""
    if a.rel is not None and b.rel is not None and a.rel != b.rel:
        return None
    rel = a.rel if a.rel is not None else b.rel
    var = a.var or b.var
    preds = []
    for p in (a.pred, b.pred):
        if isinstance(p, A.PTrue):
            continue
        for v in sorted(binds | {x for x in (a.var, b.var) if x}):
            if v != var:
                p = _rename(p, v, var)
        preds.append(p)
    pred: A.Pred = A.PTrue() if not preds else preds[0] if len(preds) == 1 else A.PAnd(*preds)
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
    F' = {p | eps-closure(p) meets F} (docs/semantics/cel.md#cel-5.2). Returns (n, transitions, initial, finals)."""
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


def _trim(n, trans, init, finals):
    """Keep the states reachable from ``init`` and co-reachable to ``finals``, renumbered with
    ``init`` first. Returns ``(n, transitions, initial, finals)``."""
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
    ts = [(ren[p], l, m, ren[q], s) for (p, l, m, q, s) in trans if p in useful and q in useful]
    return len(order), ts, ren[init], frozenset(ren[q] for q in finals if q in useful)


MAX_SPLIT_STATES = 20_000
"""Size guard for the register-location state split of :func:`_assign_registers`."""

_LOST = "\u22a5lost"   # a register name nothing stores: the variable's value was overwritten


def _assign_registers(n, trans, init, finals, needed: dict[str, set[str]]):
    """Decide what each marking transition stores (EXTENSION for binary filters).

    ``Transition.store`` holds one variable, but a product transition may bind the current event
    to several register variables (``(A AS w AND A AS x)``). Such a transition stores the event
    once, under the smallest of their names; afterwards that register holds the value of all of
    them. Which register holds a variable's value therefore depends on the path, so the automaton
    tracks it: states become ``(q, loc)`` where ``loc`` maps each register variable bound so far to
    the register holding its value (``loc`` is a function of the path, so runs correspond one to
    one and the complex events are unchanged), and every label reads ``loc[v]`` for ``v``.
    Without such transitions ``loc`` is the identity and the automaton is unchanged.

    Returns:
        ``(n, transitions as Transition, initial, finals, registers)``.

    Raises:
        UnsupportedError: a label would read a variable whose register was overwritten (by
            construction never for compiled formulas), or the split exceeds
            :data:`MAX_SPLIT_STATES` states.
    """
    regvars = set(needed)

    def store_of(m: bool, binds: frozenset[str]) -> str | None:
        ks = sorted(binds & regvars) if m else []
        return ks[0] if ks else None

    registers: dict[str, set[str]] = {}
    for (_p, _l, m, _q, binds) in trans:
        r = store_of(m, binds)
        if r is not None:
            for v in binds & regvars:
                registers.setdefault(r, set()).update(needed[v])
    if all(len(binds & regvars) <= 1 for (_p, _l, m, _q, binds) in trans if m):
        ts = [Transition(p, lab, m, q, store_of(m, binds)) for (p, lab, m, q, binds) in trans]
        return n, ts, init, finals, {v: tuple(sorted(a)) for v, a in sorted(registers.items())}

    by_src: dict[int, list] = {}
    for t in trans:
        by_src.setdefault(t[0], []).append(t)
    start = (init, frozenset())
    ids = {start: 0}
    order = [start]
    out: list[Transition] = []
    k = 0
    while k < len(order):
        q, loc = order[k]
        k += 1
        where = dict(loc)
        for (_p, lab, m, d, binds) in by_src.get(q, ()):
            reads = sorted({v for v, _a in lab.register_refs()})
            targets = {v: where.get(v, v) for v in reads}
            if any(r == _LOST for r in targets.values()):
                lost = sorted(v for v, r in targets.items() if r == _LOST)
                raise UnsupportedError(
                    f"the register of {', '.join(lost)} would be read after another variable "
                    "overwrote it (the engine runs it on binding runs)")
            if any(r != v for v, r in targets.items()):
                pred, cur = lab.pred, lab.var
                if cur is not None and cur in targets.values():
                    fresh = cur + "'"
                    while fresh in regvars or fresh in targets.values():
                        fresh += "'"
                    pred, cur = _rename(pred, cur, fresh), fresh
                tmp = {v: f"\u0000{v}" for v in targets}   # simultaneous renaming
                for v in reads:
                    pred = _rename(pred, v, tmp[v])
                for v in reads:
                    pred = _rename(pred, tmp[v], targets[v])
                lab = Label(lab.rel, pred, cur)
            r = store_of(m, binds)
            new = where
            if r is not None:
                new = {v: (_LOST if h == r else h) for v, h in where.items()}
                for v in binds & regvars:
                    new[v] = r
            tgt = (d, frozenset(new.items()))
            if tgt not in ids:
                ids[tgt] = len(order)
                order.append(tgt)
                if len(order) > MAX_SPLIT_STATES:
                    raise UnsupportedError(
                        f"tracking shared registers would need more than {MAX_SPLIT_STATES} "
                        "automaton states (the engine runs it on binding runs)")
            out.append(Transition(ids[(q, loc)], lab, m, ids[tgt], r))
    fin = frozenset(i for (q, _loc), i in ids.items() if q in finals)
    return (len(order), out, 0, fin,
            {v: tuple(sorted(a)) for v, a in sorted(registers.items())})


def compile_formula(f: A.Formula, normalise: bool = True) -> CEA:
    """Compile a (strongly well-formed) CEL formula into an equivalent CEA.

    Args:
        f: the formula.
        normalise: apply ``ceplab.semantics.cel.rewrite.engine_form`` first (alpha-renaming, Theorem 1
            safe rewriting, Theorem 2 LP-normal form). Pass False only for formulas that are
            already safe and LP-normal. Non-unary filters are lifted (pop-up) in either case.

    Returns:
        A trimmed, epsilon-free CEA whose final states are entered only by marking transitions;
        ``registers`` is non-empty only when binary filters are present (EXTENSION).

    Raises:
        UnsupportedError: a binary filter or AND outside the register/product extension, or a
            rewrite (including the pop-up lifting of binary filters) over the size limit.
    """
    g = _engine_form(f) if normalise else f
    g = _lift(g)
    placement = _place(g)
    b = _Builder(placement)
    i, o = b.build(g, ())
    n, trans, init, fin = _eps_free(b.n, b.trans, i, {o})
    n, trans, init, fin = _trim(n, trans, init, fin)
    n, ts, init, fin, registers = _assign_registers(n, trans, init, fin, placement.registers)
    cea = CEA(n, init, fin, ts)
    # registers: variable -> attributes, fixed order
    cea.registers = registers
    assert all(t.mark for t in cea.transitions if t.dst in cea.finals), "G14: finals entered by ◦"
    return cea


def compile_query(q: A.Query) -> CEA:
    """Compile the formula of a query (strategy and window are handled by the evaluators)."""
    return compile_formula(q.formula)


__all__ = ["compile_formula", "compile_query", "has_binary"]
