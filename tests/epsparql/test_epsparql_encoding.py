"""The EP-SPARQL oracle's scalable encoding (docs/semantics/epsparql.md#epsparql-9.5 pushed-down windows,
#epsparql-9.6 the integer value layer) answers exactly as the encoding before it (no windows, every value through
the exact @-functions), which ``ceplab.asp.epsparql._oracle(..., legacy=True)`` still runs for this test only.

The engine differential tests (tests/epsparql/test_epsparql_engine.py, the fuzz campaign) draw filters on small
integers and the time functions only; here the filters also compare decimals, strings (simple, xsd:string,
language-tagged, empty), booleans, IRIs and literals of other types, with arithmetic (``+ - * /``, so the exact
fallback is exercised too), negation, effective boolean values and ``BOUND``, under random switches.  Plus unit
checks of the window bound itself and of the grounding's growth.
"""
from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ceplab.asp.epsparql import (CAP, _oracle, duration_bound, value_table)
from ceplab.asp.oracle import Limits, OracleResult
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.parser import parse
from ceplab.semantics.epsparql.streams import read_line_stream
from ceplab.semantics.errors import ModelError, UnsupportedError

EX = "http://example.org/"
PREFIX = f"PREFIX : <{EX}>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
FAST = Limits(time_s=60, isolate=False)
SETTINGS = settings(deadline=None, max_examples=60,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

#: object terms of the streams (N-Triples) and the matching query constants
OBJECTS = ("0", "1", "-2", "3", "0.5", "1.25", "-2.5", "100.125", '""', '"a"', '"b"', '"a"^^xsd:string',
           '"a"@en', '"true"^^xsd:boolean', '"false"^^xsd:boolean', "<http://example.org/a>",
           "<http://example.org/b>", '"2020-01-01T00:00:00Z"^^xsd:dateTime', '"x"^^<http://example.org/dt>')
_XSD = "http://www.w3.org/2001/XMLSchema#"
VARS = ("?x", "?y", "?z")


def _stream_term(t: str) -> str:
    """A query constant in N-Triples (the ``xsd:`` prefix expanded)."""
    return re.sub(r"xsd:(\w+)", rf"<{_XSD}\1>", t)


@st.composite
def operands(draw, depth: int) -> str:
    kind = draw(st.sampled_from(["var", "var", "const", "time", "arith", "neg"] if depth > 0 else
                                ["var", "const", "time"]))
    if kind == "var":
        return draw(st.sampled_from(VARS))
    if kind == "const":
        return draw(st.sampled_from(OBJECTS + ('"P2D"^^xsd:duration',)))
    if kind == "time":
        return draw(st.sampled_from(["getDURATION()", "getSTARTTIME()", "getENDTIME()"]))
    if kind == "neg":
        return f"-({draw(operands(depth - 1))})"
    op = draw(st.sampled_from(["+", "-", "*", "*", "/"]))
    return f"({draw(operands(depth - 1))} {op} {draw(operands(depth - 1))})"


@st.composite
def conditions(draw, depth: int = 2) -> str:
    kind = draw(st.sampled_from(["cmp", "cmp", "cmp", "dur", "bound", "ebv"] + (["and", "or", "not"] if depth else [])))
    if kind == "cmp":
        op = draw(st.sampled_from(["<", "<=", ">", ">=", "=", "!="]))
        return f"{draw(operands(1))} {op} {draw(operands(1))}"
    if kind == "dur":  # a window, sometimes mirrored or as a duration literal
        c = draw(st.sampled_from(["0", "1", "2", "3", "2.5", '"P2D"^^xsd:duration']))
        op = draw(st.sampled_from(["<", "<="]))
        mirror = {"<": ">", "<=": ">="}
        return f"getDURATION() {op} {c}" if draw(st.booleans()) else f"{c} {mirror[op]} getDURATION()"
    if kind == "bound":
        return f"{'!' if draw(st.booleans()) else ''}BOUND({draw(st.sampled_from(VARS))})"
    if kind == "ebv":
        return draw(operands(1))
    if kind == "not":
        return f"!({draw(conditions(depth - 1))})"
    op = "&&" if kind == "and" else "||"
    return f"({draw(conditions(depth - 1))}) {op} ({draw(conditions(depth - 1))})"


@st.composite
def queries(draw) -> str:
    a, b = f"{{ ?s :p ?x }}", f"{{ ?s :q ?y }}"
    op = draw(st.sampled_from(["SEQ", "", "EQUALS", "OPTIONALSEQ", "EQUALSOPTIONAL", "OPTIONAL", "UNION"]))
    if op in ("OPTIONALSEQ", "EQUALSOPTIONAL", "OPTIONAL") and draw(st.booleans()):
        inner = f"FILTER({draw(conditions(1))})"
        if op == "OPTIONALSEQ":
            a = f"{{ ?s :p ?x {inner} }}"
        else:
            b = f"{{ ?s :q ?y {inner} }}"
    body = f"{a} {op} {b}" if op else f"{a} {b}"
    if draw(st.booleans()):
        body = f"{{ {body} }} SEQ {{ ?s :r ?z }}"
    where = f"{body} FILTER({draw(conditions())})"
    if draw(st.booleans()):
        where += f" FILTER({draw(conditions(1))})"
    return f"SELECT * WHERE {{ {where} }}"


@st.composite
def streams(draw) -> list:
    n = draw(st.integers(0, 10))
    occ = []
    for i in range(n):
        s = draw(st.sampled_from(["a", "b"]))
        p = draw(st.sampled_from(["p", "q", "r"]))
        o = _stream_term(draw(st.sampled_from(OBJECTS)))
        t = draw(st.integers(0, 6))
        occ.append((t + draw(st.sampled_from([0, 0, 1, 2])), i, f"<{EX}{s}> <{EX}{p}> {o} {t} {{end}} ."))
    occ.sort()
    return read_line_stream("".join(x[2].replace("{end}", str(x[0])) + "\n" for x in occ), "<generated>")


OPTIONS = st.builds(Options, optional_end=st.sampled_from(["le", "strict"]),
                    srj_filter_interval=st.sampled_from(["combined", "mandatory"]),
                    lj_filter_interval=st.sampled_from(["mandatory", "hull"]),
                    optional_filter=st.sampled_from(["operand", "group"]),
                    filter_errors=st.sampled_from(["three_valued", "error_is_false"]),
                    output=st.sampled_from(["set", "bag"]))


def _answer(qs, stream, options, legacy: bool):
    try:
        r = _oracle(qs, stream, options, FAST, legacy=legacy)
    except (UnsupportedError, ModelError) as e:
        return type(e).__name__
    assert isinstance(r, OracleResult), r
    return r.results


@SETTINGS
@given(queries(), streams(), OPTIONS)
def test_new_encoding_answers_as_before(text, stream, options):
    """Windows pushed into the grounding and integer values change nothing (9.5, 9.6)."""
    qs = parse(PREFIX + text)
    assert _answer(qs, stream, options, False) == _answer(qs, stream, options, True), text


def test_the_examples_of_the_module_agree_on_a_fixed_case():
    """A case hitting every value category at once (the exact fallback through the division)."""
    stream = read_line_stream("".join(f"<{EX}a> <{EX}p> {o} {i} {i} .\n" for i, o in enumerate(
        ["1.5", '"a"', "<http://example.org/a>", '"true"^^<http://www.w3.org/2001/XMLSchema#boolean>', "2"])) +
        f"<{EX}a> <{EX}q> 3 9 9 .\n", "<t>")
    for f in ("?x * 2 > ?y", "?x / 2 > ?y", '?x = "a" || ?x = :a', "?x", "?x < ?y && getDURATION() <= 8"):
        qs = parse(PREFIX + f"SELECT * WHERE {{ {{ ?s :p ?x }} SEQ {{ ?s :q ?y }} FILTER({f}) }}")
        new, old = _answer(qs, stream, Options(), False), _answer(qs, stream, Options(), True)
        assert new == old and isinstance(new, frozenset), f
    qs = parse(PREFIX + "SELECT * WHERE { { ?s :p ?x } SEQ { ?s :q ?y } FILTER(?x * 2 > ?y) }")
    assert len(_answer(qs, stream, Options(), False)) == 1   # 1.5*2 = 3 is not > 3; 2*2 > 3; "a"*2 errs


def test_numbers_beyond_32_bits_fall_back_to_exact_rationals():
    """A value whose scaled integer could overflow clingo's 32 bits: the exact layer answers (never a wrong one)."""
    big = 3_000_000_000
    stream = read_line_stream(f"<{EX}a> <{EX}p> {big} 1 1 .\n<{EX}a> <{EX}q> {big + 1} 2 2 .\n", "<t>")
    assert value_table([stream[0].o], [1, 2]) is None
    qs = parse(PREFIX + "SELECT * WHERE { { ?s :p ?x } SEQ { ?s :q ?y } FILTER(?x < ?y && getDURATION() < 5) }")
    got = _answer(qs, stream, Options(), False)
    assert got == _answer(qs, stream, Options(), True) and len(got) == 1
    # products of in-range numbers that could overflow are also caught at compile time
    stream = read_line_stream(f"<{EX}a> <{EX}p> 60000 1 1 .\n<{EX}a> <{EX}q> 60000 2 2 .\n", "<t>")
    qs = parse(PREFIX + "SELECT * WHERE { { ?s :p ?x } SEQ { ?s :q ?y } FILTER(?x * ?y > 3599999999) }")
    assert 60000 * 60000 > CAP
    got = _answer(qs, stream, Options(), False)
    assert got == _answer(qs, stream, Options(), True) and len(got) == 1


@pytest.mark.parametrize("expr, bound", [
    ("getDURATION() < 100", 99), ("getDURATION() <= 100", 100), ("100 > getDURATION()", 99),
    ("100 >= getDURATION()", 100), ("getDURATION() < 2.5", 2), ("getDURATION() <= 2.5", 2),
    ('getDURATION() < "P30D"^^xsd:duration', 29), ("?x > 1 && (getDURATION() < 7 && getDURATION() < 5)", 4),
    ("getDURATION() < -1", -2), ("getDURATION() = 3", 3),
    ("getDURATION() < 5 || ?x > 1", None), ("!(getDURATION() >= 5)", None), ("getDURATION() > 5", None),
    ("getDURATION() < ?x", None), ('getDURATION() < "5"', None), ("getSTARTTIME() < 5", None)])
def test_duration_bound_reads_only_top_level_conjuncts(expr, bound):
    """Only a conjunct of the top-level && bounds every row the filter keeps (A11: an error or a false conjunct
    drops the row under both readings of filter_errors)."""
    qs = parse(PREFIX + f"SELECT * WHERE {{ ?s :p ?x FILTER({expr}) }}")
    f = qs.queries[0].where
    while not hasattr(f, "expr"):
        f = f.pattern
    assert duration_bound(f.expr, 86400) == bound


def test_value_table_scales_decimals_exactly():
    vt = value_table([], [0, 7], [Fraction(1, 4), Fraction(3)])
    assert vt is not None and vt.d == 2 and vt.number(Fraction(1, 4)) == 25 and vt.tmag == 7 and vt.dmag == 7


def _ground_atoms(n: int, window: int) -> int:
    occ = "".join(f"<{EX}c{i % 4}> <{EX}{'pq'[i % 3 % 2]}> {i % 100} {i} {i} .\n" for i in range(n))
    qs = parse(PREFIX + f"SELECT * WHERE {{ ?c :p ?a }} SEQ {{ ?c :q ?b }} FILTER(?a < ?b && getDURATION() < {window})")
    r = _oracle(qs, read_line_stream(occ, "<t>"), Options(), FAST)
    assert isinstance(r, OracleResult)
    return r.stats.atoms


def test_grounding_grows_linearly_at_a_fixed_window():
    """With the window pushed down, doubling the stream about doubles the ground program (all pairs: x4)."""
    a, b = _ground_atoms(300, 20), _ground_atoms(600, 20)
    assert b / a < 2.2, (a, b)
