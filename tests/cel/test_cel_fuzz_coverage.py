"""What the seeded CEL fuzz generator draws (``ceplab fuzz cel``, workbench/langs/cel/generators.py and the
plugin's ``_random_case``): every value of every closed switch, and the shapes that the planted engine mutants
(workbench/langs/cel/mutants.py) need -- long streams under small windows with matches at the root-pruning
points (docs/semantics/cel.md#cel-G8, #cel-G15), events lacking the attribute or holding values of another kind
under NOT (#cel-G6), Kleene+ over a filtered sequence (#cel-3.1, #cel-G11), MAX/LAST/NXT over + under WITHIN
(#cel-3.2) -- so that a generator change that stops drawing one of them fails here rather than silently
weakening the campaign; and the cases drawn agree (oracle vs engine)."""
from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from ceplab.asp.oracle import Limits
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.options import Options
from ceplab.workbench.compare import compare
from ceplab.workbench.coverage import case_features, switch_values, tally
from ceplab.workbench.generators import RandomChooser
from ceplab.workbench.langs.cel import LANGUAGE as L
from ceplab.workbench.langs.cel.generators import PRUNE_POINTS, constants_left, plant_window_matches
from ceplab.workbench.spark import case_rng

N = 300


@pytest.fixture(scope="module")
def drawn():
    """The first ``N`` cases of the default campaign (seed 0, length 6): (text, parsed query, stream, options)."""
    out = []
    for i in range(N):
        text, stream, options = L.random_case(case_rng(0, "cel", i), 6)
        out.append((text, L.parse(text), stream, options))
    return out


def _preds(f):
    """Every filter predicate of a formula (nested blocks included)."""
    if isinstance(f, A.Filter):
        yield f.pred
        yield from _preds(f.body)
    elif isinstance(f, (A.Plus, A.Sel)):
        yield from _preds(f.body)
    elif isinstance(f, (A.Seq, A.Or, A.And)):
        yield from _preds(f.left)
        yield from _preds(f.right)


def _subpreds(p):
    yield p
    for c in (getattr(p, "left", None), getattr(p, "right", None), getattr(p, "arg", None)):
        if c is not None:
            yield from _subpreds(c)


def _nodes(f):
    yield f
    for c in A.children(f) if not isinstance(f, A.Sel) else (f.body,):
        yield from _nodes(c)


def test_every_closed_switch_value_is_drawn(drawn):
    counts = tally(Options, (case_features(L, q, s, o) for _t, q, s, o in drawn))
    rare = {k: counts[k] for k in switch_values(Options) if counts[k] < 5}
    assert not rare, rare


def test_mutant_shapes_are_drawn(drawn):
    c: Counter = Counter()
    for text, q, s, o in drawn:
        preds = [sp for p in _preds(q.formula) for sp in _subpreds(p)]
        nodes = list(_nodes(q.formula))
        vs = [e.attrs.get("v", None) for e in s]
        generated = q.strategy in ("ALL", "STRICT") and o.engine_path == "generated"
        if len(s) >= 40:
            c["long"] += 1
            c["long-small-window"] += q.within is not None and q.within <= 5
            c["long-past-pruning-generated"] += len(s) > PRUNE_POINTS[0] and generated and q.within is not None
        c["interpreted-window"] += o.engine_path == "interpreted" and q.within is not None \
            and q.strategy in ("ALL", "STRICT")
        c["event-lacks-v"] += any(e.attrs.get("v") is None for e in s)
        c["string-value"] += any(isinstance(v, str) for v in vs)
        c["value-out-of-0..2"] += any(isinstance(v, (int, float)) and v not in (0, 1, 2) for v in vs)
        c["attr-w"] += any(isinstance(p, (A.Cmp, A.Cmp2)) and "w" in (p.attr, getattr(p, "attr2", None))
                           for p in preds)
        c["string-constant"] += any(isinstance(p, A.Cmp) and isinstance(p.value, str) for p in preds)
        c["constant-beyond-0..2"] += any(isinstance(p, A.Cmp) and p.value not in (0, 1, 2) for p in preds)
        c["TRUE/FALSE"] += any(isinstance(p, (A.PTrue, A.PFalse)) for p in preds)
        c["NOT-cmp-on-odd-events"] += (any(isinstance(p, A.PNot) and isinstance(p.arg, A.Cmp) for p in preds)
                                       and any(v is None or isinstance(v, str) for v in vs))
        c["constant-left"] += bool(re.search(r'(\d|")\s*(<=|>=|!=|<|>|=)\s*[a-z]\w*\.\w', text))
        c["plus-over-filtered-seq"] += generated and any(
            isinstance(n, A.Plus) and isinstance(n.body, A.Filter) and isinstance(n.body.body, A.Seq)
            and any(isinstance(p, A.Cmp2) for p in _subpreds(n.body.pred)) for n in nodes)
        has_plus = any(isinstance(n, A.Plus) for n in nodes)
        c["MAX-plus-within"] += q.strategy == "MAX" and has_plus and q.within is not None
        c["LAST/NXT-plus-within"] += q.strategy in ("LAST", "NXT") and has_plus and q.within is not None
    for key, least in (("long-small-window", 10), ("long-past-pruning-generated", 3), ("interpreted-window", 5),
                       ("event-lacks-v", 20), ("string-value", 10), ("value-out-of-0..2", 10), ("attr-w", 10),
                       ("string-constant", 5), ("constant-beyond-0..2", 10), ("TRUE/FALSE", 1),
                       ("NOT-cmp-on-odd-events", 5), ("constant-left", 20), ("plus-over-filtered-seq", 5),
                       ("MAX-plus-within", 5), ("LAST/NXT-plus-within", 5)):
        assert c[key] >= least, (key, c[key], dict(c))
    assert c["long"] == c["long-small-window"]
    assert 0.04 * N <= c["long"] <= 0.2 * N, c["long"]


def test_drawn_cases_agree(drawn):
    """Oracle and engine agree on every drawn case (a disagreement is an engine or oracle bug)."""
    bad = []
    for text, q, s, o in drawn:
        rep = compare(L, q, s, o, limits=Limits(time_s=20.0, isolate=False))
        if rep.undecided is not None or not rep.agree:
            bad.append((text, [(e.type, e.attrs) for e in s], o, rep.summary()))
    assert not bad, bad[:3]


def test_constants_left_is_the_same_query(drawn):
    """Writing constants on the left mirrors the operator: the parser reads the same query back."""
    ch = RandomChooser(random.Random(5))
    moved = 0
    for text, q, _s, _o in drawn:
        t = constants_left(ch, text)
        moved += t != text
        assert L.parse(t) == q, (text, t)
    assert moved >= 20


def test_plant_window_matches_at_the_pruning_points():
    """A witness of the formula, of span exactly ``w``, ends at every pruning point inside the stream; the
    positions between its events hold a type the formula does not use."""
    f = A.Seq(A.Atom("A", "x"), A.Atom("B", "y"))
    events = [("C", {"v": 0})] * 150
    out = plant_window_matches(RandomChooser(random.Random(1)), events, f, 2, ("A", "B", "C"))
    types = "".join(t for t, _a in out)
    for p in (64, 128):
        assert types[p - 2:p + 1] == "ACB", (p, types[p - 3:p + 2])
    assert len(out) == 150 and [a for _t, a in out] == [a for _t, a in events]
