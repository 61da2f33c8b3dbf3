"""``ceplab check`` (ceplab.workbench.check): the engine over one long stream against the segmented oracle; an
injected engine fault is found and cut down to the segment that shows it; a query that is not local is refused;
the Spark (DataFrame) path gives the in-process answer."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ceplab.workbench import language
from ceplab.workbench.check import NotLocal, check
from ceplab.workbench.cli import app
from ceplab.workbench.compare import default_limits, run_oracle


def _case(name: str, n: int = 400, w: int = 15, seed: int = 4):
    L = language.get(name)
    text, stream, options = L.oracle_workload(n, w, seed)
    return L, L.parse(text), text, stream, options


@pytest.mark.parametrize("name", ["cel", "etalis", "epsparql", "spaseq", "cqels"])
def test_agrees_on_a_long_stream_and_equals_the_whole_stream_oracle(name):
    L, q, text, stream, options = _case(name)
    rep = check(L, q, text, stream, options, size=60, limits=default_limits())
    assert rep.verdict == "agree" and len(rep.segments) >= 5
    whole, undecided, _, _ = run_oracle(L, q, stream, options, default_limits())
    assert undecided is None and rep.oracle_count == len(whole) == rep.engine_count > 0


@pytest.mark.parametrize("fault", ["drop", "duplicate", "late"])
def test_an_injected_fault_is_found_and_cut_to_its_segment(fault, tmp_path):
    L, q, text, stream, options = _case("etalis", n=600)
    rep = check(L, q, text, stream, options, size=80, limits=default_limits(), fault=fault, out=tmp_path,
                shrink_s=5)
    assert rep.verdict == "disagree"
    if fault == "drop":
        assert len(rep.oracle_only) == 1 and not rep.problems
    else:                             # the same results, one emitted twice / one event late
        assert not rep.oracle_only and not rep.engine_only and len(rep.problems) == 1
    (cut,) = rep.cut
    assert cut["reproduced"] and cut["stop"] - cut["first"] < len(stream)
    repro = json.loads(open(cut["reproducer"]).read())
    assert repro["verdict"] == "disagree" and repro["segment"]["index"] == cut["segment"]
    assert len(repro["shrunk"]["stream"]) <= cut["stop"] - cut["first"]


def test_a_query_that_is_not_local_is_refused(tmp_path):
    L, q, text, stream, options = _case("etalis")
    with pytest.raises(NotLocal):
        check(L, q, text, stream, L.options(policy="chronological"), size=50, limits=default_limits())
    (tmp_path / "q.event").write_text("d <- a seq b.\n")
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in L.stream_to_json(stream)))
    res = CliRunner().invoke(app, ["check", "etalis", str(tmp_path / "q.event"), str(tmp_path / "s.jsonl")])
    assert res.exit_code == 2 and "not declare this query local" in res.output


def test_spark_dataframe_path_equals_in_process(tmp_path):
    L, q, text, stream, options = _case("cel", n=300, w=20)
    (tmp_path / "q.cel").write_text(text)
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in L.stream_to_json(stream)))
    args = ["check", "cel", str(tmp_path / "q.cel"), str(tmp_path / "s.jsonl"), "--segment-events", "50", "--json"]
    local = json.loads(CliRunner().invoke(app, args).stdout.strip().splitlines()[-1])
    res = CliRunner().invoke(app, args + ["--master", "local[2]"])
    assert res.exit_code == 0, res.output
    spark = json.loads(res.stdout.strip().splitlines()[-1])
    assert spark["verdict"] == local["verdict"] == "agree"
    assert spark["oracle_count"] == local["oracle_count"] == local["engine_count"] > 0
    assert spark["segments"] == local["segments"] >= 5 and spark["where"] == "local[2]"


def test_spark_factory_runs_beside_the_engine_and_finds_a_fault():
    """With a session factory the session starts and the oracle job runs in the background while the engine
    runs; an engine fault is still found, and a session that cannot start is SparkUnavailable, not a hang."""
    from ceplab.workbench.check import SparkUnavailable
    from ceplab.workbench.spark import spark_session

    L, q, text, stream, options = _case("cel", n=300, w=20)
    rep = check(L, q, text, stream, options, size=50, limits=default_limits(),
                spark=lambda: spark_session("local[2]", "ceplab-test-check"), fault="drop")
    assert rep.verdict == "disagree" and len(rep.oracle_only) == 1 and len(rep.segments) >= 5

    def broken():
        raise RuntimeError("no Java here")

    with pytest.raises(SparkUnavailable, match="no Java here"):
        check(L, q, text, stream, options, size=50, limits=default_limits(), spark=broken)
