"""ETALIS in the workbench: the registry record, compare (including the emission-position check),
the CLI (run, compare, papers-check, verify; bad input exits 2 with file:line:col), shrinking,
seeded random cases and a small Spark campaign (skipped without Java)."""
from __future__ import annotations

import dataclasses
import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from typer.testing import CliRunner

from ceplab.semantics.errors import InputError, UnsupportedError
from ceplab.semantics.etalis.options import Options
from ceplab.workbench import cli, language as languages
from ceplab.workbench.compare import OptionError, compare, options_from_kv
from ceplab.workbench.langs.etalis import result_positions
from ceplab.workbench.langs.etalis.papers import parse_compact_stream, project_results

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
L = languages.get("etalis")
T2 = "ie <- a seq b.\ne <- ie seq c.\n"
T2_STREAM = "a@1 a@2 a@3 b@4 b@5 c@6"


def invoke(*args):
    return runner.invoke(cli.app, [str(a) for a in args])


def cmp(rules: str, events: str, options: Options = Options()):
    return compare(L, L.parse(rules), parse_compact_stream(events), options)


# ----------------------------------------------------------------------------- registry
def test_registry_record():
    assert "etalis" in languages.names() and "cel" in languages.names()
    assert L.name == "etalis" and L.options is Options
    for hook in ("result_positions", "simplify", "render", "result_from_json", "stream_from_json",
                 "event_row", "drop_events", "declared_options"):
        assert callable(getattr(L, hook)), hook
    for hook in ("stream", "pattern_query", "project_results"):
        assert callable(getattr(L.paper_format, hook)), hook
    assert L.result_end is None and set(L.peers) == {"etalis"}
    assert "Anicic" in L.paper and "Applied Artificial Intelligence" in L.paper
    r = ("d(1,abc)", 2, 5)
    assert L.result_to_json(r) == ["d(1,abc)", 2, 5]
    assert L.result_from_json(L.result_to_json(r)) == r
    prog = L.parse(T2)
    assert L.parse(L.render(prog)) == prog
    from ceplab.workbench.langs.etalis import data as etalis_data
    cases = L.real_cases()                       # the bundled real-data cases, not an empty fallback
    assert cases and [c[:2] for c in cases] == [c[:2] for c in etalis_data.real_cases()]


def test_parse_compact_stream_and_projection():
    evs = parse_compact_stream("b(1,x)@2 a@1-4 c@3")
    assert [(str(e.atom), e.start, e.end, e.position) for e in evs] == [
        ("b(1,x)", 2, 2, 0), ("c", 3, 3, 1), ("a", 1, 4, 2)]
    res = [["r", 1, 2], ["r(1)", 0, 3], ["s", 0, 1]]
    assert project_results(res, "r") == [["r(1)", 0, 3], [1, 2]]   # sorted by JSON text
    assert project_results(res, "r(1)") == [["r(1)", 0, 3]]


# ----------------------------------------------------------------------------- compare
@pytest.mark.parametrize("rules,events,count", [
    (T2, T2_STREAM, 9),
    ("r <- a seq b. s <- a and b.", "a@1 c@2 b@2 b@2", 2),
    ("t <- 0 seq 7. u <- a seq 3.", "a@1 b@2 b@5", 2),
    ("d(X) <- not(c(Y)).[a(X), b(X)].", "a(1)@1 b(1)@2 a(2)@3 c(2)@4 b(2)@5", 1),
    ("w([property(event_rule_window, 2)]) 'rule:' r <- a seq b.", "a@1 a@2 b@3 a@3-4 b@4", 3),
])
def test_compare_agrees(rules, events, count):
    rep = cmp(rules, events)
    assert rep.verdict == "agree", (rep.problems, rep.oracle_only, rep.engine_only)
    assert rep.oracle_count == count


def test_compare_under_a_policy():
    rep = cmp(T2, T2_STREAM, Options(policy="chronological"))
    assert rep.verdict == "agree", rep.problems
    # docs/semantics/etalis.md#etalis-T2: chronological IE <1,4>, <2,5>; E <1,6>
    assert sorted(L.result_to_json(r) for r in rep.oracle_results) == [
        ["e", 1, 6], ["ie", 1, 4], ["ie", 2, 5]]


def test_result_positions():
    q = L.parse("r <- a seq b. t <- 0 seq 9. u <- a seq 3.")
    s = parse_compact_stream("a@1 c@2 b@2 x@4")
    pos = result_positions(q, s, Options(), None, [("r", 1, 2), ("t", 0, 9), ("u", 1, 3)])
    # r ends at 2 (a tie of c@2 and b@2): determined by b, the second; the time point 3 is passed
    # by x@4; nothing reaches 9: close()
    assert pos == {("r", 1, 2): 2, ("u", 1, 3): 3, ("t", 0, 9): None}


