import pytest

from ceplab.semantics.cel import ast as A
from ceplab.semantics.cel.analysis import bound, is_safe, vdef, vdef_plus
from ceplab.semantics.cel.parser import parse
from ceplab.semantics.errors import ParseError

PHI3 = ("(H AS x ; (T AS y FILTER y.id = 1)+ ; H AS z) "
        "FILTER (x.hum < 30 AND z.hum > 60 AND x.id = 1 AND z.id = 1)")


def test_precedence_postfix_binds_tighter_than_seq_and_or():
    q = parse("A AS x ; B AS y FILTER y.v > 1 OR C AS z")
    f = q.formula
    assert isinstance(f, A.Or) and isinstance(f.left, A.Seq)
    assert isinstance(f.left.right, A.Filter) and f.left.right.body == A.Atom("B", "y")


def test_predicate_is_greedy_but_yields_to_formula_operators():
    f = parse("A AS x FILTER x.v > 1 OR x.v < 0").formula
    assert isinstance(f, A.Filter) and isinstance(f.pred, A.POr)
    f = parse("A AS x FILTER x.v > 1 OR B AS y").formula
    assert isinstance(f, A.Or) and isinstance(f.left, A.Filter)
    f = parse("A AS x FILTER x.v > 1 AND B AS y").formula
    assert isinstance(f, A.And)


def test_strategies_and_within():
    for s, name in [("STRICT", "STRICT"), ("NXT", "NXT"), ("next", "NXT"), ("LAST", "LAST"),
                    ("MAX", "MAX"), ("ALL", "ALL")]:
        q = parse(f"{s}(A AS x ; B AS y WITHIN 4)")
        assert q.strategy == name and q.within == 4
    assert parse("A AS x+").formula == A.Plus(A.Atom("A", "x"))


def test_comparisons_both_ways_and_binary():
    f = parse("A AS x FILTER 3 < x.v").formula
    assert f.pred == A.Cmp("x", "v", ">", 3)
    f = parse("A AS x ; B AS y FILTER x.v == y.w").formula
    assert f.right.pred == A.Cmp2("x", "v", "=", "y", "w")
    f = parse("A AS x FILTER x.s != 'a\"b'").formula
    assert f.pred == A.Cmp("x", "s", "!=", 'a"b')


def test_str_roundtrip():
    for s in [PHI3, "MAX(((A AS a)+ ; B AS b)+ ; C AS c WITHIN 3)",
              "A AS x FILTER NOT (x.v = 1 OR x.w >= 2.5) AND x.s = \"q\""]:
        q = parse(s)
        assert parse(str(q)) == q


def test_variable_functions_paper_example():
    f = parse(PHI3).formula
    assert vdef(f) == {"x", "y", "z"} and vdef_plus(f) == {"x", "z"}
    assert bound(f) == {"x", "z"} and is_safe(f)
    assert not is_safe(parse("T AS x ; H AS x").formula)


@pytest.mark.parametrize("text,line,col,needle", [
    ("A AS x ;", 1, 9, "end of query"),
    ("A AS x FILTER y.v > 1", 1, 15, "variable y"),
    ("(A AS x WITHIN 3) ; B AS y", 1, 9, "WITHIN"),
    ("A AS x ; NXT(B AS y)", 1, 10, "strategy"),
    ("A AS x FILTER 1 < 2", 1, 15, "attribute reference"),
    ("(A AS x ; (B AS y)+) FILTER y.v > 1", 1, 29, "variable y"),
    ("A AS x\n; B AS y FILTER y.v > $", 2, 23, "unexpected"),
    # G3: y is bound outside, but the filter inside the iteration sees the round's own y
    ("(B AS y ; (A AS x FILTER y.v > 1 OR B AS y)+)", 1, 26, "variable y"),
])
def test_errors_have_line_and_column(text, line, col, needle):
    with pytest.raises(ParseError) as ei:
        parse(text, "q.cel")
    e = ei.value
    assert (e.file, e.line, e.column) == ("q.cel", line, col) and needle in e.message


def test_and_extension_needs_distinct_variables():
    parse("(A AS x ; B AS y) AND (A AS z ; B AS w)")
    parse("(A AS x)+ AND A AS x")  # the iteration's x is a different variable
    with pytest.raises(ParseError) as ei:
        parse("(A AS x ; A AS y) AND\n (A AS y ; A AS x)", "q.cel")
    assert "both sides of AND" in ei.value.message and ei.value.line == 1
