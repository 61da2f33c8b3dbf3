"""papers-check/cqels: the worked cases T1-T17 (docs/semantics/cqels.md#cqels-4) run through the clingo oracle and the
incremental engine against their stated answers, and one named test per finding of papers-check/cqels/FINDINGS.md,
each running its minimal counterexample (the ``F<n>`` cases of examples.json, whose query and stream files are in
papers-check/cqels/findings/) through oracle and engine."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ceplab.asp.oracle import Limits
from ceplab.semantics.errors import StreamError
from ceplab.workbench import language, papers
from ceplab.workbench.langs.cqels import LANGUAGE
from ceplab.workbench.langs.cqels.papers import compact_value, paper_expected, parse_compact_stream

from .cqels_cases import D_SUB

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT / "papers-check" / "cqels"
EXAMPLES = PAPERS / "examples.json"
FINDINGS = PAPERS / "FINDINGS.md"
FILES = PAPERS / "findings"
QUERIES = Path(__file__).with_name("queries")
LIMITS = Limits(time_s=60)
EX = "http://example.org/"


@pytest.fixture(scope="module", autouse=True)
def registered():
    """The plugin, registered in-process (``ceplab papers-check cqels`` finds it through the entry point)."""
    known = "cqels" in language.names()
    if not known:
        language.add(LANGUAGE)
    yield
    if not known:
        language.remove("cqels")


@pytest.fixture(scope="module")
def cases(registered) -> dict:
    return {c.name: c for c in papers.load_file(EXAMPLES, "cqels")}


@pytest.fixture(scope="module")
def verdicts(cases) -> dict:
    """Every case's verdict, computed once (oracle and engine)."""
    return {name: papers.check_case(c, LIMITS) for name, c in cases.items()}


def answers(verdicts: dict, name: str) -> set:
    """The answers of a case as ``(t, ((var, local name or N-Triples), ...), (a, b))``; asserts that oracle and
    engine both ran, agree and give the stated answers."""
    v = verdicts[name]
    assert v.compare == "agree", (name, v.to_json())
    assert v.ok and v.oracle == v.engine, (name, v.verdict, v.oracle, v.case.expected)
    short = lambda x: x[len(EX) + 1:-1] if x.startswith("<" + EX) else x  # noqa: E731
    return {(r["time"], tuple(sorted((k, short(x)) for k, x in r["mapping"].items())), tuple(r["interval"]))
            for r in v.oracle}


def times(ans: set) -> list[int]:
    return sorted({t for t, _, _ in ans})


# ------------------------------------------------------------------------------------------------ the cases
def test_every_case_agrees_with_the_paper(verdicts):
    """``ceplab papers-check cqels``: every case, oracle and engine both, equals its stated answers."""
    bad = [(n, v.verdict) for n, v in verdicts.items() if not v.ok or v.compare != "agree"]
    assert not bad, bad
    assert len(verdicts) >= 50


def test_cases_cover_t1_to_t17(cases):
    for i in range(1, 18):
        assert any(c == f"T{i}" or c.startswith(f"T{i} ") for c in cases), f"T{i}"


