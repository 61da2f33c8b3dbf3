"""The CEL parser's LALR(1) fast path (semantics/cel/parser.py): on every generated query it accepts, its parse
tree is the Earley parser's; it rejects only inputs where a predicate's AND/OR is followed by a formula, and
those still parse (through Earley) to the formula-level operator."""
from __future__ import annotations

import random

from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.parser import _lalr, _lark, parse
from ceplab.workbench.langs.cel.generators import random_cel_case, random_nested_cel_case
from lark.exceptions import UnexpectedInput


def test_lalr_tree_equals_earley_tree_on_generated_queries():
    rng = random.Random(7)
    accepted = 0
    texts = [(random_nested_cel_case if i % 4 == 0 else random_cel_case)(rng, 6)[0] for i in range(400)]
    for t in texts:
        try:
            tree = _lalr().parse(t)
        except UnexpectedInput:
            continue
        accepted += 1
        assert tree == _lark().parse(t), t
    assert accepted >= 0.9 * len(texts)


def test_filter_predicate_followed_by_a_formula_falls_back_to_earley():
    text = "A AS x FILTER x.v > 1 AND B AS y"
    try:
        _lalr().parse(text)
        raise AssertionError("LALR(1) should shift AND into the predicate and fail")
    except UnexpectedInput:
        pass
    q = parse(text)
    assert isinstance(q.formula, A.And) and isinstance(q.formula.left, A.Filter)
    q = parse("A AS x ; B AS y FILTER y.v > 1 AND x.v < 2")   # the predicate extends (LALR path)
    assert isinstance(q.formula, A.Seq) and isinstance(q.formula.right, A.Filter)
