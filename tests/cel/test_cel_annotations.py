"""Analyse once: the node annotations of ``ceplab.semantics.cel.ast`` / ``analysis`` agree with the
plain recursive definitions (paper section 5.1-5.2), survive no pickling, and rewrites share
unchanged sub-formulas."""
from __future__ import annotations

import pickle

from hypothesis import given

from ceplab.semantics.cel import analysis as An
from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.rewrite import alpha_rename, simplify
from ceplab.workbench.langs.cel.generators import cel_formulas


def plain_vdef_plus(f):
    if isinstance(f, A.Atom):
        return frozenset((f.var,))
    if isinstance(f, (A.Plus, A.FalseF, A.Sel)):
        return frozenset()
    return frozenset().union(*(plain_vdef_plus(c) for c in A.children(f)))


def plain_bound(f):
    if isinstance(f, A.Atom):
        return frozenset((f.var,))
    if isinstance(f, A.Filter):
        return plain_bound(f.body)
    if isinstance(f, A.Or):
        return plain_bound(f.left) & plain_bound(f.right)
    if isinstance(f, (A.Seq, A.And)):
        return plain_bound(f.left) | plain_bound(f.right)
    return frozenset()


@given(cel_formulas())
def test_annotations_match_definitions(f):
    g = pickle.loads(pickle.dumps(f))          # fresh nodes, no annotations
    assert not any(k.startswith("_") for k in vars(g))
    for h in A.subformulas(g):
        assert An.vdef_plus(h) == plain_vdef_plus(h)
        assert An.bound(h) == plain_bound(h)
        assert A.size(h) == sum(1 for _ in A.subformulas(h))
        assert An.is_safe(h) == all(not (plain_vdef_plus(s.left) & plain_vdef_plus(s.right))
                                    for s in A.subformulas(h) if isinstance(s, A.Seq))
    assert hash(g) == hash(f) and g == f
    # annotated nodes pickle without their annotations (string hashes differ across processes)
    assert not any(k.startswith("_") for k in vars(pickle.loads(pickle.dumps(g))))


@given(cel_formulas())
def test_rewrites_share_unchanged_nodes(f):
    s = simplify(f)
    assert simplify(s) is s                    # memoised and idempotent
    r = alpha_rename(s)
    if not any(isinstance(h, A.Plus) for h in A.subformulas(s)):
        assert r is s                          # nothing to rename: the same node
