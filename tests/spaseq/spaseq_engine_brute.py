"""A brute-force enumerator of the SPAseq witness semantics (docs/semantics/spaseq.md#spaseq-3.8, the plugin
contract), for the engine's tests: it enumerates witnesses directly from the definitions (instances per
timestamp, connectors checked by scanning the events strictly between two selected ones, windows per witness), with
none of the engine's run machinery (no incremental retire/kill decisions, no stream index, no caches).  Only the GPM
evaluation ``[[mu(P)]]_G`` is shared with the engine (``ceplab.engine.spaseq.gpm``; it is checked against rdflib's
SPARQL engine separately).  Exponential: small inputs only.
"""
from __future__ import annotations

from typing import Optional

from ceplab.engine.spaseq.gpm import Index, PatternCompiler, Terms
from ceplab.semantics.spaseq import ast as A
from ceplab.semantics.spaseq.options import Options
from ceplab.semantics.spaseq.results import Match, term
from ceplab.semantics.spaseq.streams import Background


def _graphs(p):
    if isinstance(p, A.Graph):
        return {p.iri} | _graphs(p.pattern)
    if isinstance(p, (A.Join, A.LeftJoin, A.Union_)):
        return _graphs(p.left) | _graphs(p.right)
    if isinstance(p, A.Filter):
        return _graphs(p.pattern)
    return set()


