"""The cross-language matrix (workbench/matrix/, docs/matrix.md): the core language, the CEL and ETALIS
translations on hand-computed cases, the runner's cells and shrunk witnesses, the report, Spark and the CLI.
(Each other language's translation is tested in its own folder: tests/<lang>/test_<lang>_matrix.py.)"""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ceplab.semantics.errors import ParseError
from ceplab.workbench import language
from ceplab.workbench.cli import app
from ceplab.workbench.matrix import report as R
from ceplab.workbench.matrix.core import (CONSTRUCTS, constructs, parse, parse_stream, random_query, smaller_queries,
                                          stream_text)
from ceplab.workbench.matrix.run import case_rng, draw_case, evaluate, replay, run_matrix, shrink
from ceplab.workbench.matrix.translate import NotExpressible

CEL, ETALIS = language.get("cel"), language.get("etalis")


def _m(*sets) -> frozenset:
    return frozenset(frozenset(s) for s in sets)


# ------------------------------------------------------------------------------------------------ core
@pytest.mark.parametrize("text", ["a", "a[x>=2]", "SEQ(a, b[x!=0], c)", "NEXT SEQ(a, OR(b, c[x=2])) WITHIN 3",
                                  "AND(SEQ(a, b), c)", "NSEQ(a, c[x<1], b)", "STRICT PLUS(a[x<=3])",
                                  "LATEST OR(a, b)", "EARLIEST SEQ(a, a)"])
def test_core_queries_round_trip(text):
    q = parse(text)
    assert parse(str(q)) == q


@pytest.mark.parametrize("text, col, words", [("SEQ(a", 6, "unexpected end"), ("SEQ(a b)", 7, "unexpected input"),
                                              ("PLUS(SEQ(a, b))", 6, "unexpected input"),
                                              ("SEQ(a, b) WITHIN 0", None, "at least 1")])
def test_core_errors_are_located(text, col, words):
    with pytest.raises(ParseError) as e:
        parse(text, "q.core")
    assert words in str(e.value) and "q.core" in str(e.value)
    assert e.value.column == col


def test_constructs_and_random_queries_exercise_their_construct():
    assert constructs(parse("NEXT SEQ(a, OR(b, c[x=2])) WITHIN 3")) == {
        "atom", "seq", "or", "filter", "within", "sel:next"}
    for c in CONSTRUCTS:
        for k in range(20):
            assert c in constructs(random_query(case_rng(0, c, k), c)), c


def test_cases_depend_on_seed_row_and_index_only():
    assert draw_case(3, "seq", 7) == draw_case(3, "seq", 7)
    assert draw_case(3, "seq", 7) != draw_case(4, "seq", 7)
    q, ev = draw_case(0, "SEQ(a, b)", 2)                  # a pattern row: the pattern itself, a random stream
    assert str(q) == "SEQ(a, b)" and 3 <= len(ev) <= 8
    assert parse_stream(stream_text(ev)) == ev


def test_core_stream_errors_are_located():
    with pytest.raises(ParseError) as e:
        parse_stream("a(1)@0 b(2)@2")
    assert e.value.column == 8 and "@1" in str(e.value)


# ------------------------------------------------------------------------------------------------ translations
STREAM = "a(1)@0 b(2)@1 b(0)@2 a(0)@3 b(3)@4 c(1)@5"


@pytest.mark.parametrize("query, want", [
    ("SEQ(a, b[x>1])", _m({0, 1}, {0, 4}, {3, 4})),
    ("OR(a[x=0], c)", _m({3}, {5})),
    ("SEQ(OR(c, a[x=1]), b[x=0])", _m({0, 2})),
    ("SEQ(a, b, c) WITHIN 4", _m({3, 4, 5})),
    ("SEQ(a, b) WITHIN 1", _m({0, 1}, {3, 4})),
])
def test_cel_and_etalis_give_the_core_meaning_of_the_positive_core(query, want):
    got = replay([CEL, ETALIS], query, STREAM)
    assert {n: (o.status, o.matches) for n, o in got.items()} == {"cel": ("ok", want), "etalis": ("ok", want)}


