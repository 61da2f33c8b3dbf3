"""The ETALIS parser's LALR(1) fast path (semantics/etalis/parser.py): the same parse tree as the Earley parser on
generated and bundled statements, the Earley fallback where LALR(1) cannot decide, and the condition-as-term
reading (a static atom is a name or a compound; anything else is a located error)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from lark.exceptions import UnexpectedInput

from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.parser import _lalr, _lark, parse, split_statements
from ceplab.workbench.langs.etalis import LANGUAGE as L

ROOT = Path(__file__).resolve().parents[2]


def _statements() -> list[str]:
    rng = random.Random(3)
    texts = [L.random_case(rng, 6)[0] for _ in range(150)]
    texts += [p.read_text() for p in sorted(ROOT.glob("**/*.event")) if ".git" not in p.parts]
    return [c for t in texts for (_, _, c) in split_statements(t)]


def test_lalr_tree_equals_earley_tree():
    stm = _statements()
    accepted = 0
    for c in stm:
        try:
            tree = _lalr().parse(c)
        except UnexpectedInput:
            continue
        accepted += 1
        assert tree == _lark().parse(c), c
    assert len(stm) > 200 and accepted >= 0.95 * len(stm)


def test_a_where_condition_before_a_comma_in_not_falls_back_to_earley():
    text = "d2(X) <- not(d1(2)).[(b(X)) where (X =\\= 2), (a(X)) during (c(Y))]."
    with pytest.raises(UnexpectedInput):
        _lalr().parse(text)
    (r,) = parse(text).event_rules
    assert isinstance(r.body, A.Not) and isinstance(r.body.start, A.Where)
    assert isinstance(r.body.end, A.Binary) and r.body.end.op == "during"


def test_static_atoms_in_conditions_and_located_errors():
    prog = parse("p(1).\nq.\nd(X) <- a(X) where (p(X), q).\n")
    (r,) = prog.event_rules
    c = r.body.cond
    assert isinstance(c, A.CAnd) and [type(x) for x in c.items] == [A.StaticAtom, A.StaticAtom]
    assert [x.name for x in c.items] == ["p", "q"] and c.items[1].pos == (3, 27)
    for text, col in (("d(X) <- a(X) where X.", 20), ("d(X) <- a(X) where X + 1.", 20)):
        with pytest.raises(ParseError) as e:
            parse(text)
        assert (e.value.line, e.value.column) == (1, col) and "condition" in e.value.message
