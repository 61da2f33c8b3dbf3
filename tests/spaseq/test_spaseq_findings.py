"""papers-check/spaseq: the worked examples (docs/semantics/spaseq.md#spaseq-5) run through oracle and engine
against their expected results, and one named test per finding of papers-check/spaseq/FINDINGS.md, each running
its minimal counterexample through the clingo oracle and the NFA engine."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ceplab.asp.oracle import Limits
from ceplab.semantics.errors import StreamError
from ceplab.semantics.spaseq.options import Options
from ceplab.semantics.spaseq.streams import parse_streamset
from ceplab.workbench import language, papers
from ceplab.workbench.compare import compare
from ceplab.workbench.langs.spaseq import LANGUAGE
from ceplab.workbench.langs.spaseq.papers import compact_value, paper_expected, parse_compact_stream

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "papers-check" / "spaseq" / "examples.json"
FINDINGS = ROOT / "papers-check" / "spaseq" / "FINDINGS.md"
QUERIES = Path(__file__).with_name("queries")
LIMITS = Limits(time_s=60)


@pytest.fixture(scope="module", autouse=True)
def registered():
    """The plugin, registered in-process (``ceplab papers-check spaseq`` finds it through the entry point)."""
    known = "spaseq" in language.names()
    if not known:
        language.add(LANGUAGE)
    yield
    if not known:
        language.remove("spaseq")


@pytest.fixture(scope="module")
def cases(registered) -> dict:
    return {c.name: c for c in papers.load_file(EXAMPLES, "spaseq")}


def verdict(cases: dict, name: str) -> papers.PaperVerdict:
    """The verdict of one case; asserts that oracle and engine both ran, agree and give the stated results."""
    v = papers.check_case(cases[name], LIMITS)
    assert v.compare == "agree", (name, v.to_json())
    assert v.ok, (name, v.verdict, v.oracle, v.case.expected)
    return v


def results(cases: dict, name: str, **options) -> set:
    """The oracle's results of a case (as JSON texts) under its switches plus ``options``, checked against the
    engine."""
    c = cases[name]
    opts = Options(**{**c.options, **options})
    q = LANGUAGE.parse(c.query, name)
    rep = compare(LANGUAGE, q, c.stream, opts, LIMITS)
    assert rep.verdict == "agree", rep.to_json()
    return {json.dumps(LANGUAGE.result_to_json(r), sort_keys=True) for r in rep.oracle_results}


# ------------------------------------------------------------------------------------------------ the cases
def test_every_case_agrees_with_the_paper(cases):
    """``ceplab papers-check spaseq``: every case, oracle and engine both, equals its stated results."""
    bad = [v for v in (papers.check_case(c, LIMITS) for c in cases.values()) if not v.ok or v.compare != "agree"]
    assert not bad, [(v.case.name, v.verdict) for v in bad]
    assert len(cases) >= 40


def test_cases_cover_t1_to_t11_and_r1_to_r8(cases):
    for k, n in (("T", 11), ("R", 8)):
        for i in range(1, n + 1):
            assert any(c == f"{k}{i}" or c.startswith(f"{k}{i} ") for c in cases), f"{k}{i}"


@pytest.mark.parametrize("stem", sorted(p.stem for p in QUERIES.glob("*.q")))
def test_case_queries_are_the_query_files(cases, stem):
    """Each query file of tests/spaseq/queries is the query of some case (up to inline background lines)."""
    from ceplab.semantics.spaseq.parser import parse

    want = parse((QUERIES / f"{stem}.q").read_text(encoding="utf-8"))
    assert any(LANGUAGE.parse(c.query).query == want for c in cases.values()), stem


def test_compact_notation():
    evs = parse_compact_stream(["pw@2 { :h :price 25 }", "<http://x.org/s>@1 { :e :p 1.5E2 ; a :T }"])
    assert [(str(e.stream), e.time, e.position) for e in evs] == [("http://x.org/s", 1, 1),
                                                                 ("http://example.org/pw", 2, 0)]
    assert compact_value(25) == '"25"^^<http://www.w3.org/2001/XMLSchema#integer>'
    assert compact_value("h1") == "<http://example.org/h1>"
    assert compact_value("14.0e0") == '"14.0"^^<http://www.w3.org/2001/XMLSchema#double>'
    assert compact_value('"alice"') == '"alice"'
    assert paper_expected([{"ev": "pw@1 wt@3", "map": {"s": 7}}]) == [
        {"window": 0, "time": 3, "events": [["http://example.org/pw", 1], ["http://example.org/wt", 3]],
         "mapping": {"s": '"7"^^<http://www.w3.org/2001/XMLSchema#integer>'}}]
    for bad in (["pw { :a :b :c }"], ["pw@1 { :a :b }"], []):
        with pytest.raises(StreamError):
            parse_compact_stream(bad, "x.json")
    with pytest.raises(StreamError) as e:                      # Definition 2, located at the second item
        parse_compact_stream(["s@1 { :a :b 1 }", "s@1 { :a :b 2 }"], "x.json")
    assert e.value.line == 2 and "Definition 2" in e.value.message
    with pytest.raises(ValueError):
        compact_value(1.5)


# ------------------------------------------------------------------------------------------------ FINDINGS 1-9
def test_finding_1_query1_two_spellings(cases):
    """Query 1 is printed as SEQ(A; B+, C) and as SEQ(A,B+,C); on T11's input the two give different answers, and
    the authors' engine (first connector everywhere: SEQ(A; B+; C)) a third."""
    mixed = verdict(cases, "T11 = Query 1 as SEQ(A; B+, C)").oracle
    strict = verdict(cases, "Query 1 as SEQ(A, B+, C)").oracle
    uniform = verdict(cases, "Query 1 as SEQ(A; B+; C)").oracle
    assert len(mixed) == 2 and strict == [] and len(uniform) == 3
    assert {tuple(map(tuple, r["events"])) for r in uniform} > {tuple(map(tuple, r["events"])) for r in mixed}