def brute(query: A.Query, events, options: Options = Options(), background: Optional[Background] = None
          ) -> set[Match]:
    """The result set of ``query`` over ``events`` (a list of GraphEvent sorted by time) under ``options``."""
    o = options
    w = query.window
    t0 = o.origin
    evs = [e for e in events if e.time >= t0]
    terms = Terms()
    qv = list(A.query_vars(query))
    vi = {v: i for i, v in enumerate(qv)}
    n = len(qv)
    bg = background or Background()
    iris = set(query.graphs)
    for g in query.gpms:
        iris |= _graphs(g.pattern)
    pc = PatternCompiler(terms, vi, {i: Index(bg.graph(i), terms) for i in iris})
    fns = {g.name: (frozenset(g.streams), pc.compile(g.pattern)) for g in query.gpms}
    idx = [Index(e.graph, terms) for e in evs]
    seq = query.seq
    m = len(seq)
    omega0 = frozenset({(None,) * n})
    declared = query.declared_streams

    def ext(name, ctx, k):
        U, fn = fns[name]
        if evs[k].stream not in U:
            return frozenset()
        out = set()
        for mu in ctx:
            out.update(fn(mu, idx[k]))
        return frozenset(out)

    def inst(b, ctx, tau, pool):
        """Instances of BOp ``b`` at ``tau`` among event numbers ``pool``: [(event numbers, Omega)]."""
        if isinstance(b, A.GPMRef):
            res = []
            for k in pool:
                if evs[k].time == tau:
                    x = ext(b.name, ctx, k)
                    if x:
                        res.append(((k,), x))
            return res
        if isinstance(b, A.Conj):
            return [(el + er, xr) for el, xl in inst(b.left, ctx, tau, pool) for er, xr in inst(b.right, xl, tau, pool)]
        left = inst(b.left, ctx, tau, pool)
        if o.disjunction == "first_match" and left:
            return left
        return left + inst(b.right, ctx, tau, pool)

    def relevant(j, ctx, tau, pool):
        c = ctx if o.relevance == "context" else omega0
        return bool(inst(seq[j].expr, c, tau, pool))

    def streams_of(j):
        return frozenset(s for name in A.bop_gpms(seq[j].expr) for s in fns[name][0])

    def step_ok(conn, j, ctx, ta, tb, pool):
        """The connector ``conn`` between a selected instance at ``ta`` and one of element ``j`` at ``tb``."""
        between = sorted({evs[k].time for k in pool if ta < evs[k].time < tb})
        if conn == ";":
            return not any(relevant(j, ctx, t, pool) for t in between)
        if conn == ",":
            if o.contiguity == "declared":
                U = declared
            elif o.contiguity == "streamset":
                U = None
            else:
                U = streams_of(j)
            return not any(ta < e.time < tb and (U is None or e.stream in U) for e in evs)
        return True

    def neg_ok(n_, ctx, ta, tb, pool, inclusive):
        times = sorted({evs[k].time for k in pool if ta < evs[k].time and (evs[k].time <= tb if inclusive
                                                                            else evs[k].time < tb)})
        return not any(relevant(n_, ctx, t, pool) for t in times)

    results: set[Match] = set()
    proj = sorted((str(v), vi[v]) for v in set(A.projection(query)) if v in vi)

    def emit(window, sel, omega):
        events_ = tuple((str(evs[k].stream), evs[k].time) for k in sel)
        for row in omega:
            results.add(Match(window, events_, tuple((nm, term(terms.terms[row[i]])) for nm, i in proj
                                                     if row[i] is not None)))

    def run_window(window, pool, lo, hi, hi_incl):
        times = sorted({evs[k].time for k in pool})

        def in_win(tau, tfirst):
            if o.window == "anchored":
                return tau - tfirst <= w
            return True

        def wend(tfirst):
            return tfirst + w if o.window == "anchored" else hi

        def choose(j, ctx, ta, tfirst, conn, negs):
            """Instances b of element j after ta (None: no earlier selected instance) satisfying the
            connector and the negation guards ``negs`` (element numbers): [(tau_b, events, Omega)]."""
            out = []
            for tb in times:
                if ta is not None and tb <= ta:
                    continue
                if tfirst is not None and not in_win(tb, tfirst):
                    continue
                for evk, x in inst(seq[j].expr, ctx, tb, pool):
                    if ta is not None:
                        if not step_ok(conn, j, ctx, ta, tb, pool):
                            continue
                        if any(not neg_ok(nn, ctx, ta, tb, pool, o.negation == "through_next") for nn in negs):
                            continue
                    out.append((tb, evk, x))
            return out

        def after(j, omega_j, prefix, ta, tfirst, sel):
            """Element j completed (last selected instance at ta): every continuation."""
            if seq[j].modifier == "+":
                ic = ";" if (o.kleene_iter == "stn" or j == 0) else seq[j].connector
                for tb, evk, x in choose(j, prefix, ta, tfirst, ic, ()):
                    after(j, omega_j | x, prefix, tb, tfirst, sel + evk)
            if j == m - 1:
                emit(window, sel, omega_j)
                return
            k = j + 1
            mod = seq[k].modifier
            if mod in (None, "+", "?"):
                for tb, evk, x in choose(k, omega_j, ta, tfirst, seq[k].connector, ()):
                    after(k, x, omega_j, tb, tfirst, sel + evk)
            if mod == "?":
                if k == m - 1:
                    emit(window, sel, omega_j)
                else:
                    for tb, evk, x in choose(k + 1, omega_j, ta, tfirst, seq[k + 1].connector, ()):
                        after(k + 1, x, omega_j, tb, tfirst, sel + evk)
            if mod == "!":
                if k == m - 1:
                    end = wend(tfirst)
                    incl = hi_incl if o.window != "anchored" else True
                    if neg_ok(k, omega_j, ta, end, pool if o.window != "anchored" else
                              [q for q in range(len(evs))], incl):
                        emit(window, sel, omega_j)
                else:
                    for tb, evk, x in choose(k + 1, omega_j, ta, tfirst, seq[k + 1].connector, (k,)):
                        after(k + 1, x, omega_j, tb, tfirst, sel + evk)

        starts = (0, 1) if seq[0].modifier == "?" else (0,)
        for j in starts:
            for tb, evk, x in choose(j, omega0, None, None, None, ()):
                after(j, x, omega0, tb, tb, evk)

    if not evs:
        return results
    if o.window == "anchored":
        run_window(None, list(range(len(evs))), None, None, True)
    else:
        last = max(e.time for e in evs)
        i = 0
        while t0 + i * w <= last:
            lo, hi = t0 + i * w, t0 + (i + 1) * w
            closed = o.window == "tumbling_closed"
            pool = [k for k, e in enumerate(evs) if lo <= e.time and (e.time <= hi if closed else e.time < hi)]
            if pool:
                run_window(i, pool, lo, hi, closed)
            i += 1
    return results


def emission_time(query: A.Query, match: Match, options: Options = Options()) -> tuple[int, bool]:
    """``(d, inclusive)``: the contract's emission point of ``match``: it is emitted at the first event with time
    ``> d`` (``>= d`` when ``inclusive``), or by close()."""
    if query.seq[-1].modifier == "!":
        if options.window == "anchored":
            return min(t for _, t in match.events) + query.window, False
        end = options.origin + (match.window + 1) * query.window
        return end, options.window == "tumbling_halfopen"
    return match.time, False
