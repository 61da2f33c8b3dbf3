"""EP-SPARQL in the workbench: the registry record, compare (including the emission-position check), the CLI
(run, compare, papers-check, verify rows; bad input exits 2 with file:line:col), shrinking, seeded random
cases, hypothesis strategies and a small Spark campaign (skipped without Java)."""
from __future__ import annotations

import dataclasses
import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from typer.testing import CliRunner

from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.epsparql.results import Derived, Row
from ceplab.semantics.errors import UnsupportedError
from ceplab.workbench import cli, language as languages
from ceplab.workbench.compare import compare
from ceplab.workbench.langs.epsparql import result_positions, stream_from_json, stream_to_json
from ceplab.workbench.langs.epsparql.papers import paper_expected, parse_compact_stream, project_results

runner = CliRunner()
L = languages.get("epsparql")
P = "PREFIX : <http://example.org/>\n"
E11 = P + "SELECT ?x ?y WHERE { ?s :p ?x } SEQ { ?s :q ?y }\n"
E11_STREAM = ["s p o1 1", "s q o2 2", "s q o3 3"]
EX = "http://example.org/"


def invoke(*args):
    return runner.invoke(cli.app, [str(a) for a in args])


def cmp(text: str, stream, options: Options = Options()):
    return compare(L, L.parse(text), parse_compact_stream(stream), options)


# ----------------------------------------------------------------------------- registry
def test_registry_record():
    assert {"cel", "etalis", "epsparql"} <= set(languages.names())
    assert L.name == "epsparql" and L.options is Options
    for hook in ("result_positions", "simplify", "render", "result_from_json", "stream_from_json",
                 "stream_to_json", "event_row", "drop_events", "case_extras"):
        assert callable(getattr(L, hook)), hook
    for hook in ("stream", "expected", "project_results"):
        assert callable(getattr(L.paper_format, hook)), hook
    assert [i.name for i in L.inputs] == ["background", "ontology"]
    assert "EP-SPARQL" in L.paper and "WWW 2011" in L.paper
    r = Row(0, (("x", f"<{EX}a>"),), 1, 4)
    assert L.result_to_json(r) == {"query": 0, "mapping": {"x": f"<{EX}a>"}, "start": 1, "end": 4}
    assert L.result_from_json(L.result_to_json(r)) == r
    d = Derived(f"<{EX}a>", f"<{EX}p>", '"1"^^<http://www.w3.org/2001/XMLSchema#integer>', 0, 2)
    assert L.result_from_json(L.result_to_json(d)) == d
    qs = L.parse(E11)
    assert L.parse(L.render(qs)) == qs
    from ceplab.workbench.langs.epsparql import data as epsparql_data
    cases = L.real_cases()                       # the bundled real-data cases (with background), not an empty fallback
    assert cases and [c[:2] for c in cases] == [c[:2] for c in epsparql_data.real_cases(include_background=True)]


def test_compact_streams_expected_and_json_round_trip():
    s = parse_compact_stream(["b q 2 @[1,4]", "a p 1 3", "a p c 2"])
    assert [(str(o.s), o.start, o.end, o.position) for o in s] == [
        (f"{EX}a", 2, 2, 0), (f"{EX}a", 3, 3, 1), (f"{EX}b", 1, 4, 2)]
    assert stream_from_json(stream_to_json(s)) == s
    assert L.drop_events(s, [0])[0].position == 0
    t, p, attrs = L.event_row(s[2])
    assert (t, p, attrs["end"]) == (1, f"<{EX}q>", 4)
    exp = paper_expected([{"map": {"x": "a", "n": 2}, "at": [1, 2]}, {"triple": "a p 1", "at": [0, 0]}])
    assert exp[0]["mapping"] == {"x": f"<{EX}a>", "n": '"2"^^<http://www.w3.org/2001/XMLSchema#integer>'}
    assert exp[1]["triple"][0] == f"<{EX}a>"
    assert project_results(exp, "construct") == [exp[1]] and project_results(exp, "select") == [exp[0]]