def test_etalis_expresses_and_and_nseq_with_both_evaluators():
    q = "NSEQ(a, c, b)"
    assert evaluate(ETALIS, parse(q), parse_stream("a(0)@0 c(0)@1 b(0)@2 a(0)@3 b(0)@4")).matches == _m({3, 4})
    # AND: both occur in any order; an event may serve both sides (Figure 2: no disjointness)
    o = evaluate(ETALIS, parse("AND(a, b)"), parse_stream("b(0)@0 a(0)@1"))
    assert (o.status, o.matches) == ("ok", _m({0, 1}))
    assert evaluate(ETALIS, parse("AND(a, a)"), parse_stream("a(0)@0")).matches == _m({0})


def test_or_branches_binding_different_positions_share_one_etalis_rule():
    text, sw = ETALIS.translation().query(parse("LATEST SEQ(OR(c, SEQ(a, b)), a)"))
    assert text.count("<-") == 1 and sw == {"policy": "recent"}
    assert evaluate(ETALIS, parse("SEQ(OR(c, SEQ(a, b)), a)"),
                    parse_stream("c(0)@0 a(0)@1 b(0)@2 a(0)@3")).matches == _m({0, 1}, {0, 3}, {1, 2, 3})


@pytest.mark.parametrize("lang, query, construct", [
    (CEL, "AND(a, b)", "and"), (CEL, "NSEQ(a, c, b)", "nseq"), (CEL, "EARLIEST SEQ(a, b)", "sel:earliest"),
    (ETALIS, "PLUS(a)", "plus"), (ETALIS, "NEXT SEQ(a, b)", "sel:next"), (ETALIS, "STRICT SEQ(a, b)", "sel:strict"),
])
def test_constructs_without_a_counterpart_are_not_expressible(lang, query, construct):
    with pytest.raises(NotExpressible) as e:
        lang.translation().query(parse(query))
    assert e.value.construct == construct and e.value.reason
    assert evaluate(lang, parse(query), parse_stream("a(0)@0")).status == "not_expressible"


# ------------------------------------------------------------------------------------------------ runner, report
def test_cel_last_and_etalis_recent_differ_on_a_shrunk_stream():
    # CEL's LAST keeps the match with the latest events, {0,1}; under ETALIS's recent the second c is first
    # stored as the newest initiator of the or-branch (ETALIS-P's dispatch order) and completes nothing
    q = parse("LATEST SEQ(OR(c, a[x>1]), c)")
    sq, _, ev, a, b = shrink({"cel": CEL, "etalis": ETALIS}, q, parse_stream("a(3)@0 c(2)@1 b(1)@2 c(0)@3"), "cel",
                             "etalis", keep="sel:latest")
    assert (str(sq), stream_text(ev)) == ("LATEST SEQ(OR(c, a), c)", "c(2)@0 c(0)@1")   # the filter goes, the OR stays
    assert (a.matches, b.matches) == (_m({0, 1}), _m())
    # without the OR, ETALIS's recent pairs the two c's: the OR is part of the difference
    assert evaluate(ETALIS, parse("LATEST SEQ(c, c)"), ev).matches == _m({0, 1})


def test_run_matrix_fills_every_cell_and_finds_no_ceplab_bug():
    res = run_matrix([CEL, ETALIS], cases=6, seed=5)
    cells = {c.construct: c for c in res.cells}
    assert set(cells) == set(CONSTRUCTS) | {"next~latest"} and not res.bugs
    for c in ("atom", "filter", "seq", "or"):
        assert cells[c].verdict == "equivalent" and cells[c].cases == 6
    for c in ("and", "nseq", "plus", "sel:next", "sel:strict", "sel:earliest"):
        assert cells[c].verdict == "not expressible" and cells[c].reasons
    md = R.markdown(res)
    assert md == R.markdown(run_matrix([CEL, ETALIS], cases=6, seed=5))          # deterministic
    claims = {e["claim"]: e["verdict"] for e in R.expectations(res)}
    assert claims["CEL's NXT equals SPAseq's ';' (next)"] == "untested"