def test_emission_positions_are_checked():
    from ceplab.workbench.spark import faulty_language

    late = faulty_language(L, "late")
    # r is determined by b@2 (position 1); "late" emits it at c@2 (position 2, the same time)
    rep = compare(late, L.parse("r <- a seq b."), parse_compact_stream("a@1 b@2 c@2"))
    assert rep.verdict == "disagree"
    assert any("emitted at position 2, expected at position 1" in p for p in rep.problems)
    dup = faulty_language(L, "duplicate")
    rep = compare(dup, L.parse("r <- a seq b."), parse_compact_stream("a@1 b@2 c@2"))
    assert any("emitted 2 times" in p for p in rep.problems)


def test_unsupported_is_input_error():
    with pytest.raises(InputError):
        L.evaluator(L.parse("r(Y) <- a(X) where Y is X / 2."), Options())
    with pytest.raises(UnsupportedError):
        L.oracle(L.parse("r(Y) <- a(X) where Y is X / 2."), parse_compact_stream("a(1)@1"),
                 Options(), None)


def test_options_from_kv_str_field_and_combinations():
    o = options_from_kv(Options, ["policy=recent", "interval_policy=max:X"])
    assert o == Options(policy="recent", interval_policy="max:X")
    with pytest.raises(OptionError, match="interval_policy"):
        options_from_kv(Options, ["interval_policy=longest"])       # needs a policy
    with pytest.raises(OptionError):
        options_from_kv(Options, ["policy=fifo"])


# ----------------------------------------------------------------------------- CLI
@pytest.fixture()
def files(tmp_path):
    rules = tmp_path / "t2.event"
    rules.write_text(T2 + "t <- 0 seq 9.\n")
    stream = tmp_path / "t2.jsonl"
    stream.write_text("".join(json.dumps(e.to_json()) + "\n"
                              for e in parse_compact_stream(T2_STREAM)))
    etalis_stream = tmp_path / "t2.stream"
    etalis_stream.write_text("event(a,[1,1]).\nevent(b,[2,2]).\n% a comment\nevent(c,[3,3]).\n")
    return rules, stream, etalis_stream