# ----------------------------------------------------------------------------- compare
@pytest.mark.parametrize("text,stream,options,count", [
    (E11, E11_STREAM, Options(), 2),                                             # E11
    (P + "SELECT * WHERE { ?x :p ?y OPTIONAL { ?x :q ?z } }", ["a p b 5", "a q c 5"], Options(), 1),  # E8
    (P + "SELECT * WHERE { ?x :p ?y . ?x :p ?z }", ["a p b 1", "a p b 5"], Options(), 3),          # E10
    (P + "SELECT * WHERE { ?x :p ?y . ?x :p ?z }", ["a p b 1", "a p b 5"],
     Options(bgp_mode="per_triple"), 2),
    (P + "SELECT * WHERE { { ?c :downratedby ?r FILTER(getDURATION() < 5) } OPTIONALSEQ { ?c :hasStockPrice ?p } }",
     ["ACME downratedby Moodys 2", "ACME hasStockPrice 50 10"], Options(srj_filter_interval="mandatory"), 0),  # E12
])
def test_compare_agrees_on_note_examples(text, stream, options, count):
    rep = cmp(text, stream, options)
    assert rep.verdict == "agree", (rep.problems, rep.oracle_only, rep.engine_only)
    assert rep.oracle_count == count


def test_result_positions():
    s = parse_compact_stream(["a p 1 1", "a p 2 1", "a q 1 @[2,3]", "a q 2 5"])
    rs = [Row(0, (), 1, 1), Row(0, (), 2, 3), Row(0, (), 4, 4), Row(0, (), 1, 5)]
    # a result ending at T is emitted by the first occurrence ending after T (the tick closes), else close()
    assert result_positions(None, s, Options(), None, rs) == {rs[0]: 2, rs[1]: 3, rs[2]: 3, rs[3]: None}


def test_emission_positions_are_checked():
    from ceplab.workbench.spark import faulty_language

    late = faulty_language(L, "late")
    rep = compare(late, L.parse(E11), parse_compact_stream(E11_STREAM + ["s r o 4"]))
    assert rep.verdict == "disagree" and any("expected at" in p for p in rep.problems)
    dup = faulty_language(L, "duplicate")
    rep = compare(dup, L.parse(E11), parse_compact_stream(E11_STREAM))
    assert any("emitted 2 times" in p for p in rep.problems)


def test_unsupported_is_input_error():
    # one hour is not a whole number of one-day ticks (docs/semantics/epsparql.md#epsparql-A15): both sides refuse it as bad input
    qs = L.parse(P + 'SELECT * WHERE { ?s :p ?x FILTER(getDURATION() < "PT1H"^^xsd:duration) }')
    with pytest.raises(UnsupportedError):
        L.evaluator(qs, Options())
    with pytest.raises(UnsupportedError):
        L.oracle(qs, parse_compact_stream(["a p 1 1"]), Options(), None)
    # with one-hour ticks the same query is fine: both sides give the two zero-duration rows
    rep = compare(L, qs, parse_compact_stream(["a p 1 1", "a p 2 3"]), Options(tick_seconds=3600))
    assert rep.agree and rep.oracle_count == rep.engine_count == 2, rep.summary()


# ----------------------------------------------------------------------------- CLI
@pytest.fixture
def files(tmp_path):
    q = tmp_path / "e11.rq"
    q.write_text(E11)
    s = tmp_path / "e11.nt"
    s.write_text("".join(f"<{EX}{a}> <{EX}{b}> <{EX}{c}> {t} .\n"
                         for a, b, c, t in (x.split() for x in E11_STREAM)))
    return q, s


def test_cli_run_json(files):
    q, s = files
    for flag in ("--engine", "--oracle"):
        r = invoke("run", "epsparql", q, s, flag, "--json")
        assert r.exit_code == 0, r.output
        obj = json.loads(r.stdout)
        assert obj["lang"] == "epsparql" and obj["count"] == 2
        assert {(x["mapping"]["y"], x["end"]) for x in obj["results"]} == {(f"<{EX}o2>", 2), (f"<{EX}o3>", 3)}