def test_a_witness_is_reported_with_its_replay_command(tmp_path):
    res = run_matrix([CEL, ETALIS], ["LATEST SEQ(OR(c, a), c)"], cases=10, seed=0)
    (cell,) = res.cells
    assert cell.verdict == "different" and cell.witness is not None
    md = R.markdown(res)
    assert "### D1" in md and R.replay_command(cell.witness.query, cell.witness.stream, ["cel", "etalis"]) in md
    paths = R.write(res, tmp_path)
    data = json.loads(paths[1].read_text())
    assert data["cells"][0]["witness"]["stream"] == cell.witness.stream


def test_cli_replays_one_case_and_refuses_bad_input():
    r = CliRunner().invoke(app, ["matrix", "--query", "SEQ(a, b)", "--stream", "a(0)@0 b(1)@1", "--json",
                                 "--languages", "cel,etalis"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["cel"]["matches"] == got["etalis"]["matches"] == [[0, 1]]
    r = CliRunner().invoke(app, ["matrix", "--query", "SEQ(a", "--stream", "a(0)@0"])
    assert r.exit_code == 2 and "--query:1:6" in r.stderr
    r = CliRunner().invoke(app, ["matrix", "--query", "SEQ(a, b)"])
    assert r.exit_code == 2 and "go together" in r.stderr


def test_cli_patterns_file_rows(tmp_path):
    f = tmp_path / "p.core"
    f.write_text("# two rows\nSEQ(a, b)\nOR(a, c) WITHIN 2\n")
    r = CliRunner().invoke(app, ["matrix", "--patterns", str(f), "--cases", "3", "--languages", "cel,etalis",
                                 "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["constructs"] == ["SEQ(a, b)", "OR(a, c) WITHIN 2"]
    assert all(c["verdict"] == "equivalent" and c["cases"] == 3 for c in data["cells"])
    f.write_text("SEQ(a, b)\nSEQ(a b)\n")
    r = CliRunner().invoke(app, ["matrix", "--patterns", str(f)])
    assert r.exit_code == 2 and f"{f}:2:7" in r.stderr


def test_spark_outcomes_equal_the_in_process_ones():
    from ceplab.workbench.matrix.spark import outcomes_on_spark

    rows = ["seq", "sel:latest"]
    table = outcomes_on_spark(["cel", "etalis"], rows, 3, 11, master="local[1]")
    for row in rows:
        for k in range(3):
            q, ev = draw_case(11, row, k)
            assert table[(row, k)] == {L.name: evaluate(L, q, ev) for L in (CEL, ETALIS)}


def test_across_selections_compare_cel_nxt_with_etalis_recent():
    # across (run.claims): CEL's NXT and ETALIS's recent on the cases of the sel:next row; on SEQ(a, b) over a a b, NXT pairs
    # the b with its earliest a, ETALIS's recent with the newest initiator
    res = run_matrix([CEL, ETALIS], ["sel:next"], cases=8, seed=0)
    (cell,) = [c for c in res.cells if c.construct == "next~latest"]
    assert (cell.left, cell.right) == ("cel", "etalis") and cell.cases == 8
    got = replay([CEL], "NEXT SEQ(a, b)", "a(0)@0 a(0)@1 b(0)@2")["cel"].matches
    want = replay([ETALIS], "LATEST SEQ(a, b)", "a(0)@0 a(0)@1 b(0)@2")["etalis"].matches
    assert (got, want) == (_m({0, 2}), _m({1, 2}))
    if cell.witness is not None:
        w = cell.witness
        assert w.right_query is not None and w.right_query.startswith("LATEST") and w.query.startswith("NEXT")
        assert w.left.matches != w.right.matches


def test_smaller_queries_simplify_and_keep_the_row_construct():
    got = [str(q) for q in smaller_queries(parse("LATEST SEQ(OR(b[x!=3], a), c, b)"), "sel:latest")]
    assert got[:3] == ["LATEST SEQ(c, b)", "LATEST SEQ(OR(b[x!=3], a), b)", "LATEST SEQ(OR(b[x!=3], a), c)"]
    assert "LATEST SEQ(b[x!=3], c, b)" in got and "LATEST SEQ(OR(b, a), c, b)" in got
    assert [str(q) for q in smaller_queries(parse("OR(a, b)"), "or")] == []       # both operands drop the OR
    assert [str(q) for q in smaller_queries(parse("NSEQ(a[x>1], c, b)"), "nseq")] == ["NSEQ(a, c, b)"]

