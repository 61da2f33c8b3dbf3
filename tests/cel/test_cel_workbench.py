"""The CEL plugin in the shared workbench: --set parsing of its switches, shrinking candidates, shrinking
a case with an injected engine fault."""
from __future__ import annotations

import pytest

from ceplab.semantics.events import Stream
from ceplab.workbench.compare import OptionError, compare, options_from_kv


def test_cel_options_from_kv():
    from ceplab.semantics.cel.options import Options

    assert options_from_kv(Options, ["max_scope=global"]).max_scope == "global"
    with pytest.raises(OptionError, match="same_end, global"):
        options_from_kv(Options, ["max_scope=local"])


def test_cel_simplifications_are_smaller_and_mostly_parse():
    from ceplab.semantics.cel.ast import size
    from ceplab.semantics.cel.parser import parse
    from ceplab.workbench.langs.cel.simplify import simplifications as cel_simplifications

    text = 'MAX(((A AS x FILTER x.v > 1) ; (B AS y)+) OR C AS z WITHIN 3)'
    q = parse(text)
    cands = list(cel_simplifications(text))
    assert str(parse(text).formula) in [str(parse(c).formula) for c in cands[:2]]  # strategy/WITHIN
    parsed = [parse(c) for c in cands]
    assert all(size(p.formula) < size(q.formula) or p.strategy == "ALL" or p.within is None
               for p in parsed)
    assert any(str(p.formula) == "C AS z" for p in parsed)
    assert len(set(cands)) == len(cands)


def test_shrink_injected_fault_with_real_cel():
    from ceplab.workbench import language as languages
    from ceplab.workbench.shrink import shrink
    from ceplab.workbench.spark import faulty_language

    lang = faulty_language(languages.get("cel"), "drop")
    query = "((A AS x FILTER x.v >= 0) ; (B AS y)+) OR C AS z"
    stream = Stream.of([("C", {"v": 0}), ("A", {"v": 1}), ("A", {"v": 2}), ("B", {"v": 0}),
                        ("C", {"v": 1}), ("B", {"v": 2})])

    def fails(q, s):
        return compare(lang, lang.parse(q), s).verdict == "disagree"

    assert fails(query, stream)
    small = shrink(lang, query, stream, fails)
    assert fails(small.query, small.stream)
    assert len(small.stream) == 1 and small.steps > 0
    assert len(small.query) < len(query)


def test_plugin_parse_is_memoised_and_errors_are_not():
    """The plugin's parse returns the same immutable AST for the same text; a bad text raises every time."""
    from ceplab.semantics.errors import ParseError
    from ceplab.workbench.langs.cel import LANGUAGE

    text = "A AS a ; B AS b WITHIN 5"
    first = LANGUAGE.parse(text)
    assert LANGUAGE.parse(text) is first
    for _ in range(2):
        with pytest.raises(ParseError):
            LANGUAGE.parse("A AS a ; ; B")