def test_cli_compare_and_sets(files):
    q, s = files
    r = invoke("compare", "epsparql", q, s, "--set", "optional_end=strict", "--set", "tick_seconds=60", "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["agree"] and obj["oracle_count"] == 2 == obj["engine_count"]
    r = invoke("compare", "epsparql", q, s, "--set", "output=bags")
    assert r.exit_code == 2 and "allowed: set, bag" in r.stderr


def test_cli_bad_input(files, tmp_path):
    q, s = files
    bad_q = tmp_path / "bad.rq"
    bad_q.write_text(P + "SELECT ?x WHERE { ?s :p ?x } SEQ { ?s :q ?y \n")
    r = invoke("run", "epsparql", bad_q, s)
    assert r.exit_code == 2 and f"{bad_q}:3:1:" in r.stderr
    bad_s = tmp_path / "bad.nt"
    bad_s.write_text(f"<{EX}s> <{EX}p> 1 3 .\n<{EX}s> <{EX}p> 1 2 .\n")
    r = invoke("compare", "epsparql", q, bad_s)
    assert r.exit_code == 2 and f"{bad_s}:2:" in r.stderr and "time goes backwards" in r.stderr
    r = invoke("run", "epsparql", q, tmp_path / "s.csv")
    assert r.exit_code == 2


def test_cli_papers_check():
    r = invoke("papers-check", "epsparql", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    rows = rows if isinstance(rows, list) else rows["cases"]
    names = {c["name"] for c in rows}
    for e in ("E1", "E2", "E3 repaired", "E4 set", "E5 rising", "E6 sliding average (5)", "E8 literal (<)",
              "E9 Join", "E10 per_triple", "E11 ep_sparql_11", "E12 literal (mandatory)", "E14 ep_sparql_05"):
        assert e in names
    assert all(c["ok"] and c["compare"] == "agree" for c in rows), [c["name"] for c in rows if not c["ok"]]
    assert sum(c["expected"] is not None for c in rows) >= 28


@pytest.mark.skipif(shutil.which("java") is None, reason="verify checks for Java first")
def test_cli_verify_rows_for_epsparql(monkeypatch, tmp_path):
    monkeypatch.setattr(languages, "names", lambda: ["epsparql"])
    r = invoke("verify", "--cases", "0", "--out", tmp_path, "--json")
    assert r.exit_code == 0, r.output
    checks = {(x["lang"], x["check"]): x for x in json.loads(r.stdout)["rows"]}
    assert set(checks) == {("epsparql", "real data"), ("epsparql", "paper cases")}
    assert checks[("epsparql", "paper cases")]["agree"] >= 28


# ----------------------------------------------------------------------------- generators
def test_random_case_is_a_function_of_the_seed():
    a = L.random_case(random.Random("s1"), 8)
    b = L.random_case(random.Random("s1"), 8)
    assert a == b
    cases = [L.random_case(random.Random(i), 8) for i in range(60)]
    assert len({c[0] for c in cases}) > 50
    for text, stream, options in cases:
        L.evaluator(L.parse(text), options)
        assert [o.position for o in stream] == list(range(len(stream)))
        assert [o.end for o in stream] == sorted(o.end for o in stream)
        assert all(0 <= o.start <= o.end for o in stream)
    joined = "\n".join(c[0] for c in cases)
    for feature in (" SEQ ", " UNION ", " OPTIONAL ", " EQUALS ", " OPTIONALSEQ ", " EQUALSOPTIONAL ",
                    "CONSTRUCT", "FILTER", "BOUND(", "getDURATION()", "} {"):
        assert feature in joined, feature
    assert any(o != Options() for _t, _s, o in cases)


@settings(max_examples=25, deadline=None)
@given(L.strategies().queries(), L.strategies().streams(0, 6), L.strategies().options())
def test_hypothesis_strategies(text, stream, options):
    assert "SELECT" in text
    assert [o.position for o in stream] == list(range(len(stream)))
    assert isinstance(options, Options)


# ----------------------------------------------------------------------------- shrinking
def test_shrinking_reduces_an_artificial_disagreement():
    from ceplab.workbench.langs.epsparql.simplify import simplifications as epsparql_simplifications
    from ceplab.workbench.shrink import shrink

    inner = L.evaluator

    class DropsLate:
        """Loses every result ending after tick 2 (an artificial engine bug)."""

        def __init__(self, q, o):
            self.ev = inner(q, o)
            self.path = "drops late"

        def push(self, e):
            return [r for r in self.ev.push(e) if r.end <= 2]

        def close(self):
            return [r for r in self.ev.close() if r.end <= 2]

    bad = dataclasses.replace(L, evaluator=DropsLate)
    text = P + ("SELECT * WHERE { { { ?s :p ?x } SEQ { ?s :q ?y } } UNION "
                "{ { ?s :r ?z FILTER (?z != 7) } OPTIONAL { ?s :p ?x } } }\n")
    stream = parse_compact_stream(["a p 1 0", "a q 1 1", "a r 2 1", "a q 2 3", "b p 1 4", "b r 1 5"])
    assert compare(bad, L.parse(text), stream).verdict == "disagree"
    assert len(list(epsparql_simplifications(text))) >= 4

    def fails(q, s):
        return compare(bad, L.parse(q), s).verdict == "disagree"

    out = shrink(bad, text, stream, fails, max_checks=200, deadline_s=60)
    assert fails(out.query, out.stream)
    assert len(out.stream) < len(stream) and len(out.query) < len(text)
    assert [o.position for o in out.stream] == list(range(len(out.stream)))


# ----------------------------------------------------------------------------- Spark
@pytest.mark.skipif(shutil.which("java") is None,
                    reason="PySpark needs Java 17+ and no 'java' is on the PATH")
def test_spark_fuzz_epsparql(tmp_path):
    from ceplab.workbench.spark import case_rng, fuzz, generate_streams, replay_case, spark_session

    spark = spark_session("local[2]", app="ceplab-tests-epsparql")
    try:
        rows = generate_streams(spark, 3, 4, seed=7, lang="epsparql").collect()
        _q, stream, _o = L.random_case(case_rng(7, "epsparql", 2), 4)
        got = sorted((r.position, r.type, r.time, json.loads(r.attrs)["end"]) for r in rows if r.stream_id == 2)
        assert got == [(o.position, o.p.n3(), o.start, o.end) for o in stream]
        (a,) = fuzz(["epsparql"], cases=20, length=6, seed=7, spark=spark, out=tmp_path / "a",
                    progress=False, write_parquet=False, engine_kw={"time_s": None})   # no wall clock: a loaded
        # machine must not turn a slow engine run into an engine_limit finding here
        assert a.cases == 20 and a.agree + a.disagree + a.undecided == 20 and a.disagree == 0
        assert replay_case("epsparql", 7, 6, 3)["query"] == a.rows[3]["query"]
        (f,) = fuzz(["epsparql"], cases=6, length=6, seed=7, spark=spark, out=tmp_path / "f",
                    progress=False, write_parquet=False, fault="drop", shrink_s=5)
        assert f.disagree >= 1
        rep = json.loads(Path(f.reproducers[0]).read_text())
        assert rep["lang"] == "epsparql" and rep["replay"].startswith("ceplab compare epsparql ")
        assert len(rep["shrunk"]["stream"]) <= len(rep["stream"])
        qfile, sfile = rep["replay"].split()[3:5]
        r = invoke("compare", "epsparql", qfile, sfile)      # the reproducer's files are readable
        assert r.exit_code in (0, 1), r.output
    finally:
        spark.stop()


def test_cli_background_and_ontology(tmp_path):
    """E13 through the CLI: --ontology makes the subclass chain entail the stream's types (docs/semantics/epsparql.md#epsparql-A14); a language
    without background knowledge rejects the option; a bad Turtle file is bad input."""
    from typer.testing import CliRunner

    from ceplab.workbench.cli import app

    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    (tmp_path / "o.ttl").write_text(
        "@prefix : <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        ":Rosaceae rdfs:subClassOf :Magnoliophyta . :Magnoliophyta rdfs:subClassOf :Tracheobionta .\n"
        ":Fungi rdfs:subClassOf :Eukaryota .\n")
    (tmp_path / "q.rq").write_text("PREFIX : <http://example.org/>\nSELECT ?x WHERE { ?x a :Tracheobionta }\n")
    (tmp_path / "s.nt").write_text(
        f"<http://example.org/plant1> {rdf_type} <http://example.org/Rosaceae> 1 .\n"
        f"<http://example.org/plant2> {rdf_type} <http://example.org/Fungi> 2 .\n"
        f"<http://example.org/plant3> {rdf_type} <http://example.org/Tracheobionta> 3 .\n")
    runner = CliRunner()
    args = ["compare", "epsparql", str(tmp_path / "q.rq"), str(tmp_path / "s.nt"), "--json"]
    res = runner.invoke(app, args + ["--ontology", str(tmp_path / "o.ttl")])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output.strip().splitlines()[-1])
    assert out["agree"] and out["oracle_count"] == 2          # plant1 (entailed) and plant3
    res = runner.invoke(app, args)
    assert res.exit_code == 0 and json.loads(res.output.strip().splitlines()[-1])["oracle_count"] == 1
    (tmp_path / "bad.ttl").write_text("this is not turtle\n")
    res = runner.invoke(app, args + ["--ontology", str(tmp_path / "bad.ttl")])
    assert res.exit_code == 2 and "bad.ttl" in res.output
    (tmp_path / "r.event").write_text("d <- a seq b.\n")
    (tmp_path / "s.jsonl").write_text('{"type": "a", "time": 1}\n')
    res = runner.invoke(app, ["run", "etalis", str(tmp_path / "r.event"), str(tmp_path / "s.jsonl"),
                              "--ontology", str(tmp_path / "o.ttl")])
    assert res.exit_code == 2 and "takes no option" in res.output


# ----------------------------------------------------------------------------- fuzz cases with background knowledge
def test_seeded_fuzz_draw_contains_background_cases():
    """A quarter of the seeded random cases (the Spark fuzzer's) draw background knowledge (docs/semantics/epsparql.md#epsparql-A14) inline in
    the query text; parse hands it to oracle and engine, and it changes answers in some cases."""
    from ceplab.semantics.epsparql.streams import Background
    from ceplab.workbench.langs.epsparql.background import WithBackground, background_lines
    from ceplab.workbench.spark import case_rng, run_case

    cases = [L.random_case(case_rng(7, "epsparql", i), 6) for i in range(80)]
    with_bg = [(t, s, o) for t, s, o in cases if background_lines(t)["ontology"]]
    assert 8 <= len(with_bg) <= 40
    assert L.random_case(case_rng(7, "epsparql", 3), 6) == cases[3]        # still a function of the seed
    changed = 0
    for text, stream, options in with_bg:
        q = L.parse(text)
        assert isinstance(q, WithBackground) and isinstance(q.background, Background)
        assert len(q.background.ontology) >= 1
        rep = compare(L, q, stream, options)
        assert rep.verdict != "disagree", (text, rep.problems)
        if rep.verdict == "agree":
            plain = compare(L, q.qs, stream, options)
            changed += plain.verdict == "agree" and set(plain.oracle_results) != set(rep.oracle_results)
    assert changed >= 1                      # the background reaches the answers
    assert any(" a " in t for t, _s, _o in with_bg)                  # rdf:type patterns over the classes
    row = run_case("epsparql", 7, 6, cases.index(with_bg[0]))
    assert row["query"] == with_bg[0][0]


def test_reproducer_with_background_round_trips(tmp_path):
    """A disagreement on a case with inline background: the JSON reproducer records the background, the shrunk
    query keeps it (it is needed for the failure), and the reproducer's query, stream and .query/.jsonl files
    read back to the same case."""
    from ceplab.workbench.langs.epsparql.background import WithBackground, background_comment, inline_background
    from ceplab.workbench.langs.epsparql.streams import stream_to_json
    from ceplab.workbench.spark import stream_from_json as spark_stream_from_json
    from ceplab.workbench.spark import write_reproducer

    rdfs = "http://www.w3.org/2000/01/rdf-schema#"
    onto = [f"<{EX}p> <{rdfs}subPropertyOf> <{EX}q> ."]
    graph = [f'<{EX}b> <{EX}q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .']
    text = background_comment(graph, onto) + P + "SELECT ?x WHERE { { ?x :q 1 } UNION { ?x :r 2 } }\n"
    stream = parse_compact_stream(["a p 1 1", "c r 5 2", "c r 6 3"])
    q = L.parse(text)
    assert isinstance(q, WithBackground)
    assert len(compare(L, q, stream).oracle_results) == 1               # :a :p 1 entails :a :q 1
    assert len(compare(L, q.qs, stream).oracle_results) == 0
    row = {"case_id": 5, "verdict": "disagree", "query": text, "stream": stream_to_json(stream), "options": {}}
    path = write_reproducer("epsparql", 7, 3, row, tmp_path, fault="drop", shrink_s=20)
    rep = json.loads(path.read_text())
    assert rep["background"] == {"graph": graph, "ontology": onto}
    assert rep["shrunk"]["background"]["ontology"] == onto              # needed for the failure: kept
    assert rep["shrunk"]["verdict"] == "disagree" and len(rep["shrunk"]["stream"]) == 1
    for qtext in (rep["query"], rep["shrunk"]["query"]):
        back = L.parse(qtext)
        assert isinstance(back, WithBackground)
    assert set(inline_background(rep["query"]).ontology) == set(q.background.ontology)
    assert set(inline_background(rep["query"]).graph) == set(q.background.graph)
    assert spark_stream_from_json(rep["stream"], "r", L) == stream
    qfile, sfile = rep["replay"].split()[3:5]
    assert isinstance(L.parse_file(qfile), WithBackground)
    r = invoke("compare", "epsparql", qfile, sfile, "--json")         # replays with the background: agrees
    assert r.exit_code == 0, r.output
    assert json.loads(r.output.strip().splitlines()[-1])["oracle_count"] == 1


def test_inline_background_errors_name_the_line():
    from ceplab.semantics.errors import ParseError

    text = P + "# background ontology: <a> <b> .\nSELECT * WHERE { ?s :p ?x }\n"
    with pytest.raises(ParseError) as ei:
        L.parse(text)
    assert ei.value.line == 2