def test_finding_2_r4_negation_readings(cases):
    """R4: the strictly-between reading gives (e2, e3), the authors' engine's reading (the next selected event
    must not be an instance of B either) nothing."""
    assert len(verdict(cases, "R4").oracle) == 1
    assert verdict(cases, "R4 through_next").oracle == []


def test_finding_2_negation_between_is_vacuous_under_strict_contiguity():
    """Under ',' the open interval between neighbours is empty, so SEQ(A, B!, C) = SEQ(A, C) under
    negation=between on every input (random price streams, oracle and engine)."""
    neg = (QUERIES / "r4.q").read_text(encoding="utf-8")
    plain = neg.replace("WHERE SEQ (A, B!, C)", "WHERE SEQ (A, C)")
    rng = random.Random(4)
    for _ in range(6):
        prices = [rng.choice([10, 14, 16, 20, 88]) for _ in range(rng.randint(3, 7))]
        stream = parse_compact_stream([f"main@{t} {{ :eBay :volume 1.0e0 ; :price {p}.0e0 }}"
                                       for t, p in enumerate(prices, 1)])
        got = {}
        for key, text in (("neg", neg), ("plain", plain)):
            rep = compare(LANGUAGE, LANGUAGE.parse(text), stream, Options(), LIMITS)
            assert rep.verdict == "agree", rep.to_json()
            got[key] = rep.oracle_results
        assert got["neg"] == got["plain"], prices
        thr = compare(LANGUAGE, LANGUAGE.parse(neg), stream, Options(negation="through_next"), LIMITS)
        assert thr.verdict == "agree" and thr.oracle_results <= got["plain"]


def test_finding_3_r7_input_violates_definition_2(cases):
    """The authors' R7 input has two graphs on one stream at 15: rejected with the offending graph's line; on a
    valid single stream B & C need one event both below and above p1, so R7 never matches; on two streams the
    relaxed reading's one match."""
    published = ["main@10 { :eBay :volume 1.0e0 ; :price 14.0e0 }", "main@15 { :eBay :volume 1.0e0 ; :price 12.0e0 }",
                 "main@15 { :eBay :volume 1.0e0 ; :price 18.0e0 }", "main@20 { :eBay :volume 1.0e0 ; :price 16.0e0 }"]
    with pytest.raises(StreamError) as e:
        parse_compact_stream(published, "r7.json")
    assert e.value.line == 3 and "Definition 2" in e.value.message
    trig = ("@prefix ceplab: <https://ceplab.org/ns#> .\n@prefix : <http://example.org/> .\n"
            ":g1 { :eBay :price 12.0e0 } :g1 ceplab:stream :main ; ceplab:start 15 .\n"
            ":g2 { :eBay :price 18.0e0 } :g2 ceplab:stream :main ; ceplab:start 15 .\n")
    with pytest.raises(StreamError) as e:
        parse_streamset(trig, "r7.trig")
    assert (e.value.line, e.value.column) == (4, 1)
    assert verdict(cases, "R7 on one stream").oracle == []
    assert len(verdict(cases, "R7 repaired on two streams").oracle) == 1


def test_finding_4_t9_tumbling_versus_anchored(cases):
    """Definition 16's tumbling windows drop the pair (31, 9) that crosses the boundary at 10; Algorithm 2's
    run-anchored window keeps it: tumbling results are a proper subset of the anchored ones (window index aside)."""
    tumbling = verdict(cases, "T9").oracle
    anchored = verdict(cases, "T9 anchored").oracle
    strip = lambda rs: {(tuple(map(tuple, r["events"])), tuple(sorted(r["mapping"].items()))) for r in rs}  # noqa: E731
    assert strip(tumbling) < strip(anchored) and len(anchored) - len(tumbling) == 1