def test_cli_papers_check_cqels(registered):
    """``ceplab papers-check cqels --json`` prints every case with the verdict ok."""
    from typer.testing import CliRunner

    from ceplab.workbench.cli import app

    r = CliRunner().invoke(app, ["papers-check", "cqels", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["failed"] == 0 and out["ok"] == len(out["cases"]) >= 50
    assert all(x["compare"] == "agree" and x["lang"] == "cqels" for x in out["cases"])


PINNED = {"ex6_running.q": "T1", "ex4_plain.q": "T4", "t03_path_plus.q": "T3", "ex5_nsparql.q": "T3 nSPARQL axes",
          "t03_path_star.q": "T3 star", "t06_repeated.q": "T6", "t07_seq_wo.q": "T7", "t08_wo_boundary.q": "T8 closed",
          "t09_no_head.q": "T9", "t10_join_ecs.q": "T10", "t11_ec_seq.q": "T11", "t12_clip.q": "T12",
          "t13_bgp_scope.q": "T13 one element", "t15_rdfs_paths.q": "T15", "t16_no_tail_strict.q": "T16",
          "t17_clip_wo.q": "T17 closed"}


@pytest.mark.parametrize("stem", sorted(PINNED))
def test_cases_use_the_pinned_queries(cases, stem):
    """The T-cases' queries are those of tests/cqels/queries (same AST), the running example's D is D_sub of the
    pinned tests."""
    from ceplab.semantics.cqels.parser import parse_file

    c = cases[PINNED[stem]]
    assert LANGUAGE.parse(c.query).query == parse_file(QUERIES / stem)
    if stem in ("ex6_running.q", "ex4_plain.q"):
        assert LANGUAGE.parse(c.query).static == D_SUB


def _element_key(e) -> tuple:
    from ceplab.semantics.cqels.streams import element_triples
    from ceplab.semantics.rdfstream import nt_term

    return (e.start, e.end, str(e.stream), e.position, tuple(tuple(nt_term(x) for x in t) for t in element_triples(e)))


def test_findings_files_are_the_cases(cases):
    """Every query and stream file of papers-check/cqels/findings is the query and stream of an F-case (the
    FINDINGS command lines run exactly what the tests check), and every F-case has its files."""
    from ceplab.workbench.langs.cqels.streams import read_stream

    streams = {p.name: [_element_key(e) for e in read_stream(p)] for p in FILES.glob("*.trig")}
    queries = {p.name: p.read_text(encoding="utf-8") for p in FILES.glob("*.q")}
    used_q, used_s = set(), set()
    for name, c in cases.items():
        if not name.startswith("F"):
            continue
        qs = [n for n, text in queries.items() if text == c.query]
        ss = [n for n, els in streams.items() if els == [_element_key(e) for e in c.stream]]
        assert qs and ss, name
        used_q.update(qs)
        used_s.update(ss)
    assert used_q == set(queries) and used_s == set(streams)


def test_compact_notation():
    els = parse_compact_stream(["s@[4,20] { :x :pn :o }", "<http://x.org/t>@3 { :a1 :delayAt :m ; :line 2 }"])
    assert [(str(e.stream), e.start, e.end, e.position, len(e.triples())) for e in els] == [
        ("http://x.org/t", 3, 3, 1, 2), ("http://example.org/s", 4, 20, 0, 1)]
    assert parse_compact_stream([]) == []
    assert compact_value(25) == '"25"^^<http://www.w3.org/2001/XMLSchema#integer>'
    assert compact_value("m") == "<http://example.org/m>"
    assert compact_value("rdf:type") == "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    assert compact_value('"lit"@en') == '"lit"@en'
    got = paper_expected([{"t": "9..10", "map": {"a": "x"}, "iv": ["t-5", 9]}, {"t": [2, 2], "map": {}, "iv": [0, "t"]}])
    assert got == [{"time": 9, "mapping": {"a": "<http://example.org/x>"}, "interval": [4, 9]},
                   {"time": 10, "mapping": {"a": "<http://example.org/x>"}, "interval": [5, 9]},
                   {"time": 2, "mapping": {}, "interval": [0, 2]}]
    canonical = {"time": 1, "mapping": {}, "interval": [0, 1]}
    assert paper_expected([canonical]) == [canonical] and paper_expected(None) is None
    for bad in ([{"t": "5..3", "map": {}, "iv": [0, 0]}], [{"t": 3, "map": {}, "iv": [4, 5]}],
                [{"t": 3, "map": {}, "iv": [0, "u"]}], [{"t": 3, "iv": [0, 3], "mp": {}}], [{"t": 1.5, "iv": [0, 1]}],
                [{"t": 3, "map": {"x": 1.5}, "iv": [0, 3]}]):
        with pytest.raises(ValueError):
            paper_expected(bad)
    for bad, line in ((["s@1 { :a :b :c }", "s 3 { :a :b :c }"], 2), (["s@[5,3] { :a :b :c }"], 1),
                      (["s@1 { :a :b :c }", "s@2 { :a :b }"], 2), (["s@1 { :a :b \"x\"^^xsd:integer }"], 1)):
        with pytest.raises(StreamError) as e:
            parse_compact_stream(bad, "x.json")
        assert e.value.file == "x.json" and e.value.line == line, (bad, e.value)


def test_bad_case_file_is_a_located_error(tmp_path, registered):
    """A malformed compact answer or stream in a case file is a PaperFileError/StreamError naming the file."""
    from ceplab.semantics.errors import InputError

    doc = {"cases": [{"name": "x", "query": "SELECT * WHERE { ?a ?b ?c }", "stream": [],
                      "expected": [{"t": 3, "map": {}, "iv": [5, 4]}]}]}
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError) as e:
        papers.load_file(p, "cqels")
    assert str(p) in str(e.value) and "bad expected results" in str(e.value)
    doc["cases"][0]["expected"] = []
    doc["cases"][0]["stream"] = ["s@x { :a :b :c }"]
    p.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(StreamError) as e:
        papers.load_file(p, "cqels")
    assert e.value.file == str(p) and e.value.line == 1


# ------------------------------------------------------------------------------------------------ FINDINGS 1-19
def test_finding_1_seq_wo_index_typo(verdicts):
    """SEQ_WO outputs mu1 u mu3 (z is bound) and needs mu1 compatible with mu3: b1@3 does not pair with a1@1; with
    C's subject renamed (no shared variable, what the printed formula tests) it does."""
    ok = answers(verdicts, "F1 SEQ_WO outputs μ1 ∪ μ3")
    assert ok == {(t, (("x", "a1"), ("z", "d")), (1, 4)) for t in (4, 5, 6)}
    loose = answers(verdicts, "F1 no shared variable between A and C")
    assert {iv for _, _, iv in loose} == {(1, 3), (1, 4)} and times(loose) == [3, 4, 5, 6]


def test_finding_2_example9(verdicts):
    """Example 9: the answer at 16 is <{s: m}, [10,16]> (the paper omits the interval); Omega5 = [[P, 16]]_D has
    four mappings {a1, d1} x {m, b} on [0, 16], not one; T1's timeline is 16..20."""
    assert answers(verdicts, "F2 Example 9 answer") == {(16, (("s", "m"),), (10, 16))}
    at16 = {m for t, m, iv in answers(verdicts, "F2 Example 9 Ω5") if t == 16 and iv == (0, 16)}
    assert at16 == {(("s", s), ("v", v)) for s in ("m", "b") for v in ("a1", "d1")}
    assert times(answers(verdicts, "T1")) == list(range(16, 21))
    ec = answers(verdicts, "T2")
    assert {(m, iv) for t, m, iv in ec if t == 16} == {((("s", "m"), ("v", "a1")), (10, 16)),
                                                         ((("s", "h"), ("v", "d1")), (12, 14))}


def test_finding_3_next_a_row(verdicts):
    """Table 1's next::a row prints plain next's semantics: next::p gives (n1, n2) only, plain next also (n1, n3)."""
    assert answers(verdicts, "F3 next::p") == {(0, (("x", "n1"), ("y", "n2")), (0, 0))}
    assert answers(verdicts, "F3 next (the printed row)") == {(0, (("x", "n1"), ("y", y)), (0, 0)) for y in ("n2", "n3")}


def test_finding_4_delay_versus_delayat(verdicts, cases):
    """Example 3's stream says delay, Example 6's query :delayAt: read literally, the running example has no answer."""
    assert answers(verdicts, "F4 Example 3's predicate delay") == set()
    assert {str(p) for e in cases["F4 Example 3's predicate delay"].stream for _, p, _ in e.triples()} == {EX + "delay"}
    assert answers(verdicts, "F2 Example 9 answer")


def test_finding_5_wo_bounds(verdicts):
    """SEQ_WO's lost relation: a negative at the gap's end point blocks under closed (default), not under strict;
    T8 tells the readings apart on three subjects."""
    assert answers(verdicts, "F5 closed") == set()
    assert answers(verdicts, "F5 strict") == {(6, (("x", "x"),), (2, 6))}
    assert answers(verdicts, "T8 closed") == set()
    assert {m for _, m, _ in answers(verdicts, "T8 strict")} == {(("x", "x"),), (("x", "y"),)}


def test_finding_6_clipping_artefact_of_closed_seq_wo(verdicts):
    """T17: N@[4,20] clipped to [4,6] fits the gap [2,6] at t = 6 only: closed misses the answer for one tick."""
    assert times(answers(verdicts, "F6 closed")) == [7]
    assert times(answers(verdicts, "F6 strict")) == [6, 7]
    assert times(answers(verdicts, "T17 closed")) == list(range(7, 13))
    assert times(answers(verdicts, "T17 strict")) == list(range(6, 13))


def test_finding_7_range_lost_line(verdicts):
    """RANGE's restored start max(t1, t - T) and the closed window: [1,4] under RANGE 2 is [1,t], [t-2,4], gone at 7."""
    got = answers(verdicts, "F7 clipping")
    assert sorted(iv for _, _, iv in got) == [(1, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 4)]
    assert times(answers(verdicts, "T12")) == list(range(3, 15))


def test_finding_8_static_interval(verdicts):
    """Formula (17) lost: an unrelated change of D at 17 removes the answer under global [tD, t], not under
    per_mapping or unbounded."""
    assert times(answers(verdicts, "F8 global")) == [16]
    assert times(answers(verdicts, "F8 per_mapping")) == times(answers(verdicts, "F8 unbounded")) == [16, 17]
    assert times(answers(verdicts, "T14 global")) == [16]
    assert times(answers(verdicts, "T14 per_mapping")) == list(range(16, 21))


def test_finding_9_bgp_scope(verdicts):
    """(16) matches a BGP inside one element: two simultaneous elements match only under bgp_scope=join."""
    assert answers(verdicts, "F9 element") == set() == answers(verdicts, "T13 two elements")
    assert answers(verdicts, "F9 join") == {(10, (("l", "l1"), ("s", "m"), ("v", "a1")), (10, 10))}
    assert answers(verdicts, "T13 two elements, join") == answers(verdicts, "T13 one element")


def test_finding_10_arrival(verdicts):
    """arrival=end: an element [1,4] is visible from 4, with the same clipped intervals from then on."""
    start = answers(verdicts, "F7 clipping")
    end = answers(verdicts, "F10 arrival=end")
    assert end == {a for a in start if a[0] >= 4} and times(end) == [4, 5, 6]


def test_finding_11_tick(verdicts):
    """RANGE 10m against unit-less times: with a tick of 2m the window is 5 ticks and Example 9's answer is gone."""
    assert answers(verdicts, "F11 tick=2m") == set()
    assert answers(verdicts, "F2 Example 9 answer")


def test_finding_12_zero_length(verdicts):
    """:p* over {n1 p n2}: nSPARQL's self adds (p, p) (voc includes predicates), SPARQL 1.1 does not."""
    ns = {m for _, m, _ in answers(verdicts, "F12 nsparql")}
    sp = {m for _, m, _ in answers(verdicts, "F12 sparql")}
    assert ns - sp == {(("x", "p"), ("y", "p"))} and sp < ns and len(sp) == 3


def test_finding_13_now_and_triples(verdicts):
    """NOW and TRIPLES n are not defined for intervals: now=valid keeps [3,5] at 3, 4, 5, now=arrived at 3 only;
    TRIPLES 2 counts elements (o1 and o2 stay at 2) or triples (o1 drops out at 2)."""
    assert times(answers(verdicts, "F13 NOW valid")) == [3, 4, 5]
    assert times(answers(verdicts, "F13 NOW arrived")) == [3]
    at2 = lambda name: sorted(m[0][1] for t, m, _ in answers(verdicts, name) if t == 2)  # noqa: E731
    assert at2("F13 TRIPLES elements") == ["o1", "o2", "o3"]
    assert at2("F13 TRIPLES triples") == ["o2", "o3"]


def test_finding_14_nested_path_syntax(verdicts):
    """Example 6's and Example 5's spellings agree ({m, b}); the grammar's elt[elt] under SPARQL's '^' tests the stop
    (nothing), and on the inverse it cannot test the value :subway, so the tram lets g and h through."""
    stops = lambda name: {m[0][1] for _, m, _ in answers(verdicts, name)}  # noqa: E731
    assert stops("T3") == stops("T3 nSPARQL axes") == {"m", "b"}
    assert stops("F14 test inside the inverse") == set()
    assert stops("F14 test after the inverse") == {"m", "b", "g", "h"}


def test_finding_15_sets_not_bags(verdicts):
    """'sub-bag': two elements with the same graph that clip to the same interval give one answer."""
    got = answers(verdicts, "F15 sets after clipping")
    assert [len([a for a in got if a[0] == t]) for t in (1, 2, 3, 4)] == [1, 2, 1, 1]


def test_finding_16_existential_witnesses(verdicts):
    """SEQ_WO is existential: pn@4 between pb@3 and pc@7 does not block, pb@5 is another witness."""
    assert answers(verdicts, "F16 existential witnesses") == {(7, (("x", "x"),), (1, 7))}
    assert times(answers(verdicts, "T7")) == list(range(7, 12))


def test_finding_17_negation_without_shared_variables(verdicts):
    """A negative with no variable in common with the positive blocks any answer (unlike SPARQL MINUS)."""
    assert times(answers(verdicts, "F17 no shared variable")) == [1]
    assert times(answers(verdicts, "F17 shared variable")) == [1, 2, 3]


def test_finding_18_no_tail_ongoing_negative(verdicts):
    """NO_TAIL's t4 <= t always holds after clipping: a negative [3,8] blocks from 3 on, not from its end 8."""
    assert times(answers(verdicts, "F18 ongoing negative")) == [1, 2]
    assert times(answers(verdicts, "T16")) == list(range(5, 16))


def test_finding_19_join_intersects(verdicts):
    """JOIN intersects intervals: a1's [10,10] and [11,11] never join; Example 4's answers keep their intervals."""
    assert answers(verdicts, "F19 JOIN intersects") == {(t, (("s", "m"), ("v", "b1")), (10, 10)) for t in (10, 11)}
    at16 = {(m, iv) for t, m, iv in answers(verdicts, "T4") if t == 16}
    assert at16 == {((("s", "m"),), (10, 10)), ((("s", "h"),), (12, 12)), ((("s", "h"),), (14, 14)),
                    ((("s", "m"),), (16, 16))}


def test_findings_file_names_its_tests_and_cases(cases):
    """Every test and F-case named in FINDINGS.md exists, every finding has a test, the command lines name files
    that exist, and the file and examples.json cite the docs' anchors only."""
    text = FINDINGS.read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", text))
    here = set(globals())
    assert named and named <= here, named - here
    numbers = {int(n) for n in re.findall(r"^\| (\d+) \|", text, re.M)}
    assert numbers == set(range(1, 20))
    for n in numbers:
        assert any(t.startswith(f"test_finding_{n}_") for t in named), n
        assert any(c.startswith(f"F{n} ") for c in cases), n
    for f in re.findall(r"papers-check/cqels/findings/([\w.]+)", text):
        assert (FILES / f).is_file(), f
    doc = (ROOT / "docs" / "semantics" / "cqels.md").read_text(encoding="utf-8")
    for src in (text, EXAMPLES.read_text(encoding="utf-8")):
        assert ".." + "/" + "shared" not in src and "/work" + "/" not in src and "the note" not in src.lower()
        for a in re.findall(r"docs/semantics/cqels\.md#(cqels-[\w.\-]+)", src):
            assert f'<a id="{a.rstrip(".")}"></a>' in doc, a