def test_cli_run_json(files):
    rules, stream, estream = files
    r = invoke("run", "etalis", rules, stream, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["lang"] == "etalis" and obj["evaluator"] == "engine" and obj["count"] == 10
    assert ["e", 1, 6] in obj["results"] and ["t", 0, 9] in obj["results"]
    r = invoke("run", "etalis", rules, estream, "--oracle", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["results"] == [["e", 1, 3], ["ie", 1, 2], ["t", 0, 9]]
    r = invoke("run", "etalis", rules, stream)
    assert r.exit_code == 0 and "at close(): [\"t\", 0, 9]" in r.stdout


def test_cli_compare(files):
    rules, stream, _ = files
    r = invoke("compare", "etalis", rules, stream, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["verdict"] == "agree" and obj["oracle_count"] == 10 and obj["problems"] == []
    r = invoke("compare", "etalis", rules, stream, "--set", "policy=chronological", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["oracle_count"] == 4
    r = invoke("compare", "etalis", rules, stream)
    assert r.exit_code == 0 and r.stdout.startswith("agree: 10 results")


def test_cli_bad_input(files, tmp_path):
    rules, stream, _ = files
    bad_rules = tmp_path / "bad.event"
    bad_rules.write_text("ie <- a seq b.\ne <- ie seqq c.\n")
    r = invoke("compare", "etalis", bad_rules, stream)
    assert r.exit_code == 2
    assert f"{bad_rules}:2:9:" in r.stderr and "Traceback" not in r.output + r.stderr
    bad_stream = tmp_path / "bad.jsonl"
    bad_stream.write_text('{"type": "a", "time": 1}\n{"type": "b", "time": "x"}\n')
    r = invoke("run", "etalis", rules, bad_stream)
    assert r.exit_code == 2 and f"{bad_stream}:2:" in r.stderr and "integer" in r.stderr
    back = tmp_path / "back.stream"
    back.write_text("event(a,[1,1]).\nevent(b,[0,0]).\n")
    r = invoke("run", "etalis", rules, back)
    assert r.exit_code == 2 and f"{back}:2:1:" in r.stderr and "backwards" in r.stderr
    r = invoke("compare", "etalis", rules, stream, "--set", "interval_policy=longest")
    assert r.exit_code == 2 and "--set" in r.stderr
    r = invoke("compare", "etalis", rules, stream, "--set", "not_reading=literal")
    assert r.exit_code == 0 and r.stdout.startswith("agree: 10 results")    # no not(..): as per_witness
    assert "Traceback" not in r.output + r.stderr


def test_cli_papers_check():
    r = invoke("papers-check", "etalis", "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    names = {(Path(c["file"]).stem, c["name"]) for c in obj["cases"]}
    assert ("figure1", "seq") in names and ("figure1", "during [during_result=contained]") in names
    assert ("note5", "T2 e") in names and ("note5", "T6b literal") in names
    assert obj["failed"] == 0 and obj["ok"] == len(obj["cases"]) >= 40
    lit = next(c for c in obj["cases"] if c["name"] == "T6b literal")
    assert lit["compare"] == "agree" and lit["oracle"] == []
    r = invoke("papers-check", "etalis/figure1", "--json")
    assert r.exit_code == 0 and {Path(c["file"]).stem for c in json.loads(r.stdout)["cases"]} == {
        "figure1"} and all(c["lang"] == "etalis" for c in json.loads(r.stdout)["cases"])


@pytest.mark.skipif(shutil.which("java") is None, reason="verify checks for Java first")
def test_cli_verify_rows_for_etalis(monkeypatch, tmp_path):
    monkeypatch.setattr(languages, "names", lambda: ["etalis"])
    r = invoke("verify", "--cases", "0", "--out", tmp_path, "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["rows"]
    checks = {(x["lang"], x["check"]): x for x in rows}
    assert set(checks) == {("etalis", "real data"), ("etalis", "paper cases")}
    assert checks[("etalis", "paper cases")]["agree"] >= 40
    assert checks[("etalis", "real data")]["disagree"] == 0


# ----------------------------------------------------------------------------- generators
def test_random_case_is_a_function_of_the_seed():
    a = L.random_case(random.Random("s1"), 8)
    b = L.random_case(random.Random("s1"), 8)
    assert a[0] == b[0] and a[1] == b[1] and a[2] == b[2]
    cases = [L.random_case(random.Random(i), 8) for i in range(40)]
    # distinct cases; the rule texts repeat more often, since the switch-steered shapes share a few texts each
    assert len({(c[0], tuple(map(str, c[1]))) for c in cases}) > 36 and len({c[0] for c in cases}) > 24
    # the requested length, except the switch-steered shapes (their planted events: a few more or fewer) and the
    # long windowed streams (20-40 events) the campaign draws on purpose (generators.gen_long_window_case)
    lengths = [len(c[1]) for c in cases]
    assert sum(n == 8 for n in lengths) >= 30 and all(6 <= n <= 10 or 20 <= n <= 40 for n in lengths), lengths
    for text, stream, options in cases:
        L.evaluator(L.parse(text), options)            # inside the engine's fragment
        assert [e.position for e in stream] == list(range(len(stream)))
        assert [e.end for e in stream] == sorted(e.end for e in stream)
    joined = "\n".join(c[0] for c in cases)
    for feature in (" seq ", " and ", " or ", "not(", "where", "event_rule_window", ").", "cnt("):
        assert feature in joined, feature


@settings(max_examples=25, deadline=None)
@given(L.strategies().queries(), L.strategies().streams(0, 6), L.strategies().options())
def test_hypothesis_strategies(text, stream, options):
    assert isinstance(text, str) and "<-" in text
    assert [e.position for e in stream] == list(range(len(stream)))
    assert isinstance(options, Options)


# ----------------------------------------------------------------------------- shrinking
def test_shrinking_reduces_an_artificial_disagreement():
    from ceplab.workbench.shrink import shrink

    inner = L.evaluator

    class DropsD1:
        """Loses every result of d1 (an artificial engine bug)."""

        def __init__(self, q, o):
            self.ev = inner(q, o)
            self.path = "drops d1"

        def push(self, e):
            return [r for r in self.ev.push(e) if not r[0].startswith("d1")]

        def close(self):
            return [r for r in self.ev.close() if not r[0].startswith("d1")]

    bad = dataclasses.replace(L, evaluator=DropsD1)
    rules = ("d0(X) <- (a(X) seq b(Y)) where (X < 3).\n"
             "w1([property(event_rule_window, 4)]) 'rule:' d1(X) <- (d0(X) and c(_)) or (c(X) par d0(X)).\n"
             "d2(1) <- not(b(_)).[d1(1), c(2)].\n")
    stream = parse_compact_stream("a(1)@0 b(2)@1 c(1)@1 a(2)@2 c(2)@3 b(1)@4 c(1)@5 c(2)@6")
    assert compare(bad, L.parse(rules), stream).verdict == "disagree"

    def fails(q, s):
        return compare(bad, L.parse(q), s).verdict == "disagree"

    out = shrink(bad, rules, stream, fails, max_checks=300, deadline_s=120)
    assert fails(out.query, out.stream)
    assert len(out.stream) < len(stream) and len(out.query) < len(rules)
    assert len(L.parse(out.query).event_rules) <= 2
    assert [e.position for e in out.stream] == list(range(len(out.stream)))


# ----------------------------------------------------------------------------- Spark
@pytest.mark.skipif(shutil.which("java") is None,
                    reason="PySpark needs Java 17+ and no 'java' is on the PATH")
def test_spark_fuzz_etalis(tmp_path):
    from ceplab.workbench.spark import case_rng, fuzz, generate_streams, replay_case, spark_session

    spark = spark_session("local[2]", app="ceplab-tests-etalis")
    try:
        rows = generate_streams(spark, 3, 4, seed=7, lang="etalis").collect()
        _q, stream, _o = L.random_case(case_rng(7, "etalis", 2), 4)
        got = sorted((r.position, r.type, r.time, json.loads(r.attrs)) for r in rows
                     if r.stream_id == 2)
        assert got == [(e.position, e.atom.name, e.start,
                        {"args": e.to_json()["args"], "end": e.end}) for e in stream]
        (a,) = fuzz(["etalis"], cases=8, length=5, seed=7, spark=spark, out=tmp_path / "a",
                    progress=False, write_parquet=False, engine_kw={"time_s": None})   # no wall clock: a loaded
        # machine must not turn a slow engine run into an engine_limit finding here
        assert a.cases == 8 and a.agree + a.disagree + a.undecided == 8 and a.disagree == 0
        assert replay_case("etalis", 7, 5, 3)["query"] == a.rows[3]["query"]
        (f,) = fuzz(["etalis"], cases=4, length=5, seed=7, spark=spark, out=tmp_path / "f",
                    progress=False, write_parquet=False, fault="drop", shrink_s=8)
        assert f.disagree >= 1 and len(f.reproducers) == f.disagree + f.undecided
        rep = json.loads(Path(f.reproducers[0]).read_text())
        assert rep["lang"] == "etalis" and rep["shrunk"]["verdict"] == "disagree"
        assert rep["replay"].startswith("ceplab compare etalis ")
        assert len(rep["shrunk"]["stream"]) <= len(rep["stream"])
    finally:
        spark.stop()


def test_declared_policy_is_honoured_and_reported(tmp_path):
    """A rule file that sets ETALIS's consumption policy: mapped when ETALIS's flag has a counterpart, reported
    either way (never a silent choice); an explicit --set wins."""
    from typer.testing import CliRunner

    from ceplab.workbench.cli import app

    evs = "".join(f'{{"type": "{t}", "time": {x}}}\n' for t, x in
                  [("a", 1), ("a", 2), ("a", 3), ("b", 4), ("b", 5), ("c", 6)])
    (tmp_path / "s.jsonl").write_text(evs)
    rules = "ie <- a seq b.\ne <- ie seq c.\n"
    runner = CliRunner()

    def run(flag, *extra):
        (tmp_path / "r.event").write_text(f"event_consumption_policy({flag}).\n" + rules)
        res = runner.invoke(app, ["run", "etalis", str(tmp_path / "r.event"), str(tmp_path / "s.jsonl"),
                                  "--json", *extra])
        assert res.exit_code == 0, res.output
        lines = [ln for ln in res.output.splitlines() if ln.startswith("{")]
        return json.loads(lines[-1]), res.output

    out, text = run("recent_2")                      # ETALIS's plain LIFO = recent_lifo: E(2,6)
    assert ["e", 2, 6] in out["results"] and ["e", 1, 6] not in out["results"]
    assert "policy=recent_lifo" in text
    out, text = run("chronological_2")               # plain FIFO = chronological: E(1,6)
    assert ["e", 1, 6] in out["results"] and ["e", 2, 6] not in out["results"]
    out, text = run("recent")                        # LIFO keeping the newest goal per value tuple: E(3,6)
    assert [r for r in out["results"] if r[0] == "e"] == [["e", 3, 6]]
    assert "policy=recent_lifo, goal_replacement=same_values" in text
    out, text = run("recent_2", "--set", "policy=chronological")   # explicit --set wins, reported
    assert ["e", 1, 6] in out["results"] and "overrides" in text


def test_plugin_parse_is_memoised_and_errors_are_not():
    """A differential case parses its query more than once; the plugin's parse returns the same immutable AST for
    the same text, and a bad text raises every time (issue: cheaper differential cases)."""
    from ceplab.semantics.errors import ParseError
    from ceplab.semantics.etalis.parser import parse
    from ceplab.workbench.langs.etalis import LANGUAGE

    text = "d(X) <- a(X) seq b(X).\n"
    first = LANGUAGE.parse(text)
    assert LANGUAGE.parse(text) is first and first == parse(text)
    assert LANGUAGE.parse(text, "other.event") == first
    for _ in range(2):
        with pytest.raises(ParseError):
            LANGUAGE.parse("d(X) <- a(X) seq .\n")