def test_finding_5_closed_window_bounds(cases):
    """Closed bounds [t0, t1] (Definition 16) put an event at a boundary into two windows: reported twice."""
    v = verdict(cases, "T1 boundary")
    assert [r["window"] for r in v.oracle if r["events"] == [["http://example.org/pw", 15]]] == [0, 1]
    half = results(cases, "T1 boundary", window="tumbling_halfopen")
    assert len(half) == len(v.oracle) - 1


def test_finding_6_right_distributivity_fails_under_skip_till_next(cases):
    """sigma ; (B | C) differs from (sigma ; B) u (sigma ; C): the earlier C instance pre-empts B on the left only;
    the law holds under ':' and ','."""
    def union(conn):
        return ({str(r) for r in verdict(cases, f"distributivity {conn} A{conn}B").oracle}
                | {str(r) for r in verdict(cases, f"distributivity {conn} A{conn}C").oracle})

    for conn in ":,;":
        lhs = {str(r) for r in verdict(cases, f"distributivity {conn} A{conn}(B|C)").oracle}
        if conn == ";":
            assert lhs < union(conn)
        else:
            assert lhs == union(conn)


def test_finding_7_first_match_disjunction(cases):
    """Example 5 states two pairs at time 10; the authors' engine's first-match disjunction keeps one."""
    union = verdict(cases, "T3").oracle
    first = verdict(cases, "T3 first_match").oracle
    at10 = lambda rs: [r for r in rs if r["time"] == 10]  # noqa: E731
    assert len(at10(union)) == 2 and len(at10(first)) == 1
    for mode in ("union", "first_match"):
        assert results(cases, "T3", disjunction=mode, engine_disjunction_order="written") == \
            results(cases, "T3", disjunction=mode, engine_disjunction_order="cost")


def test_finding_8_contiguity_scope(cases):
    """Example 8 measures strict contiguity across streams; a run index by stream sees only the awaited stream:
    an :st event between P1 and W3 breaks ',' for declared/streamset scopes and not for the per-stream one.  ceplab's
    own stream index (engine_stream_index) stays sound: same answers on and off."""
    for scope, n in (("declared", 0), ("streamset", 0), ("stream", 1)):
        assert len(verdict(cases, f"contiguity={scope}, :st declared").oracle) == n
    for scope, n in (("declared", 1), ("streamset", 0), ("stream", 1)):
        assert len(verdict(cases, f"contiguity={scope}, :st not declared").oracle) == n
    c = cases["contiguity=declared, :st declared"]
    q = LANGUAGE.parse(c.query)
    for on in (True, False):
        ev = LANGUAGE.evaluator(q, Options(engine_stream_index=on))
        assert ev.run(list(c.stream)) == []


def test_finding_9_kleene_rows_per_iteration(cases):
    """Example 9 and R3 count witnesses; the union grouping of Definitions 13-14 gives one row per iteration, so
    a chain of two iterations is two results: T7 has 2 witnesses and 3 results, R3 5 witnesses and 7 results."""
    for name, witnesses, rows in (("T7", 2, 3), ("R3", 5, 7)):
        out = verdict(cases, name).oracle
        assert len({str(r["events"]) for r in out}) == witnesses and len(out) == rows


def test_finding_10_relevance_in_context(cases):
    """Query 1 needs relevance judged in context: read literally (standalone), W3 at another location is relevant
    for B and T11 has no match."""
    assert len(verdict(cases, "T11 = Query 1 as SEQ(A; B+, C)").oracle) == 2
    assert verdict(cases, "T11 relevance=standalone").oracle == []


def test_finding_11_partition_by_is_not_a_shared_variable_under_strict_contiguity(cases):
    """The authors' V-shape writes PARTITION BY ?company; as a shared variable (the only reading the formal
    semantics has) an event of another company between two of :c0's breaks ',', while on the :c0 partition alone
    the V-shape matches; under ';' the two readings agree on this input."""
    assert verdict(cases, "PARTITION BY as a shared variable, ','").oracle == []
    shared_stn = verdict(cases, "PARTITION BY as a shared variable, ';'").oracle
    partition = verdict(cases, "PARTITION BY as a partitioned stream, ','").oracle
    assert shared_stn == partition and len(partition) == 1


def test_findings_file_names_its_tests():
    """Every test named in FINDINGS.md exists, and the file cites the docs, not outside notes."""
    import re

    text = FINDINGS.read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", text))
    here = set(globals())
    assert named and named <= here, named - here
    assert ".." + "/" + "shared" not in text and "the note" not in text.lower()
    for a in re.findall(r"docs/semantics/spaseq\.md#(spaseq-[\w.\-]+)", text):
        assert f'<a id="{a}"></a>' in (ROOT / "docs" / "semantics" / "spaseq.md").read_text(encoding="utf-8"), a
